#pragma once

#include <QDialog>
#include <optional>

#include "model/Project.h"

class QCheckBox;
class QComboBox;
class QLineEdit;
class QLabel;

namespace blobbench {

// Edits one saved connection. The engine list comes from allDrivers(); the password is kept in
// memory by the window for the session and never stored in the project; "Remember in the system
// keyring" asks the window to keep it in the keyring too (ui/Keyring.h).
class ConnectionDialog : public QDialog {
    Q_OBJECT
public:
    explicit ConnectionDialog(QWidget* parent = nullptr);

    void setProfile(const ConnectionProfile& profile, const QString& password = {});
    ConnectionProfile profile() const;
    QString password() const;
    bool rememberPassword() const;
    void setRememberPassword(bool on);

    // Asks for the password of `profile` at connect time: the password and whether to remember it
    // in the keyring, or nothing when cancelled.
    struct Answer {
        QString password;
        bool remember = false;
    };
    static std::optional<Answer> askPassword(QWidget* parent, const ConnectionProfile& profile);

    QLineEdit* passwordEdit() const { return m_password; }
    QCheckBox* rememberBox() const { return m_remember; }

private:
    void engineChanged();
    QLineEdit* m_name;
    QComboBox* m_engine;
    QLineEdit* m_target;
    QLineEdit* m_user;
    QLineEdit* m_password;
    QCheckBox* m_remember;
    QLineEdit* m_role;
    QLineEdit* m_charset;
    QLineEdit* m_clientLibrary;
    QLabel* m_hint;
    ConnectionProfile m_original;
};

}  // namespace blobbench
