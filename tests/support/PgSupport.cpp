#include "support/PgSupport.h"

#include <gtest/gtest.h>

#include "support/TestSupport.h"

namespace blobbench::test {

std::string PgTarget::through(std::uint16_t viaPort) const {
    return "host=127.0.0.1 port=" + std::to_string(viaPort) + " dbname=" + dbname + " user=" + user;
}

PgTarget pgTarget(const std::string& conninfo) {
    PgTarget t;
    char* error = nullptr;
    PQconninfoOption* options = PQconninfoParse(conninfo.c_str(), &error);
    EXPECT_NE(options, nullptr) << "BLOBBENCH_PG_CONNINFO does not parse: " << (error ? error : "");
    PQfreemem(error);
    for (const PQconninfoOption* o = options; o && o->keyword; ++o) {
        if (!o->val || !*o->val) {
            continue;
        }
        const std::string key = o->keyword;
        std::string* field = key == "host"       ? &t.host
                             : key == "port"     ? &t.port
                             : key == "dbname"   ? &t.dbname
                             : key == "user"     ? &t.user
                             : key == "password" ? &t.password
                                                 : nullptr;
        if (field) {
            *field = o->val;
        }
    }
    PQconninfoFree(options);
    return t;
}

PgOwnDatabase createOwnPgDatabase(const std::string& conninfo, const std::string& name) {
    const PgTarget pg = pgTarget(conninfo);
    PgConn admin(conninfo);
    EXPECT_TRUE(admin.ok()) << admin.errorMessage();
    admin.value("DROP DATABASE IF EXISTS " + name + " WITH (FORCE)");
    admin.value("CREATE DATABASE " + name);
    return {
        name,
        "host=" + pg.host + " port=" + pg.port + " dbname=" + name + " user=" + pg.user + " password=" + pg.password,
        "postgresql://" + pg.user + "@" + pg.host + ":" + pg.port + "/" + name};
}

void ensurePgData(const std::string& conninfo) {
    static bool ready = false;
    if (ready) {
        return;
    }
    if (runCli({"run", conninfo, "-s", "warm-up", "-q"}).exitCode != 0) {
        const ProcessResult prepared = runCli({"prepare", conninfo, "--rows", "300", "-q"});
        ASSERT_EQ(prepared.exitCode, 0) << prepared.err;
    }
    ready = true;
}

PgConn::PgConn(const std::string& conninfo) : m_conn(PQconnectdb(conninfo.c_str())) {}

PgConn::~PgConn() {
    PQfinish(m_conn);
}

bool PgConn::ok() const {
    return PQstatus(m_conn) == CONNECTION_OK;
}

std::string PgConn::errorMessage() const {
    return PQerrorMessage(m_conn);
}

std::string PgConn::value(const std::string& sql) {
    PGresult* r = PQexec(m_conn, sql.c_str());
    const auto status = PQresultStatus(r);
    EXPECT_TRUE(status == PGRES_TUPLES_OK || status == PGRES_COMMAND_OK) << sql << ": " << PQerrorMessage(m_conn);
    std::string out = status == PGRES_TUPLES_OK && PQntuples(r) > 0 ? PQgetvalue(r, 0, 0) : "";
    PQclear(r);
    return out;
}

}  // namespace blobbench::test
