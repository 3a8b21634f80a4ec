// Test helpers that call the Firebird client this test binary links directly (the system 3.0
// client), for what the driver has no reason to offer. Header-only: only tests that link fbclient
// include it.
#pragma once

#include <firebird/Interface.h>

#include <string>

namespace blobbench::test {

// Drops a database a test created (errors ignored: a missing database is already gone). The 3.0
// client may also drop a database of a 5.0 server.
inline void dropFirebirdDatabase(const std::string& target, const std::string& user, const std::string& password) {
    Firebird::IMaster* master = Firebird::fb_get_master_interface();
    Firebird::CheckStatusWrapper status(master->getStatus());
    Firebird::IXpbBuilder* dpb =
        master->getUtilInterface()->getXpbBuilder(&status, Firebird::IXpbBuilder::DPB, nullptr, 0);
    dpb->insertString(&status, isc_dpb_user_name, user.c_str());
    dpb->insertString(&status, isc_dpb_password, password.c_str());
    Firebird::IProvider* provider = master->getDispatcher();
    Firebird::IAttachment* att =
        provider->attachDatabase(&status, target.c_str(), dpb->getBufferLength(&status), dpb->getBuffer(&status));
    if (att && !status.hasData()) {
        att->dropDatabase(&status);
    }
    provider->release();
    dpb->dispose();
    status.dispose();
}

}  // namespace blobbench::test
