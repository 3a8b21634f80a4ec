#pragma once

#include <QDialog>

#include "model/Project.h"

class QComboBox;
class QLineEdit;
class QLabel;

namespace blobbench {

// Edits one saved connection. The engine list comes from allDrivers(); the password is kept in
// memory by the window for the session and never stored in the project.
class ConnectionDialog : public QDialog {
    Q_OBJECT
public:
    explicit ConnectionDialog(QWidget* parent = nullptr);

    void setProfile(const ConnectionProfile& profile, const QString& password = {});
    ConnectionProfile profile() const;
    QString password() const;

private:
    void engineChanged();
    QLineEdit* m_name;
    QComboBox* m_engine;
    QLineEdit* m_target;
    QLineEdit* m_user;
    QLineEdit* m_password;
    QLineEdit* m_role;
    QLineEdit* m_charset;
    QLineEdit* m_clientLibrary;
    QLabel* m_hint;
    ConnectionProfile m_original;
};

}  // namespace blobbench
