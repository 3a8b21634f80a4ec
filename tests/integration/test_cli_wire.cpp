// blobbench-cli through the wire tap against the real servers: the counts are there, per phase,
// and they show each protocol's shape (Firebird 3 pays round trips per BLOB, PostgreSQL streams).
#include <gtest/gtest.h>

#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>

#include "support/TestSupport.h"

using blobbench::test::runCli;
using blobbench::test::TempDir;

namespace {

QJsonArray samplesOf(const std::string& path) {
    QFile file(QString::fromStdString(path));
    if (!file.open(QIODevice::ReadOnly)) {
        return {};
    }
    return QJsonDocument::fromJson(file.readAll()).object()[QStringLiteral("samples")].toArray();
}

QJsonObject tapOf(const QJsonObject& sample) {
    return sample[QStringLiteral("wire")].toObject()[QStringLiteral("tap")].toObject();
}

qint64 field(const QJsonObject& o, const char* key) {
    return o[QLatin1String(key)].toInteger();
}

}  // namespace

TEST(CliWire, PostgresThroughTheTap) {
    BLOBBENCH_REQUIRE_ENV(conninfo, "BLOBBENCH_PG_CONNINFO");
    TempDir dir;
    // A table of our own in the shared database would clash with the reference set: use the
    // reference set when it is there, prepare a small one otherwise.
    const auto probe = runCli({"run", conninfo, "-s", "warm-up", "-q"});
    if (probe.exitCode != 0) {
        ASSERT_EQ(runCli({"prepare", conninfo, "--rows", "300", "-q"}).exitCode, 0);
    }
    const std::string json = dir.file("pg.json");
    // The relay asked for (the default counts in-process: below).
    const auto r =
        runCli({"run", conninfo, "-s", "all-blobs", "--wire-tap", "-P", "wire_counting=relay", "--json", json, "-q"});
    ASSERT_EQ(r.exitCode, 0) << r.err;
    EXPECT_NE(r.out.find("Wire tap: 127.0.0.1:"), std::string::npos) << r.out;
    EXPECT_NE(r.out.find("Wire statistics (measured by the wire tap):\n  send packets = "), std::string::npos);
    const QJsonArray samples = samplesOf(json);
    ASSERT_EQ(samples.size(), 1);
    const QJsonObject s = samples[0].toObject();
    const QJsonObject tap = tapOf(s);
    ASSERT_TRUE(tap[QStringLiteral("available")].toBool());
    // Every content byte crossed the wire, plus the protocol's framing (a few bytes a row).
    EXPECT_GE(field(tap, "recvBytes"), field(s, "contentBytes"));
    EXPECT_LT(field(tap, "recvBytes"), field(s, "contentBytes") + 64 * field(s, "rows") + 65536);
    // One request, one streamed answer: PostgreSQL needs a single round trip for the whole fetch.
    EXPECT_EQ(field(tap, "roundTrips"), 1);
    const QJsonObject phases = s[QStringLiteral("wire")].toObject()[QStringLiteral("tapPhases")].toObject();
    EXPECT_TRUE(phases.contains(QStringLiteral("connect")));
    EXPECT_TRUE(phases.contains(QStringLiteral("prepare")));
    EXPECT_TRUE(phases.contains(QStringLiteral("fetch")));

    // The default measured run: counted in the client, no relay, the same bytes and round trip.
    const std::string byDefault = dir.file("pg-default.json");
    const auto d = runCli({"run", conninfo, "-s", "all-blobs", "--json", byDefault, "-q"});
    ASSERT_EQ(d.exitCode, 0) << d.err;
    EXPECT_EQ(d.out.find("Wire tap: 127.0.0.1:"), std::string::npos) << d.out;
    EXPECT_NE(d.out.find("Wire statistics (in-process counters):\n  send packets = "), std::string::npos) << d.out;
    const QJsonArray counted = samplesOf(byDefault);
    ASSERT_EQ(counted.size(), 1);
    const QJsonObject c = tapOf(counted[0].toObject());
    EXPECT_EQ(c[QStringLiteral("method")].toString(), QStringLiteral("in-process"));
    EXPECT_EQ(tap[QStringLiteral("method")].toString(), QStringLiteral("relay"));
    EXPECT_EQ(field(c, "recvBytes"), field(tap, "recvBytes"));
    EXPECT_EQ(field(c, "roundTrips"), 1);
}

TEST(CliWire, FirebirdThreePaysRoundTripsPerBlob) {
    BLOBBENCH_REQUIRE_ENV(database, "BLOBBENCH_FB_DATABASE");
    BLOBBENCH_REQUIRE_ENV(user, "BLOBBENCH_FB_USER");
    BLOBBENCH_REQUIRE_ENV(password, "BLOBBENCH_FB_PASSWORD");
    TempDir dir;
    ASSERT_EQ(runCli({"prepare", database, "-u", user, "-p", password, "--rows", "200", "-q"}).exitCode, 0);
    const std::string json = dir.file("fb.json");
    const auto r = runCli({"run", database, "-u", user, "-p", password, "-s", "short-blobs", "-s", "varchar",
                           "--wire-tap", "--json", json, "-q"});
    ASSERT_EQ(r.exitCode, 0) << r.err;
    EXPECT_EQ(r.out.find(password), std::string::npos) << "the password must not be printed";
    const QJsonArray samples = samplesOf(json);
    ASSERT_EQ(samples.size(), 2);
    const QJsonObject blobs = samples[0].toObject();
    const QJsonObject varchar = samples[1].toObject();
    ASSERT_EQ(field(blobs, "rows"), field(varchar, "rows"));
    ASSERT_GT(field(blobs, "rows"), 50);
    EXPECT_EQ(field(blobs, "contentBytes"), field(varchar, "contentBytes"));
    // Firebird 3: each BLOB is opened and read in its own exchanges (no inline BLOBs before 5.0.3).
    EXPECT_GE(field(tapOf(blobs), "roundTrips"), field(blobs, "rows"));
    // The same content as VARCHAR travels with the rows, in batches.
    EXPECT_LT(field(tapOf(varchar), "roundTrips"), field(varchar, "rows") / 4);
}

