// "Remember password in the system keyring" against a real Secret Service: a private D-Bus session
// bus and gnome-keyring-daemon, unlocked with a test password, in a temporary home. Store, look up,
// replace and delete through ui/Keyring (QtKeychain), and check the secret is in neither the
// settings nor the keyring's own files in clear text. The unavailable path (no bus) is tested in
// test_workbench (KeyringUnavailable...).
#include <gtest/gtest.h>

#include <QDir>
#include <QDirIterator>
#include <QProcess>
#include <QSettings>
#include <QStandardPaths>
#include <QTemporaryDir>

#include "support/TestSupport.h"
#include "ui/Keyring.h"

using namespace blobbench;

namespace {

// The bus and the keyring of this test alone; both stop with it.
class SecretService {
public:
    bool start(QString* why) {
        const QString dbus = QStandardPaths::findExecutable(QStringLiteral("dbus-daemon"));
        const QString keyring = QStandardPaths::findExecutable(QStringLiteral("gnome-keyring-daemon"));
        if (dbus.isEmpty() || keyring.isEmpty()) {
            *why = QStringLiteral("dbus-daemon or gnome-keyring-daemon not installed (apt-get install gnome-keyring)");
            return false;
        }
        // A short path: the bus's socket name must fit in sockaddr_un.
        if (!m_dir.isValid()) {
            *why = QStringLiteral("no temporary directory");
            return false;
        }
        const QString home = m_dir.path();
        QDir(home).mkpath(QStringLiteral("run"));
        QFile::setPermissions(home + QStringLiteral("/run"), QFile::ReadOwner | QFile::WriteOwner | QFile::ExeOwner);
        qputenv("HOME", home.toLocal8Bit());
        qputenv("XDG_DATA_HOME", (home + QStringLiteral("/data")).toLocal8Bit());
        qputenv("XDG_RUNTIME_DIR", (home + QStringLiteral("/run")).toLocal8Bit());
        qunsetenv("DISPLAY");
        m_bus.setProgram(dbus);
        m_bus.setArguments({QStringLiteral("--session"), QStringLiteral("--nofork"),
                            QStringLiteral("--print-address=1"),
                            QStringLiteral("--address=unix:path=") + home + QStringLiteral("/run/bus")});
        m_bus.setProcessChannelMode(QProcess::SeparateChannels);
        m_bus.start();
        if (!m_bus.waitForStarted(5000) || !m_bus.waitForReadyRead(5000)) {
            *why = QStringLiteral("dbus-daemon did not start: ") + QString::fromLocal8Bit(m_bus.readAllStandardError());
            return false;
        }
        const QByteArray address = m_bus.readLine().trimmed();
        qputenv("DBUS_SESSION_BUS_ADDRESS", address);
        // Unlocks (creating) the login keyring with the test password given on stdin; the daemon
        // forks into the background and serves org.freedesktop.secrets on our bus.
        QProcess unlock;
        unlock.start(keyring, {QStringLiteral("--unlock"), QStringLiteral("--components=secrets"),
                               QStringLiteral("--daemonize")});
        unlock.write("blobbench-test-keyring");
        unlock.closeWriteChannel();
        if (!unlock.waitForFinished(10000) || unlock.exitCode() != 0) {
            *why = QStringLiteral("gnome-keyring-daemon --unlock failed: ") +
                   QString::fromLocal8Bit(unlock.readAllStandardError());
            return false;
        }
        return true;
    }
    ~SecretService() {
        // The keyring daemon leaves when its bus goes away.
        if (m_bus.state() != QProcess::NotRunning) {
            m_bus.terminate();
            m_bus.waitForFinished(5000);
        }
    }
    QString home() const { return m_dir.path(); }

private:
    QTemporaryDir m_dir{QStringLiteral("/tmp/bbkr-XXXXXX")};
    QProcess m_bus;
};

}  // namespace

TEST(Keyring, StoreLookupReplaceAndDeleteAgainstARealSecretService) {
    SecretService service;
    QString why;
    if (!service.start(&why)) {
        if (test::ciMode())
            FAIL() << why.toStdString();
        GTEST_SKIP() << why.toStdString();
    }
    ConnectionProfile profile;
    profile.engine = QStringLiteral("postgres");
    profile.user = QStringLiteral("alice");
    profile.target = QStringLiteral("postgresql://db.example/blobs");
    const QString key = Keyring::keyFor(profile);
    EXPECT_EQ(key, QStringLiteral("postgres:alice@postgresql://db.example/blobs"));
    const QString secret = QStringLiteral("s3cret-Pässword-4711");

    const Keyring keyring;
    Keyring::Result r = keyring.lookup(key);
    ASSERT_TRUE(r.ok) << r.error.toStdString();
    EXPECT_FALSE(r.password.has_value());  // nothing yet

    r = keyring.store(key, secret);
    ASSERT_TRUE(r.ok) << r.error.toStdString();
    r = keyring.lookup(key);
    ASSERT_TRUE(r.ok) << r.error.toStdString();
    ASSERT_TRUE(r.password.has_value());
    EXPECT_EQ(*r.password, secret);
    // Another user on the same target is another entry.
    profile.user = QStringLiteral("bob");
    r = keyring.lookup(Keyring::keyFor(profile));
    ASSERT_TRUE(r.ok);
    EXPECT_FALSE(r.password.has_value());

    // Replaced, then deleted; deleting what is gone is no error.
    ASSERT_TRUE(keyring.store(key, QStringLiteral("rotated-Secret-0815")).ok);
    EXPECT_EQ(keyring.lookup(key).password.value_or(QString()), QStringLiteral("rotated-Secret-0815"));
    r = keyring.remove(key);
    ASSERT_TRUE(r.ok) << r.error.toStdString();
    r = keyring.lookup(key);
    ASSERT_TRUE(r.ok);
    EXPECT_FALSE(r.password.has_value());
    r = keyring.remove(key);
    EXPECT_TRUE(r.ok) << r.error.toStdString();

    // Never in clear text on disk: not in the settings, nor anywhere under the test home.
    QSettings().sync();
    QDirIterator files(service.home(), QDir::Files | QDir::Hidden, QDirIterator::Subdirectories);
    while (files.hasNext()) {
        QFile file(files.next());
        if (file.open(QIODevice::ReadOnly)) {
            const QByteArray content = file.readAll();
            EXPECT_FALSE(content.contains(secret.toUtf8())) << file.fileName().toStdString();
            EXPECT_FALSE(content.contains("rotated-Secret-0815")) << file.fileName().toStdString();
        }
    }
}
