// Firebird connection strings: which ones the driver takes, where they lead, and how the wire tap
// redirects them. No server needed.
#include <gtest/gtest.h>

#include "engine/core/Error.h"
#include "engine/drivers/firebird/FirebirdConnectionString.h"
#include "engine/drivers/firebird/FirebirdDriver.h"

using namespace blobbench;
using namespace blobbench::firebird;

TEST(FirebirdConnectionString, ParsesUrlForms) {
    auto t = parseFirebirdTarget("inet://127.0.0.1:3051//var/db/blob_test.fdb");
    EXPECT_EQ(t.form, FirebirdTarget::Form::Url);
    EXPECT_EQ(t.host, "127.0.0.1");
    EXPECT_EQ(t.tcpPort(), 3051);
    EXPECT_EQ(t.path, "/var/db/blob_test.fdb");
    EXPECT_EQ(t.toString(), "inet://127.0.0.1:3051//var/db/blob_test.fdb");

    t = parseFirebirdTarget("inet6://[::1]/employee");
    EXPECT_EQ(t.host, "::1");
    EXPECT_EQ(t.tcpPort(), kDefaultFirebirdPort);
    EXPECT_EQ(t.toString(), "inet6://[::1]/employee");

    t = parseFirebirdTarget("firebird:inet://db.example.org/blob_test");
    EXPECT_EQ(t.host, "db.example.org");
    EXPECT_EQ(t.path, "blob_test");
}

TEST(FirebirdConnectionString, ParsesLegacyAndLocalForms) {
    auto t = parseFirebirdTarget("localhost:employee");
    EXPECT_EQ(t.form, FirebirdTarget::Form::Legacy);
    EXPECT_EQ(t.host, "localhost");
    EXPECT_EQ(t.tcpPort(), 3050);
    EXPECT_EQ(t.path, "employee");

    t = parseFirebirdTarget("server/3051:/data/x.fdb");
    EXPECT_EQ(t.host, "server");
    EXPECT_EQ(t.tcpPort(), 3051);
    EXPECT_EQ(t.toString(), "server/3051:/data/x.fdb");

    t = parseFirebirdTarget("server/gds_db:alias");
    EXPECT_EQ(t.tcpPort(), 3050);

    t = parseFirebirdTarget("/var/tmp/x.fdb");
    EXPECT_EQ(t.form, FirebirdTarget::Form::Local);
    EXPECT_FALSE(t.tcpPort());

    t = parseFirebirdTarget("C:\\data\\x.fdb");  // a drive letter is not a host
    EXPECT_EQ(t.form, FirebirdTarget::Form::Local);
}

TEST(FirebirdConnectionString, DriverAcceptsFirebirdStringsOnly) {
    const FirebirdDriver driver;
    for (const char* yes : {"inet://localhost/employee", "firebird:/var/x.fdb", "localhost:employee",
                            "host/3051:/x.fdb", "/var/tmp/blob_test.fdb", "BLOB.FDB"}) {
        EXPECT_TRUE(driver.accepts(yes)) << yes;
    }
    for (const char* no : {"sqlite:/tmp/x.db", "sqlite:x.fdb", "postgresql://u@localhost/db", "postgres:db",
                           "host=localhost dbname=x", "/tmp/x.db", "files:/tmp"}) {
        EXPECT_FALSE(driver.accepts(no)) << no;
    }
}

TEST(FirebirdConnectionString, EndpointAndRedirection) {
    const FirebirdDriver driver;
    ConnectionSpec spec;
    spec.engine = "firebird";
    spec.target = "inet://127.0.0.1//var/tmp/blob_test.fdb";
    auto e = driver.endpoint(spec);
    ASSERT_TRUE(e);
    EXPECT_EQ(e->host, "127.0.0.1");
    EXPECT_EQ(e->port, 3050);
    const ConnectionSpec moved = driver.redirected(spec, Endpoint{"127.0.0.1", 40123});
    EXPECT_EQ(moved.target, "inet://127.0.0.1:40123//var/tmp/blob_test.fdb");

    spec.target = "localhost/3050:employee";
    EXPECT_EQ(driver.redirected(spec, Endpoint{"127.0.0.1", 5000}).target, "127.0.0.1/5000:employee");

    spec.target = "/var/tmp/blob_test.fdb";
    EXPECT_FALSE(driver.endpoint(spec));
    EXPECT_EQ(driver.redirected(spec, Endpoint{"127.0.0.1", 5000}).target, spec.target);
}

TEST(FirebirdConnectionString, DeclaresTunables) {
    const FirebirdDriver driver;
    const auto values = resolveParameters(driver.parameters(), {{"wire_compression", "on"}});
    EXPECT_EQ(values.at("wire_compression"), "true");
    EXPECT_EQ(values.at("max_inline_blob_size"), "65535");
    EXPECT_EQ(values.at("blob_buffer_size"), "65535");
    EXPECT_EQ(values.at("empty_bpb"), "true");
    EXPECT_THROW(resolveParameters(driver.parameters(), {{"blob_buffer_size", "0"}}), Error);
    EXPECT_THROW(resolveParameters(driver.parameters(), {{"max_inline_blob_size", "65536"}}), Error);
    for (const auto& spec : driver.parameters()) {
        if (spec.id == "max_inline_blob_size" || spec.id == "max_blob_cache_size") {
            EXPECT_EQ(spec.needs, "client and server >= 5.0.3");
        }
    }
}
