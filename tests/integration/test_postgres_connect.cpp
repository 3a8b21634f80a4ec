// Connecting to the real PostgreSQL 15: versions and settings read back, and one clear line for each way
// a connection fails, never with the password in it.

#include "test_postgres_support.h"

namespace blobbench {
namespace {

using pgtest::CollectingSink;
using pgtest::connect;
using pgtest::driver;
using pgtest::errorOf;
using pgtest::findEffect;

// The server's URI with one part replaced (the test server is postgres:postgres@127.0.0.1:5432/blob_test).
std::string withPassword(const std::string& uri, const std::string& password) {
    const auto scheme = uri.find("://") + 3;
    const auto at = uri.find('@', scheme);
    const auto colon = uri.find(':', scheme);
    const std::string user = uri.substr(scheme, (colon < at ? colon : at) - scheme);
    return uri.substr(0, scheme) + user + ":" + password + uri.substr(at);
}

std::string withPort(const std::string& uri, const std::string& port) {
    const auto at = uri.find('@');
    const auto colon = uri.find(':', at);
    const auto slash = uri.find('/', at);
    return uri.substr(0, colon + 1) + port + uri.substr(slash);
}

std::string withDatabase(const std::string& uri, const std::string& database) {
    const auto at = uri.find('@');
    const auto slash = uri.find('/', at);
    const auto query = uri.find('?', slash);
    return uri.substr(0, slash + 1) + database + (query == std::string::npos ? "" : uri.substr(query));
}

void expectOneLineWithout(const Error& error, const std::string& secret) {
    const std::string message = error.what();
    EXPECT_EQ(message.find('\n'), std::string::npos) << message;
    EXPECT_EQ(message.find(secret), std::string::npos) << message;
}

TEST(PostgresConnect, ReportsVersionsProtocolAndSettings) {
    BLOBBENCH_REQUIRE_ENV(conninfo, "BLOBBENCH_PG_CONNINFO");
    auto session = connect(conninfo);
    const SessionInfo& info = session->info();
    EXPECT_EQ(info.engine, "postgres");
    EXPECT_EQ(info.serverVersion.rfind("15.", 0), 0U) << info.serverVersion;
    EXPECT_EQ(info.clientVersion.rfind("15.", 0), 0U) << info.clientVersion;
    EXPECT_EQ(info.negotiated.at("protocol"), "3");
    EXPECT_TRUE(info.negotiated.count("ssl"));
    ASSERT_FALSE(info.versionBanner.empty());
    EXPECT_NE(info.versionBanner.front().find("PostgreSQL 15"), std::string::npos);
    const auto* bytea = findEffect(info.effects, "bytea_output");
    ASSERT_NE(bytea, nullptr);
    EXPECT_EQ(bytea->actual, "hex");
    EXPECT_EQ(session->dialect(), Dialect::PostgreSQL);
}

TEST(PostgresConnect, ReadsBackWhatIsInEffect) {
    BLOBBENCH_REQUIRE_ENV(conninfo, "BLOBBENCH_PG_CONNINFO");
    auto session = connect(conninfo, {{"bytea_output", "escape"},
                                      {"standard_conforming_strings", "off"},
                                      {"statement_timeout", "1234"},
                                      {"default_toast_compression", "lz4"}});
    const auto& effects = session->info().effects;
    EXPECT_EQ(findEffect(effects, "bytea_output")->actual, "escape");
    EXPECT_EQ(findEffect(effects, "standard_conforming_strings")->actual, "false");
    EXPECT_EQ(findEffect(effects, "statement_timeout")->actual, "1234ms");
    EXPECT_EQ(findEffect(effects, "default_toast_compression")->actual, "lz4");
}

TEST(PostgresConnect, SslModeReadBack) {
    BLOBBENCH_REQUIRE_ENV(conninfo, "BLOBBENCH_PG_CONNINFO");
    auto plain = connect(conninfo, {{"sslmode", "disable"}});
    EXPECT_EQ(plain->info().negotiated.at("ssl"), "off");
    EXPECT_EQ(findEffect(plain->info().effects, "sslmode")->actual, "disable, no ssl");

    // Debian's cluster has ssl = on with the snakeoil certificate; whichever it is, say so exactly.
    auto probe = connect(conninfo);
    CollectingSink sink;
    probe->query(pgtest::querySpec("SHOW ssl"), sink, CancelToken());
    const bool serverSsl = sink.rows.at(0).values.at(0) == std::optional<std::string>("on");
    if (serverSsl) {
        auto encrypted = connect(conninfo, {{"sslmode", "require"}});
        EXPECT_EQ(encrypted->info().negotiated.at("ssl"), "on");
        EXPECT_TRUE(encrypted->info().negotiated.count("ssl_protocol"));
    } else {
        auto error = errorOf([&] { connect(conninfo, {{"sslmode", "require"}}); });
        ASSERT_TRUE(error);
        EXPECT_EQ(error->kind(), ErrorKind::Connect);
        EXPECT_NE(std::string(error->what()).find("SSL"), std::string::npos) << error->what();
    }
}

TEST(PostgresConnect, WrongPasswordInTheUri) {
    BLOBBENCH_REQUIRE_ENV(conninfo, "BLOBBENCH_PG_CONNINFO");
    const std::string secret = "Wr0ngSecretXyz";
    auto error = errorOf([&] { connect(withPassword(conninfo, secret)); });
    ASSERT_TRUE(error);
    EXPECT_EQ(error->kind(), ErrorKind::Connect);
    EXPECT_NE(std::string(error->what()).find("password authentication failed"), std::string::npos) << error->what();
    expectOneLineWithout(*error, secret);
}

TEST(PostgresConnect, WrongPasswordInTheSpecOverridesTheUri) {
    BLOBBENCH_REQUIRE_ENV(conninfo, "BLOBBENCH_PG_CONNINFO");
    const std::string secret = "An0therWrongOne";
    ConnectionSpec spec = pgtest::specFor(conninfo);
    spec.password = secret;
    auto error = errorOf([&] { driver().connect(spec, resolveParameters(driver().parameters(), {})); });
    ASSERT_TRUE(error);
    EXPECT_EQ(error->kind(), ErrorKind::Connect);
    EXPECT_NE(std::string(error->what()).find("password authentication failed"), std::string::npos) << error->what();
    expectOneLineWithout(*error, secret);
    expectOneLineWithout(*error, "postgres:postgres@");  // the URI's own password is masked in the label
}

TEST(PostgresConnect, RefusedPort) {
    BLOBBENCH_REQUIRE_ENV(conninfo, "BLOBBENCH_PG_CONNINFO");
    auto error = errorOf([&] { connect(withPort(conninfo, "1")); });
    ASSERT_TRUE(error);
    EXPECT_EQ(error->kind(), ErrorKind::Connect);
    EXPECT_NE(std::string(error->what()).find("refused"), std::string::npos) << error->what();
    expectOneLineWithout(*error, ":postgres@");
}

TEST(PostgresConnect, MissingDatabase) {
    BLOBBENCH_REQUIRE_ENV(conninfo, "BLOBBENCH_PG_CONNINFO");
    auto error = errorOf([&] { connect(withDatabase(conninfo, "blobbench_no_such_db")); });
    ASSERT_TRUE(error);
    EXPECT_EQ(error->kind(), ErrorKind::Connect);
    EXPECT_NE(std::string(error->what()).find("\"blobbench_no_such_db\" does not exist"), std::string::npos)
        << error->what();
    expectOneLineWithout(*error, ":postgres@");
}

TEST(PostgresConnect, UnknownHost) {
    BLOBBENCH_REQUIRE_ENV(conninfo, "BLOBBENCH_PG_CONNINFO");
    // .invalid never resolves (RFC 2606): fails in the resolver without leaving the machine.
    auto error = errorOf([&] { connect("host=blobbench.invalid dbname=x user=x password=Sup3rSecret"); });
    ASSERT_TRUE(error);
    EXPECT_EQ(error->kind(), ErrorKind::Connect);
    EXPECT_NE(std::string(error->what()).find("blobbench.invalid"), std::string::npos) << error->what();
    expectOneLineWithout(*error, "Sup3rSecret");
}

TEST(PostgresConnect, InvalidTunableIsAUsageError) {
    auto error = errorOf([&] { resolveParameters(driver().parameters(), {{"bytea_output", "base64"}}); });
    ASSERT_TRUE(error);
    EXPECT_EQ(error->kind(), ErrorKind::Usage);
    EXPECT_NE(std::string(error->what()).find("bytea_output"), std::string::npos);
}

TEST(PostgresConnect, KeywordConninfoAndEnvironmentReachTheServer) {
    BLOBBENCH_REQUIRE_ENV(conninfo, "BLOBBENCH_PG_CONNINFO");
    auto endpoint = driver().endpoint(pgtest::specFor(conninfo));
    ASSERT_TRUE(endpoint);
    // key=value form built from the URI's parts, password given through the spec as the GUI would.
    const std::string keywords =
        "host=" + endpoint->host + " port=" + std::to_string(endpoint->port) + " dbname=blob_test user=postgres";
    ConnectionSpec spec = pgtest::specFor(keywords);
    spec.password = "postgres";
    auto session = driver().connect(spec, resolveParameters(driver().parameters(), {}));
    EXPECT_TRUE(session->tableExists("pg_class"));
    EXPECT_FALSE(session->tableExists("blobbench_surely_missing"));
}

TEST(PostgresDriverUnit, AcceptsUrisAndConninfoOnly) {
    EXPECT_TRUE(driver().accepts("postgresql://u@h/db"));
    EXPECT_TRUE(driver().accepts("postgres://h"));
    EXPECT_TRUE(driver().accepts("host=localhost dbname=x"));
    EXPECT_TRUE(driver().accepts("service=blob"));
    EXPECT_FALSE(driver().accepts("sqlite:/tmp/a.db"));
    EXPECT_FALSE(driver().accepts("/tmp/a=b.db"));
    EXPECT_FALSE(driver().accepts("inet://localhost/db.fdb"));
    EXPECT_FALSE(driver().accepts("nosuchkeyword=1"));
}

TEST(PostgresDriverUnit, EndpointFollowsLibpq) {
    EXPECT_EQ(driver().endpoint(pgtest::specFor("postgresql://u@db.example:6543/x"))->host, "db.example");
    EXPECT_EQ(driver().endpoint(pgtest::specFor("postgresql://u@db.example:6543/x"))->port, 6543);
    EXPECT_FALSE(driver().endpoint(pgtest::specFor("host=/var/run/postgresql dbname=x")));
    EXPECT_EQ(driver().endpoint(pgtest::specFor("hostaddr=10.1.2.3 host=db port=7"))->host, "10.1.2.3");

    const char* oldHost = std::getenv("PGHOST");
    const char* oldPort = std::getenv("PGPORT");
    const std::string savedHost = oldHost ? oldHost : "";
    const std::string savedPort = oldPort ? oldPort : "";
    setenv("PGHOST", "envhost", 1);
    setenv("PGPORT", "6000", 1);
    auto fromEnv = driver().endpoint(pgtest::specFor("dbname=x"));
    unsetenv("PGHOST");
    unsetenv("PGPORT");
    auto defaults = driver().endpoint(pgtest::specFor("dbname=x"));
    if (oldHost) {
        setenv("PGHOST", savedHost.c_str(), 1);
    }
    if (oldPort) {
        setenv("PGPORT", savedPort.c_str(), 1);
    }
    EXPECT_EQ(fromEnv->host, "envhost");
    EXPECT_EQ(fromEnv->port, 6000);
    EXPECT_EQ(defaults->host, "localhost");
    EXPECT_EQ(defaults->port, 5432);
}

TEST(PostgresConnect, RedirectedConnectionStillReachesTheServer) {
    BLOBBENCH_REQUIRE_ENV(conninfo, "BLOBBENCH_PG_CONNINFO");
    const ConnectionSpec original = pgtest::specFor(conninfo);
    const auto endpoint = driver().endpoint(original);
    ASSERT_TRUE(endpoint);
    // Redirect to where the server already is: the rewritten conninfo must keep user, password, database.
    const ConnectionSpec moved = driver().redirected(original, Endpoint{"127.0.0.1", endpoint->port});
    EXPECT_NE(moved.target.find("hostaddr='127.0.0.1'"), std::string::npos) << moved.label();
    auto session = driver().connect(moved, resolveParameters(driver().parameters(), {}));
    EXPECT_EQ(session->info().negotiated.at("port"), std::to_string(endpoint->port));

    const ConnectionSpec named =
        driver().redirected(pgtest::specFor("host=db.example port=5 dbname=x"), Endpoint{"127.0.0.1", 40000});
    EXPECT_NE(named.target.find("host='db.example'"), std::string::npos) << named.target;
    EXPECT_NE(named.target.find("port='40000'"), std::string::npos) << named.target;
    EXPECT_EQ(driver().endpoint(named)->host, "127.0.0.1");
    EXPECT_EQ(driver().endpoint(named)->port, 40000);
}

}  // namespace
}  // namespace blobbench
