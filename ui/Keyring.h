#pragma once

#include <QString>
#include <optional>

#include "model/Project.h"

namespace blobbench {

// Passwords remembered in the system keyring (Secret Service, KWallet, macOS Keychain, Windows
// Credential Store) through QtKeychain: service "blobbench", key "<engine>:<user>@<target>".
// Never in the project, QSettings or logs: QtKeychain's insecure fallback (a plain-text QSettings
// file) stays off. Each call waits for its job (a few ms over D-Bus; at most kTimeoutMs).
class Keyring {
public:
    static constexpr const char* kService = "blobbench";
    static constexpr int kTimeoutMs = 10000;

    struct Result {
        bool ok = false;                  // the keyring answered (a lookup that found nothing is ok)
        std::optional<QString> password;  // lookups only: the entry, when there is one
        QString error;                    // !ok: why, one line ("no keyring service: ...")
    };

    explicit Keyring(QString service = QString::fromLatin1(kService));

    // "postgres:alice@postgresql://db/blobs"
    static QString keyFor(const ConnectionProfile& profile);

    Result lookup(const QString& key) const;
    Result store(const QString& key, const QString& password) const;
    Result remove(const QString& key) const;  // an absent entry is not an error

    // The one-line message for the user when the keyring cannot be used.
    static QString unavailableMessage(const QString& reason);

private:
    QString m_service;
};

}  // namespace blobbench
