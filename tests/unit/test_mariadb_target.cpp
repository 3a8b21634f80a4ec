// Parsing MariaDB connection strings (engine/drivers/mariadb/MariadbConnectionString.h): every
// part, %-decoding, the way back, and one line naming what is wrong, never the password.
#include <gtest/gtest.h>

#include "engine/core/Error.h"
#include "engine/drivers/Registry.h"
#include "engine/drivers/mariadb/MariadbConnectionString.h"

namespace blobbench::mariadb {
namespace {

TEST(MariadbTarget, SplitsEveryPart) {
    const auto t = parseMariadbTarget("mariadb://me:p%40ss@db.example:3307/blob_test?connect_timeout=5");
    EXPECT_EQ(t.scheme, "mariadb");
    EXPECT_EQ(t.user, "me");
    EXPECT_EQ(t.password, "p@ss");
    EXPECT_TRUE(t.hasPassword);
    EXPECT_EQ(t.host, "db.example");
    EXPECT_EQ(t.port, 3307);
    EXPECT_EQ(t.database, "blob_test");
    EXPECT_EQ(t.options.at("connect_timeout"), "5");
    EXPECT_FALSE(t.usesSocket());
}

TEST(MariadbTarget, DefaultsAndOtherForms) {
    const auto t = parseMariadbTarget("MySQL://root@[::1]/x");
    EXPECT_EQ(t.scheme, "mysql");
    EXPECT_EQ(t.user, "root");
    EXPECT_FALSE(t.hasPassword);
    EXPECT_EQ(t.host, "::1");
    EXPECT_EQ(t.tcpPort(), 3306);
    const auto bare = parseMariadbTarget("mariadb://localhost");
    EXPECT_EQ(bare.host, "localhost");
    EXPECT_TRUE(bare.database.empty());
    const auto socket = parseMariadbTarget("mariadb://u@localhost/db?socket=/run/mysqld/mysqld.sock");
    EXPECT_TRUE(socket.usesSocket());
    const auto empty = parseMariadbTarget("mariadb://u:@h/db");
    EXPECT_TRUE(empty.hasPassword);
    EXPECT_EQ(empty.password, "");
    const auto query = parseMariadbTarget("mariadb://u@h/db?password=s%26cret");
    EXPECT_EQ(query.password, "s&cret");
    // An unencoded '@' in the password: the user info ends at the last '@'.
    EXPECT_EQ(parseMariadbTarget("mariadb://u:a@b@h/db").password, "a@b");
}

TEST(MariadbTarget, RoundTripsThroughToString) {
    for (const char* text : {"mariadb://me:p%40s%2Fs@db.example:3307/blob_test?connect_timeout=5",
                             "mysql://root@[::1]:3306/x", "mariadb://h", "mariadb://u@h/db?socket=/tmp/my.sock"}) {
        SCOPED_TRACE(text);
        const auto once = parseMariadbTarget(text);
        const auto twice = parseMariadbTarget(once.toString());
        EXPECT_EQ(twice.user, once.user);
        EXPECT_EQ(twice.password, once.password);
        EXPECT_EQ(twice.hasPassword, once.hasPassword);
        EXPECT_EQ(twice.host, once.host);
        EXPECT_EQ(twice.port, once.port);
        EXPECT_EQ(twice.database, once.database);
        EXPECT_EQ(twice.options, once.options);
    }
}

void expectRefused(const std::string& text, const std::string& words) {
    SCOPED_TRACE(text);
    try {
        parseMariadbTarget(text);
        ADD_FAILURE() << "accepted";
    } catch (const Error& e) {
        EXPECT_EQ(e.kind(), ErrorKind::Usage);
        const std::string what = e.what();
        EXPECT_NE(what.find(words), std::string::npos) << what;
        EXPECT_EQ(what.find("hunter2"), std::string::npos) << what;
        EXPECT_EQ(what.find('\n'), std::string::npos) << what;
    }
}

// Issue #26's key=value form, read when the engine is named (--engine mariadb, a project's connection).
TEST(MariadbTarget, ReadsTheKeywordForm) {
    const MariadbTarget t =
        parseMariadbTarget("host=db.example port=3307 user=me password='a b\\'c' dbname=blob_test connect_timeout=5");
    EXPECT_EQ(t.host, "db.example");
    EXPECT_EQ(t.port, 3307);
    EXPECT_EQ(t.user, "me");
    EXPECT_TRUE(t.hasPassword);
    EXPECT_EQ(t.password, "a b'c");
    EXPECT_EQ(t.database, "blob_test");
    EXPECT_EQ(t.options.at("connect_timeout"), "5");
    EXPECT_EQ(parseMariadbTarget("db=x socket=/run/mysqld/mysqld.sock").options.at("socket"),
              "/run/mysqld/mysqld.sock");
    EXPECT_EQ(parseMariadbTarget("database=x").database, "x");
    // What the relay is given: the same target as a URI.
    EXPECT_EQ(parseMariadbTarget(t.toString()).password, "a b'c");
    for (const auto& [bad, says] :
         std::vector<std::pair<std::string, std::string>>{{"host=h nope=1 password=Secret9", "unknown keyword 'nope'"},
                                                          {"host=h port=99999 password=Secret9", "is not a TCP port"},
                                                          {"host=h password='Secret9", "has no closing quote"},
                                                          {"host=h user", "'user' has no value"}}) {
        try {
            parseMariadbTarget(bad);
            ADD_FAILURE() << bad;
        } catch (const Error& e) {
            const std::string what = e.what();
            EXPECT_NE(what.find(says), std::string::npos) << what;
            EXPECT_EQ(what.find("Secret9"), std::string::npos) << what;
        }
    }
}

TEST(MariadbTarget, RefusesWhatIsWrongInOneLineWithoutThePassword) {
    expectRefused("mariadb://u:hunter2@h:99999/db", "is not a TCP port");
    expectRefused("mariadb://u:hunter2@h:0/db", "is not a TCP port");
    expectRefused("mariadb://u:hunter2@h:/db", "no port after it");
    expectRefused("mariadb://u:hunter2@h/db?sslmode=x", "unknown option 'sslmode'");
    expectRefused("mariadb://u:hunter2@h/db?connect_timeout=soon", "not a number of seconds");
    expectRefused("mariadb://u:hunter2%zz@h/db", "not followed by two hex digits");
    expectRefused("mariadb://u:hunter2@[::1/db", "has no ']'");
    expectRefused("mariadb://u:hunter2@h/a/b", "holds a '/'");
}

TEST(MariadbTarget, TheRegistryPicksMariadbAndMasksThePassword) {
    EXPECT_EQ(driverForTarget("mariadb://u:hunter2@h/db").id(), "mariadb");
    EXPECT_EQ(driverForTarget("mysql://u@h/db").id(), "mariadb");
    ConnectionSpec spec;
    spec.engine = "mariadb";
    spec.target = "mariadb://u:hunter2@h:3307/db";
    EXPECT_EQ(spec.label(), "mariadb://u:***@h:3307/db");
    const auto endpoint = driverById("mariadb").endpoint(spec);
    ASSERT_TRUE(endpoint.has_value());
    EXPECT_EQ(endpoint->host, "h");
    EXPECT_EQ(endpoint->port, 3307);
    const ConnectionSpec moved = driverById("mariadb").redirected(spec, Endpoint{"127.0.0.1", 41234});
    const auto t = parseMariadbTarget(moved.target);
    EXPECT_EQ(t.host, "127.0.0.1");
    EXPECT_EQ(t.port, 41234);
    EXPECT_EQ(t.password, "hunter2");
    EXPECT_EQ(t.database, "db");
    spec.target = "mariadb://u@localhost/db?socket=/tmp/x.sock";
    EXPECT_FALSE(driverById("mariadb").endpoint(spec).has_value());
}

}  // namespace
}  // namespace blobbench::mariadb
