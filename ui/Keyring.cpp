#include "ui/Keyring.h"

#include <qt6keychain/keychain.h>
#include <QEventLoop>
#include <QTimer>

namespace blobbench {
namespace {

// Runs a QtKeychain job to its end. The job is not auto-deleted: its result is read after
// finished(); a job still running at the timeout is left to delete itself when it finishes.
template <typename Job>
Keyring::Result runJob(Job* job, const std::function<void(Job*, Keyring::Result&)>& onSuccess) {
    job->setAutoDelete(false);
    job->setInsecureFallback(false);  // never a plain-text file
    QEventLoop loop;
    bool done = false;
    QObject::connect(job, &QKeychain::Job::finished, &loop, [&] {
        done = true;
        loop.quit();
    });
    QTimer::singleShot(Keyring::kTimeoutMs, &loop, &QEventLoop::quit);
    job->start();
    if (!done)
        loop.exec(QEventLoop::ExcludeUserInputEvents);
    Keyring::Result result;
    if (!done) {
        QObject::connect(job, &QKeychain::Job::finished, job, &QObject::deleteLater);
        result.error = QStringLiteral("the keyring did not answer within %1 s").arg(Keyring::kTimeoutMs / 1000);
        return result;
    }
    const QKeychain::Error error = job->error();
    if (error == QKeychain::NoError || error == QKeychain::EntryNotFound) {
        result.ok = true;
        if (error == QKeychain::NoError)
            onSuccess(job, result);
    } else {
        QString why = job->errorString().simplified();
        if (why.isEmpty())
            why = QStringLiteral("error %1").arg(static_cast<int>(error));
        result.error = why;
    }
    delete job;
    return result;
}

}  // namespace

Keyring::Keyring(QString service) : m_service(std::move(service)) {}

QString Keyring::keyFor(const ConnectionProfile& profile) {
    return profile.engine + QLatin1Char(':') + profile.user + QLatin1Char('@') + profile.target;
}

Keyring::Result Keyring::lookup(const QString& key) const {
    auto* job = new QKeychain::ReadPasswordJob(m_service);
    job->setKey(key);
    return runJob<QKeychain::ReadPasswordJob>(
        job, [](QKeychain::ReadPasswordJob* j, Result& r) { r.password = j->textData(); });
}

Keyring::Result Keyring::store(const QString& key, const QString& password) const {
    auto* job = new QKeychain::WritePasswordJob(m_service);
    job->setKey(key);
    job->setTextData(password);
    return runJob<QKeychain::WritePasswordJob>(job, [](QKeychain::WritePasswordJob*, Result&) {});
}

Keyring::Result Keyring::remove(const QString& key) const {
    auto* job = new QKeychain::DeletePasswordJob(m_service);
    job->setKey(key);
    return runJob<QKeychain::DeletePasswordJob>(job, [](QKeychain::DeletePasswordJob*, Result&) {});
}

QString Keyring::unavailableMessage(const QString& reason) {
    return QObject::tr("keyring not available: %1; the password is kept for this session only").arg(reason);
}

}  // namespace blobbench
