// Proves that the servers scripts/test starts are up and reachable with their own C clients,
// independently of our drivers.
#include <firebird/Interface.h>
#include <gtest/gtest.h>
#include <libpq-fe.h>

#include <string>

#include "support/TestSupport.h"

TEST(ServerSmoke, PostgresAnswersWithLibpq) {
    BLOBBENCH_REQUIRE_ENV(conninfo, "BLOBBENCH_PG_CONNINFO");
    PGconn* conn = PQconnectdb(conninfo.c_str());
    ASSERT_EQ(PQstatus(conn), CONNECTION_OK) << PQerrorMessage(conn);
    PGresult* result = PQexec(conn, "SELECT current_setting('server_version_num')::int");
    ASSERT_EQ(PQresultStatus(result), PGRES_TUPLES_OK) << PQerrorMessage(conn);
    EXPECT_GE(std::stoi(PQgetvalue(result, 0, 0)), 150000);
    PQclear(result);
    PQfinish(conn);
}

TEST(ServerSmoke, FirebirdAnswersWithFbclient) {
    BLOBBENCH_REQUIRE_ENV(database, "BLOBBENCH_FB_DATABASE");
    BLOBBENCH_REQUIRE_ENV(user, "BLOBBENCH_FB_USER");
    BLOBBENCH_REQUIRE_ENV(password, "BLOBBENCH_FB_PASSWORD");
    Firebird::IMaster* master = Firebird::fb_get_master_interface();
    Firebird::ThrowStatusWrapper status(master->getStatus());
    Firebird::IXpbBuilder* dpb = nullptr;
    Firebird::IAttachment* attachment = nullptr;
    std::string version;
    try {
        dpb = master->getUtilInterface()->getXpbBuilder(&status, Firebird::IXpbBuilder::DPB, nullptr, 0);
        dpb->insertString(&status, isc_dpb_user_name, user.c_str());
        dpb->insertString(&status, isc_dpb_password, password.c_str());
        Firebird::IProvider* provider = master->getDispatcher();
        attachment =
            provider->attachDatabase(&status, database.c_str(), dpb->getBufferLength(&status), dpb->getBuffer(&status));
        provider->release();
        const unsigned char items[] = {isc_info_firebird_version, isc_info_end};
        unsigned char buffer[512] = {};
        attachment->getInfo(&status, sizeof items, items, sizeof buffer, buffer);
        if (buffer[0] == isc_info_firebird_version) {
            // item, 2-byte length, count, then counted strings
            const unsigned len = buffer[4];
            version.assign(reinterpret_cast<const char*>(buffer + 5), len);
        }
        attachment->detach(&status);
        attachment = nullptr;
    } catch (const Firebird::FbException& e) {
        char text[512];
        master->getUtilInterface()->formatStatus(text, sizeof text, e.getStatus());
        ADD_FAILURE() << "Firebird: " << text;
    }
    if (attachment) {
        attachment->release();
    }
    if (dpb) {
        dpb->dispose();
    }
    status.dispose();
    EXPECT_NE(version.find("V3.0"), std::string::npos) << version;
}
