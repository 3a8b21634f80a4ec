#pragma once

#include <libpq-fe.h>

#include <cstdint>
#include <string>
#include <vector>

// PostgreSQL helpers for the tests that need the real server (BLOBBENCH_PG_CONNINFO): where it
// listens, so that a wire tap can stand in front of it, and a connection of the test's own for
// setup and server-side actions, outside BlobBench's driver.
namespace blobbench::test {

// The parts of a conninfo string ("host=... port=..." or a URI) a test re-assembles.
struct PgTarget {
    std::string host = "127.0.0.1";
    std::string port = "5432";
    std::string dbname, user, password;

    std::uint16_t portNumber() const { return static_cast<std::uint16_t>(std::stoi(port)); }
    // The same database reached through a local relay on `viaPort` (the password left out).
    std::string through(std::uint16_t viaPort) const;
    // The environment that gives the password to a CLI run of through().
    std::vector<std::string> env() const { return {"PGPASSWORD=" + password}; }
};

PgTarget pgTarget(const std::string& conninfo);

// A database of the test's own on the server of `conninfo`, dropped and created afresh (the shared
// blob_test is left alone): its name, a libpq conninfo with the password for the test's own
// connections, and a URI without it for BlobBench.
struct PgOwnDatabase {
    std::string name, conninfo, target;
};
PgOwnDatabase createOwnPgDatabase(const std::string& conninfo, const std::string& name);

// The reference data set in the shared database when it is there, a small one (300 rows) made by
// blobbench-cli prepare otherwise; checked once per process.
void ensurePgData(const std::string& conninfo);

class PgConn {
public:
    explicit PgConn(const std::string& conninfo);
    ~PgConn();
    PgConn(const PgConn&) = delete;
    PgConn& operator=(const PgConn&) = delete;

    bool ok() const;
    std::string errorMessage() const;
    // Runs `sql`; returns the first column of the first row, "" for none. A statement that fails
    // is a test failure (EXPECT), named with the server's message.
    std::string value(const std::string& sql);

private:
    PGconn* m_conn;
};

}  // namespace blobbench::test
