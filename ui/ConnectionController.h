#pragma once

#include <QHash>
#include <QObject>
#include <QString>
#include <functional>
#include <optional>
#include <vector>

#include "engine/drivers/Driver.h"
#include "model/Project.h"
#include "ui/Keyring.h"

class QAction;
class QComboBox;
class QLabel;
class QMenu;
class QToolBar;
class QWidget;

namespace blobbench {

class RunController;

// The connection part of the window: which connection is chosen (the toolbar's combo box and its
// Edit… menu), the server label, Test, recent connections and passwords. Reads and changes the
// connections only through the ProjectDocument.
class ConnectionController : public QObject {
    Q_OBJECT
public:
    ConnectionController(ProjectDocument* document, RunController* runner, QWidget* window);

    // Adds the connection combo box, Test, Edit… and the server label to the toolbar.
    void addToToolbar(QToolBar* bar);
    QAction* testAction() const { return m_testAction; }
    QLabel* serverLabel() const { return m_serverLabel; }
    void setEnabled(bool enabled);
    // Fills the combo box from the document.
    void refresh();
    // The server label goes back to empty (a new connection or a new project).
    void clearServerLabel();
    // The driver of the current connection, or nullptr (none, or an unknown engine).
    const Driver* currentDriver() const;

    // Passwords. At connect time: the session's, else the system keyring's entry, else the engine's
    // own places (ISC_PASSWORD, PGPASSWORD, .pgpass; an empty password lets the client look),
    // else the prompt (when one is set: the application sets a dialog, tests a function).
    struct PasswordAnswer {
        QString password;
        bool remember = false;
    };
    using PasswordPrompt = std::function<std::optional<PasswordAnswer>(const ConnectionProfile&)>;
    void setPasswordPrompt(PasswordPrompt prompt) { m_passwordPrompt = std::move(prompt); }
    QString passwordFor(const ConnectionProfile& profile);
    // Keeps the password for the session and, when asked, in the keyring (a one-line message when
    // there is no keyring: the password then stays for this session only).
    void rememberPassword(const ConnectionProfile& profile, const QString& password, bool remember);
    void setKeyring(const Keyring& keyring) { m_keyring = keyring; }
    QString keyringNotice() const { return m_keyringNotice; }
    // connection name -> password, this session only (storage studies connect by name).
    const QHash<QString, QString>& sessionPasswords() const { return m_passwords; }

    // A connect failed with `error`: when the server refused the password, the session forgets it
    // and the next connect asks again (as pgAdmin and DBeaver do) instead of reusing it silently.
    void noteConnectFailure(const QString& error);

    // Shows what a connect or a Test found (versions, what was negotiated, what is not in effect).
    void showSession(const SessionInfo& info, const QString& detail);

public slots:
    void newConnection();
    void editConnection();
    void deleteConnection();
    // Connects in the background with these parameter values (RunController::testConnection).
    void testConnection(const ParameterValues& values);

signals:
    void message(const QString& text, bool error);
    void failed(const QString& message);  // for the window's error banner
    void errorCleared();
    // What the server said of the tunables, for the parameter panel.
    void effectsReported(const std::vector<ParameterEffect>& effects);

private:
    QString lookUpPassword(const ConnectionProfile& profile);
    void rememberRecent(const ConnectionProfile& profile);
    void refreshRecentMenu();

    ProjectDocument* m_document;
    RunController* m_runner;
    QWidget* m_window;
    QComboBox* m_combo = nullptr;
    QLabel* m_serverLabel = nullptr;
    QMenu* m_recentMenu = nullptr;
    QAction* m_testAction = nullptr;

    QHash<QString, QString> m_passwords;  // connection name -> password, this session only
    QHash<QString, QString> m_lastGiven;  // connection name -> the password the last connect was given
    Keyring m_keyring;
    QHash<QString, bool> m_keyringLooked;  // keyring keys looked up (true: an entry exists)
    QString m_keyringNotice;
    PasswordPrompt m_passwordPrompt;
};

}  // namespace blobbench