// The bytea preset: text formats cost what the protocol says (hex 2 + 2n bytes, escape more),
// every path reads back what it wrote, and an emulated link is reported.
TEST(CliWire, ByteaExperimentOverAnEmulatedLink) {
    BLOBBENCH_REQUIRE_ENV(conninfo, "BLOBBENCH_PG_CONNINFO");
    const auto r = runCli({"bytea", conninfo, "--size", "64K", "--repeat", "1", "--latency", "1ms"});
    ASSERT_EQ(r.exitCode, 0) << r.err;
    EXPECT_NE(r.out.find("Link: up unlimited + 1 ms"), std::string::npos) << r.out;
    EXPECT_NE(r.out.find("65536       1.00       1.00      1.000  identical"), std::string::npos) << r.out;
    EXPECT_NE(r.out.find("131074"), std::string::npos) << "hex: 2 + 2n bytes\n" << r.out;
    EXPECT_EQ(r.out.find("DIFFERENT"), std::string::npos) << r.out;
    const auto sqlite = runCli({"bytea", "sqlite:/tmp/x.sqlite"});
    EXPECT_EQ(sqlite.exitCode, 2);
    EXPECT_NE(sqlite.err.find("PostgreSQL's"), std::string::npos) << sqlite.err;
    const auto estimate = runCli({"bytea", conninfo, "--estimate-compression"});
    EXPECT_EQ(estimate.exitCode, 2) << "a flag the experiment cannot honour is refused, not ignored";
    EXPECT_NE(estimate.err.find("--estimate-compression is not supported"), std::string::npos) << estimate.err;
}

// The link tunables as -P parameters need no engine-specific code: the Runner applies them, the
// samples record them as parameters and effects; --estimate-compression adds the labelled estimate.
TEST(CliWire, LinkTunablesAsParametersAndTheCompressionEstimate) {
    BLOBBENCH_REQUIRE_ENV(conninfo, "BLOBBENCH_PG_CONNINFO");
    TempDir dir;
    const auto probe = runCli({"run", conninfo, "-s", "warm-up", "-q"});
    if (probe.exitCode != 0) {
        ASSERT_EQ(runCli({"prepare", conninfo, "--rows", "300", "-q"}).exitCode, 0);
    }
    const std::string json = dir.file("link.json");
    const auto r = runCli({"run", conninfo, "-s", "all-blobs", "-P", "link_latency_up_ms=40", "-P",
                           "link_latency_down_ms=10", "--estimate-compression", "--json", json, "-q"});
    ASSERT_EQ(r.exitCode, 0) << r.err;
    EXPECT_NE(r.out.find("link up unlimited + 40 ms"), std::string::npos) << r.out;
    EXPECT_NE(r.out.find("  recv compressed = zlib-6 would send "), std::string::npos) << r.out;
    EXPECT_NE(r.out.find("; estimate, not measured"), std::string::npos) << r.out;
    const QJsonArray samples = samplesOf(json);
    ASSERT_EQ(samples.size(), 1);
    const QJsonObject s = samples[0].toObject();
    const QJsonObject parameters = s[QStringLiteral("parameters")].toObject();
    EXPECT_EQ(parameters[QStringLiteral("link_latency_up_ms")].toString(), QStringLiteral("40"));
    EXPECT_EQ(parameters[QStringLiteral("wire_compression_estimate")].toString(), QStringLiteral("true"));
    bool latencyInEffect = false;
    for (const auto& e : s[QStringLiteral("effects")].toArray()) {
        const QJsonObject effect = e.toObject();
        if (effect[QStringLiteral("id")].toString() == QStringLiteral("link_latency_up_ms")) {
            latencyInEffect = effect[QStringLiteral("inEffect")].toBool();
        }
    }
    EXPECT_TRUE(latencyInEffect);
    // One round trip at 40 + 10 ms: the measured span cannot be shorter.
    const QJsonObject phases = s[QStringLiteral("phases")].toObject();
    EXPECT_GE(field(phases, "executeNs") + field(phases, "fetchNs"), 50'000'000) << r.out;
    const QJsonObject tap = tapOf(s);
    ASSERT_TRUE(tap[QStringLiteral("available")].toBool());
    const QJsonObject compressed = tap[QStringLiteral("compressed")].toObject();
    EXPECT_TRUE(compressed[QStringLiteral("estimate")].toBool());
    EXPECT_GT(field(compressed, "zlibRecvBytes"), 0);
    EXPECT_GT(field(compressed, "zstdRecvBytes"), 0);
    EXPECT_GT(field(compressed, "zlibSendBytes"), 0);

    // wire_tap=false given explicitly beats the CLI's default tap.
    const auto direct = runCli({"run", conninfo, "-s", "all-blobs", "-P", "wire_tap=false", "-q"});
    ASSERT_EQ(direct.exitCode, 0) << direct.err;
    EXPECT_NE(direct.out.find("Wire statistics: wire tap not enabled"), std::string::npos) << direct.out;
    const auto contradiction = runCli({"run", conninfo, "-s", "all-blobs", "-P", "wire_tap=false", "--latency", "5"});
    EXPECT_NE(contradiction.exitCode, 0);
    EXPECT_NE((contradiction.out + contradiction.err).find("wire_tap=false contradicts"), std::string::npos)
        << contradiction.out << contradiction.err;
}
