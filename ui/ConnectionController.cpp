#include "ui/ConnectionController.h"

#include <QAction>
#include <QComboBox>
#include <QDir>
#include <QFileInfo>
#include <QLabel>
#include <QMenu>
#include <QMessageBox>
#include <QRegularExpression>
#include <QSettings>
#include <QToolBar>
#include <QToolButton>

#include "engine/core/Error.h"
#include "engine/drivers/Registry.h"
#include "model/SampleJson.h"
#include "model/SeriesNaming.h"
#include "ui/ConnectionDialog.h"
#include "ui/ParameterPanel.h"
#include "ui/RunController.h"
#include "ui/Units.h"

namespace blobbench {
namespace {

constexpr int kMaxRecent = 8;

QString sessionSummary(const SessionInfo& info) {
    QString text = qs(info.engine) + QLatin1Char(' ');
    text += info.embedded ? QObject::tr("%1 (embedded)").arg(qs(info.clientVersion))
                          : QObject::tr("server %1, client %2").arg(qs(info.serverVersion), qs(info.clientVersion));
    QStringList negotiated;
    for (const auto& [key, value] : info.negotiated) {
        negotiated << qs(key) + QLatin1Char('=') + qs(value);
    }
    text += QStringLiteral(" · ") + (negotiated.isEmpty()
                                         ? QObject::tr("nothing negotiated")
                                         : QObject::tr("negotiated: %1").arg(negotiated.join(QStringLiteral(", "))));
    return text;
}

// Whether the engine's client will find a password by itself: ISC_PASSWORD for Firebird,
// PGPASSWORD, a password file or a password in the conninfo for PostgreSQL.
bool engineHasOwnPassword(const ConnectionProfile& profile) {
    if (profile.engine == QLatin1String("firebird"))
        return qEnvironmentVariableIsSet("ISC_PASSWORD");
    if (profile.engine == QLatin1String("postgres")) {
        if (qEnvironmentVariableIsSet("PGPASSWORD") || profile.target.contains(QLatin1String("password=")))
            return true;
        const QString file = qEnvironmentVariableIsSet("PGPASSFILE") ? qEnvironmentVariable("PGPASSFILE")
                                                                     : QDir::homePath() + QStringLiteral("/.pgpass");
        return QFileInfo::exists(file);
    }
    return true;  // an engine we know nothing about: let its client try
}

}  // namespace

ConnectionController::ConnectionController(ProjectDocument* document, RunController* runner, QWidget* window)
    : QObject(window), m_document(document), m_runner(runner), m_window(window) {
    m_testAction = new QAction(tr("&Test"), this);
    m_testAction->setToolTip(tr("Connect in the background and show versions and what was negotiated"));
    connect(m_runner, &RunController::connectionTested, this,
            [this](bool ok, const SessionInfo& info, const QString& detail) {
                if (ok) {
                    emit errorCleared();
                    showSession(info, detail);
                } else {
                    m_serverLabel->setText(tr("Connection failed"));
                    noteConnectFailure(detail);
                    emit failed(detail);
                }
            });
}

void ConnectionController::addToToolbar(QToolBar* bar) {
    bar->addWidget(new QLabel(tr(" Connection: ")));
    m_combo = new QComboBox;
    m_combo->setObjectName(QStringLiteral("connections"));
    m_combo->setMinimumContentsLength(28);
    m_combo->setSizeAdjustPolicy(QComboBox::AdjustToMinimumContentsLengthWithIcon);
    connect(m_combo, &QComboBox::activated, this, [this](int index) { m_document->setCurrentConnection(index); });
    bar->addWidget(m_combo);
    bar->addAction(m_testAction);
    auto* edit = new QToolButton;
    edit->setText(tr("Edit…"));
    edit->setPopupMode(QToolButton::MenuButtonPopup);
    auto* connectionMenu = new QMenu(edit);
    connectionMenu->addAction(tr("&New connection…"), this, &ConnectionController::newConnection);
    connectionMenu->addAction(tr("&Edit connection…"), this, &ConnectionController::editConnection);
    connectionMenu->addAction(tr("&Delete connection"), this, &ConnectionController::deleteConnection);
    m_recentMenu = connectionMenu->addMenu(tr("&Recent connections"));
    edit->setMenu(connectionMenu);
    connect(edit, &QToolButton::clicked, this, &ConnectionController::editConnection);
    bar->addWidget(edit);
    m_serverLabel = new QLabel;
    m_serverLabel->setObjectName(QStringLiteral("connectionInfo"));
    m_serverLabel->setContentsMargins(8, 0, 8, 0);
    m_serverLabel->setTextInteractionFlags(Qt::TextSelectableByMouse);
    bar->addWidget(m_serverLabel);
    refreshRecentMenu();
}

void ConnectionController::setEnabled(bool enabled) {
    m_testAction->setEnabled(enabled);  // a Test would wait behind the run on the worker thread
    m_combo->setEnabled(enabled);
}

void ConnectionController::refresh() {
    const QSignalBlocker block(m_combo);
    m_combo->clear();
    for (const ConnectionProfile& p : m_document->project().connections) {
        m_combo->addItem(p.name, p.target);
        // Masked, and a URI that names its engine is not prefixed with it again.
        m_combo->setItemData(m_combo->count() - 1, connectionText(p.toSpec().label()), Qt::ToolTipRole);
    }
    m_combo->setCurrentIndex(m_document->project().currentConnection);
}

void ConnectionController::clearServerLabel() {
    m_serverLabel->clear();
    m_serverLabel->setToolTip({});
}

const Driver* ConnectionController::currentDriver() const {
    const ConnectionProfile* profile = m_document->project().current();
    if (profile == nullptr) {
        return nullptr;
    }
    try {
        return &driverById(profile->engine.toStdString());
    } catch (const Error&) {
        return nullptr;
    }
}

void ConnectionController::newConnection() {
    ConnectionDialog dialog(m_window);
    ConnectionProfile blank;
    blank.name = tr("New connection");
    blank.engine = QString::fromStdString(allDrivers().front()->id());
    dialog.setProfile(blank);
    if (dialog.exec() != QDialog::Accepted)
        return;
    const ConnectionProfile profile = dialog.profile();
    rememberPassword(profile, dialog.password(), dialog.rememberPassword());
    const int index = m_document->addConnection(profile);
    m_document->setCurrentConnection(index);
}

void ConnectionController::editConnection() {
    const int index = m_document->project().currentConnection;
    const ConnectionProfile* current = m_document->project().current();
    if (current == nullptr) {
        newConnection();
        return;
    }
    ConnectionDialog dialog(m_window);
    dialog.setProfile(*current, m_passwords.value(current->name));
    const QString oldKey = Keyring::keyFor(*current);
    const bool inKeyring = m_keyringLooked.value(oldKey);
    dialog.setRememberPassword(inKeyring);
    if (dialog.exec() != QDialog::Accepted)
        return;
    const ConnectionProfile profile = dialog.profile();
    if (inKeyring && (!dialog.rememberPassword() || Keyring::keyFor(profile) != oldKey)) {
        // Unticked (or another user or target): the old entry goes.
        const Keyring::Result removed = m_keyring.remove(oldKey);
        if (removed.ok) {
            m_keyringLooked[oldKey] = false;
            emit message(tr("Password for %1 removed from the system keyring").arg(oldKey), false);
        } else {
            emit message(tr("Cannot remove the password for %1 from the system keyring: %2").arg(oldKey, removed.error),
                         true);
        }
    }
    if (profile.name != current->name)
        m_passwords.remove(current->name);
    rememberPassword(profile, dialog.password(), dialog.rememberPassword());
    m_document->setConnection(index, profile);
}

void ConnectionController::deleteConnection() {
    const ConnectionProfile* current = m_document->project().current();
    if (current == nullptr)
        return;
    if (QMessageBox::question(m_window, tr("Delete connection"),
                              tr("Delete the connection “%1”?").arg(current->name)) != QMessageBox::Yes) {
        return;
    }
    m_passwords.remove(current->name);
    m_document->removeConnection(m_document->project().currentConnection);
}

void ConnectionController::testConnection(const ParameterValues& values) {
    const ConnectionProfile* profile = m_document->project().current();
    if (profile == nullptr) {
        emit failed(tr("No connection: add one with Edit… → New connection."));
        return;
    }
    emit errorCleared();
    m_serverLabel->setText(tr("Testing %1…").arg(profile->name));
    emit message(tr("Testing %1 (%2)").arg(profile->name, connectionText(profile->toSpec().label())), false);
    m_runner->testConnection(profile->toSpec(passwordFor(*profile)), values);
}

QString ConnectionController::passwordFor(const ConnectionProfile& profile) {
    QString password = lookUpPassword(profile);
    m_lastGiven[profile.name] = password;
    return password;
}

QString ConnectionController::lookUpPassword(const ConnectionProfile& profile) {
    QString session = m_passwords.value(profile.name);
    if (!session.isEmpty())
        return session;
    const Driver* driver = nullptr;
    for (const Driver* d : allDrivers()) {
        if (qs(d->id()) == profile.engine)
            driver = d;
    }
    if (driver == nullptr || !driver->networked())
        return {};
    const QString key = Keyring::keyFor(profile);
    if (!m_keyringLooked.contains(key)) {
        const Keyring::Result found = m_keyring.lookup(key);
        m_keyringLooked[key] = found.ok && found.password.has_value();
        if (!found.ok) {
            emit message(Keyring::unavailableMessage(found.error), false);
        } else if (found.password) {
            emit message(tr("Password for %1 from the system keyring").arg(key), false);
            m_passwords[profile.name] = *found.password;
            return *found.password;
        }
    }
    if (engineHasOwnPassword(profile) || !m_passwordPrompt)
        return {};
    const std::optional<PasswordAnswer> answer = m_passwordPrompt(profile);
    if (!answer)
        return {};
    rememberPassword(profile, answer->password, answer->remember);
    return answer->password;
}

void ConnectionController::noteConnectFailure(const QString& error) {
    // Firebird: "Your user name and password are not defined"; PostgreSQL: "password
    // authentication failed", "no password supplied".
    static const QRegularExpression refused(QStringLiteral("user name and password|password authentication|"
                                                           "no password supplied|authentication failed"),
                                            QRegularExpression::CaseInsensitiveOption);
    const ConnectionProfile* profile = m_document->project().current();
    // Only the password that connect was given: one typed in since then has not been tried yet.
    if (profile == nullptr || !error.contains(refused) || !m_passwords.contains(profile->name) ||
        m_passwords.value(profile->name) != m_lastGiven.value(profile->name))
        return;
    m_passwords.remove(profile->name);
    emit message(tr("The server refused the password for %1: it is asked again at the next connect").arg(profile->name),
                 false);
}

void ConnectionController::rememberPassword(const ConnectionProfile& profile, const QString& password, bool remember) {
    m_passwords[profile.name] = password;
    if (!remember || password.isEmpty())
        return;
    const QString key = Keyring::keyFor(profile);
    const Keyring::Result stored = m_keyring.store(key, password);
    if (stored.ok) {
        m_keyringLooked[key] = true;
        emit message(tr("Password for %1 remembered in the system keyring").arg(key), false);
    } else {
        m_keyringNotice = Keyring::unavailableMessage(stored.error);
        emit failed(m_keyringNotice);
    }
}

void ConnectionController::showSession(const SessionInfo& info, const QString& detail) {
    const QString summary = sessionSummary(info);
    // A long session summary is elided (the whole text is in the tooltip) rather than pushing Run
    // and Stop into the toolbar's overflow menu.
    m_serverLabel->setText(m_serverLabel->fontMetrics().elidedText(summary, Qt::ElideRight, 440));
    m_serverLabel->setToolTip(detail.isEmpty() ? summary : summary + QLatin1Char('\n') + detail);
    emit message(summary + (detail.isEmpty() ? QString() : QStringLiteral("; ") + detail), false);
    emit effectsReported(info.effects);
    for (const ParameterEffect& e : info.effects) {
        if (!e.inEffect) {
            emit message(tr("%1 = %2: %3").arg(qs(e.id), qs(e.requested), readableEffectReason(qs(e.reason))), false);
        }
    }
    if (const ConnectionProfile* profile = m_document->project().current()) {
        rememberRecent(*profile);
    }
}

void ConnectionController::rememberRecent(const ConnectionProfile& profile) {
    QSettings settings;
    QVariantList recent = settings.value(QStringLiteral("recentConnections")).toList();
    QVariantMap entry;
    entry[QStringLiteral("name")] = profile.name;
    entry[QStringLiteral("engine")] = profile.engine;
    entry[QStringLiteral("target")] = profile.target;
    entry[QStringLiteral("user")] = profile.user;
    entry[QStringLiteral("role")] = profile.role;
    entry[QStringLiteral("charset")] = profile.charset;
    entry[QStringLiteral("clientLibrary")] = profile.clientLibrary;
    recent.erase(std::remove_if(recent.begin(), recent.end(),
                                [&](const QVariant& v) {
                                    const QVariantMap m = v.toMap();
                                    return m.value(QStringLiteral("engine")) == profile.engine &&
                                           m.value(QStringLiteral("target")) == profile.target;
                                }),
                 recent.end());
    recent.prepend(entry);
    while (recent.size() > kMaxRecent)
        recent.removeLast();
    settings.setValue(QStringLiteral("recentConnections"), recent);
    refreshRecentMenu();
}

void ConnectionController::refreshRecentMenu() {
    m_recentMenu->clear();
    const QVariantList recent = QSettings().value(QStringLiteral("recentConnections")).toList();
    if (recent.isEmpty()) {
        m_recentMenu->addAction(tr("(none yet)"))->setEnabled(false);
    }
    for (const QVariant& v : recent) {
        const QVariantMap m = v.toMap();
        ConnectionProfile p;
        p.name = m.value(QStringLiteral("name")).toString();
        p.engine = m.value(QStringLiteral("engine")).toString();
        p.target = m.value(QStringLiteral("target")).toString();
        p.user = m.value(QStringLiteral("user")).toString();
        p.role = m.value(QStringLiteral("role")).toString();
        p.charset = m.value(QStringLiteral("charset")).toString();
        p.clientLibrary = m.value(QStringLiteral("clientLibrary")).toString();
        m_recentMenu->addAction(p.name + QStringLiteral(" — ") + connectionText(p.toSpec().label()), this, [this, p] {
            const auto& list = m_document->project().connections;
            for (std::size_t i = 0; i < list.size(); ++i) {
                if (list[i].engine == p.engine && list[i].target == p.target) {
                    m_document->setCurrentConnection(static_cast<int>(i));
                    return;
                }
            }
            m_document->setCurrentConnection(m_document->addConnection(p));
        });
    }
}

}  // namespace blobbench
