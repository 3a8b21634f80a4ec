// blobbench-cli reproduce against the real servers at reduced size: every published cell gets a
// verdict, and the exact parts (round trips, bytes, rows) equal what an independent run of the same
// statements measures through the tap. Firebird 5 (BLOBBENCH_FB5_*: a database of its own, prepared
// here), PostgreSQL (BLOBBENCH_PG_CONNINFO) and SQLite (a temporary directory).
#include <gtest/gtest.h>
#include <signal.h>
#include <unistd.h>

#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <algorithm>
#include <chrono>
#include <cmath>
#include <map>
#include <random>
#include <regex>
#include <thread>

#include "engine/wire/LinkFit.h"
#include "support/FirebirdSupport.h"
#include "support/TestSupport.h"

using blobbench::fitLink;
using blobbench::LinkFitResult;
using blobbench::LinkSample;
using blobbench::test::CliProcess;
using blobbench::test::runCli;
using blobbench::test::TempDir;

namespace {

QJsonObject readJson(const std::string& path) {
    QFile file(QString::fromStdString(path));
    EXPECT_TRUE(file.open(QIODevice::ReadOnly)) << path;
    return QJsonDocument::fromJson(file.readAll()).object();
}

// The reproduce JSON's cells by id.
std::map<std::string, QJsonObject> cellsOf(const QJsonObject& root) {
    std::map<std::string, QJsonObject> out;
    for (const auto& c : root[QStringLiteral("cells")].toArray()) {
        out[c.toObject()[QStringLiteral("id")].toString().toStdString()] = c.toObject();
    }
    return out;
}

std::string verdictOf(const QJsonObject& cell) {
    return cell[QStringLiteral("verdict")].toString().toStdString();
}
std::string reasonOf(const QJsonObject& cell) {
    return cell[QStringLiteral("reason")].toString().toStdString();
}
double measuredOf(const QJsonObject& cell) {
    return cell[QStringLiteral("measured")].toDouble(-1);
}

void expectEveryCellJudged(const std::map<std::string, QJsonObject>& cells, std::size_t count) {
    EXPECT_EQ(cells.size(), count);
    for (const auto& [id, cell] : cells) {
        const std::string v = verdictOf(cell);
        EXPECT_TRUE(v == "reproduced" || v == "differs" || v == "not comparable here") << id << ": " << v;
        if (v != "reproduced") {
            EXPECT_FALSE(reasonOf(cell).empty()) << id;
        }
    }
}

class ReproduceFirebird5 : public ::testing::Test {
protected:
    static void TearDownTestSuite() {
        if (!s_target.empty()) {
            blobbench::test::dropFirebirdDatabase(s_target, s_user, s_password);
        }
    }
    void SetUp() override {
        BLOBBENCH_REQUIRE_ENV(database, "BLOBBENCH_FB5_DATABASE");
        BLOBBENCH_REQUIRE_ENV(user, "BLOBBENCH_FB5_USER");
        BLOBBENCH_REQUIRE_ENV(password, "BLOBBENCH_FB5_PASSWORD");
        BLOBBENCH_REQUIRE_ENV(client, "BLOBBENCH_FB5_CLIENT");
        s_user = user;
        s_password = password;
        s_client = client;
        if (s_target.empty()) {
            s_target = std::regex_replace(database, std::regex(R"([^/]+$)"),
                                          "blobbench_reproduce_" + std::to_string(getpid()) + ".fdb");
            const auto r = runCli({"prepare", "-d", s_target, "-u", user, "-p", password, "--client-library", client,
                                   "-P", "create_database=true", "--rows", "400", "-q"});
            ASSERT_EQ(r.exitCode, 0) << r.out << r.err;
        }
    }
    std::vector<std::string> connection() const {
        return {s_target, "-u", s_user, "-p", s_password, "--client-library", s_client};
    }
    static inline std::string s_target, s_user, s_password, s_client;
};

}  // namespace

TEST_F(ReproduceFirebird5, EveryCellIsJudgedAndTheCountsAreTheTapsOfTheSameStatements) {
    TempDir dir;
    std::vector<std::string> args = {"reproduce", "firebird-wire-blobs"};
    for (const auto& a : connection()) {
        args.push_back(a);
    }
    args.insert(args.end(), {"--rows", "60", "--json", dir.file("r.json")});
    const auto r = runCli(args);
    ASSERT_EQ(r.exitCode, 0) << r.out << r.err;
    EXPECT_NE(r.out.find("Link fitted from the published rows: RTT 8.85 ms, 55.3 Mbit/s"), std::string::npos) << r.out;
    const auto cells = cellsOf(readJson(dir.file("r.json")));
    expectEveryCellJudged(cells, 46);

    // The same statements, compression off, through the tap with `run`: the same counts exactly.
    std::vector<std::string> run = {"run", "-d"};
    for (const auto& a : connection()) {
        run.push_back(a);
    }
    run.insert(run.end(), {"--wire-tap", "-n", "60", "-P", "wire_compression=false", "-w", "1", "-s", "short-blobs",
                           "-s", "varchar", "-s", "all-blobs", "-s", "blob-ids", "--json", dir.file("run.json"), "-q"});
    const auto rr = runCli(run);
    ASSERT_EQ(rr.exitCode, 0) << rr.out << rr.err;
    const QJsonArray samples = readJson(dir.file("run.json"))[QStringLiteral("samples")].toArray();
    ASSERT_EQ(samples.size(), 4);
    for (const auto& v : samples) {
        const QJsonObject s = v.toObject();
        const std::string id = s[QStringLiteral("scenario")].toString().toStdString();
        const QJsonObject tap = s[QStringLiteral("wire")].toObject()[QStringLiteral("tap")].toObject();
        EXPECT_EQ(measuredOf(cells.at(id + ".round-trips")), tap[QStringLiteral("roundTrips")].toDouble()) << id;
        if (id != "varchar") {
            EXPECT_EQ(measuredOf(cells.at(id + ".received-bytes")), tap[QStringLiteral("recvBytes")].toDouble()) << id;
        }
        if (cells.count(id + ".content-bytes")) {
            EXPECT_EQ(measuredOf(cells.at(id + ".content-bytes")), s[QStringLiteral("contentBytes")].toDouble()) << id;
        }
        if (cells.count(id + ".rows")) {
            EXPECT_EQ(measuredOf(cells.at(id + ".rows")), 60) << id;
            EXPECT_EQ(s[QStringLiteral("rows")].toDouble(), 60) << id;
        }
    }
    // At 60 rows the article's 1,000-row counts are not comparable, and say why; older clients' never are.
    EXPECT_EQ(verdictOf(cells.at("all-blobs.round-trips")), "not comparable here");
    EXPECT_EQ(reasonOf(cells.at("all-blobs.round-trips")), "needs rows 1000 (this run: 60)");
    EXPECT_EQ(reasonOf(cells.at("short-blobs.time.5.0.1.off")).substr(0, 18), "needs client 5.0.1");
    // Ratios are judged at any size: the link (loopback) is named when they differ.
    const QJsonObject ratio = cells.at("all-blobs.compression-ratio.5.0.3");
    EXPECT_NE(verdictOf(ratio), "not comparable here") << reasonOf(ratio);
    if (verdictOf(ratio) == "differs") {
        EXPECT_NE(reasonOf(ratio).find("link loopback here"), std::string::npos) << reasonOf(ratio);
    }
}

// The link fit run on measured samples: the relay emulates a known link (10 ms one way, 10 Mbit/s
// both ways), `run` measures statements of few and of many round trips through it, and fitLink on
// their round trips, bytes and times gives the link back within 5%.
// reproduce had no signal handling: a SIGINT / SIGTERM killed it by the default action or, once the
// Firebird client had loaded, its handler shut the attachment down ("connection shutdown", exit 1).
// Now one line, 128 + the signal, whenever it comes (connecting included), and no JSON written.
TEST_F(ReproduceFirebird5, ASignalEndsItWithItsOwnLineAndNoPartialTable) {
    std::mt19937 random(std::random_device{}());
    int signalled = 0;
    for (int attempt = 0; attempt < 6; ++attempt) {
        TempDir dir;
        const int sig = attempt % 2 == 0 ? SIGTERM : SIGINT;
        std::vector<std::string> args = {"reproduce", "firebird-wire-blobs"};
        for (const auto& a : connection()) {
            args.push_back(a);
        }
        args.insert(args.end(), {"--rows", "60", "--json", dir.file("r.json")});
        CliProcess run(args);
        std::this_thread::sleep_for(std::chrono::milliseconds(std::uniform_int_distribution<int>(20, 800)(random)));
        run.signal(sig);
        const auto r = run.wait(std::chrono::seconds(90));
        ASSERT_NE(r.exitCode, -1) << "hung after the signal";
        if (r.exitCode == 0 || blobbench::test::killedInItsStartUp(r, sig)) {
            continue;  // it ended before the signal, or the signal came before main() (CI, ASan)
        }
        if (r.killedBy == sig) {
            // After its work, on its way out (the default action is back): the table is whole.
            // Seen in a rehearsal with the signal at the end of a 1.5 s run.
            EXPECT_NE(r.out.find("Verdicts: "), std::string::npos) << r.out << r.err;
            EXPECT_TRUE(QFile::exists(QString::fromStdString(dir.file("r.json")))) << r.err;
            continue;
        }
        ASSERT_EQ(r.exitCode, 128 + sig) << "attempt " << attempt << ": " << r.err;
        EXPECT_EQ(r.killedBy, 0) << r.err;
        EXPECT_TRUE(r.err.starts_with(std::string("blobbench-cli: ") + (sig == SIGINT ? "SIGINT" : "SIGTERM") +
                                      ": reproduce firebird-wire-blobs was cancelled; no verdict is drawn"))
            << r.err;
        EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
        EXPECT_FALSE(QFile::exists(QString::fromStdString(dir.file("r.json"))));
        ++signalled;
    }
    EXPECT_GE(signalled, 1) << "reproduce ended before every signal";
}

TEST_F(ReproduceFirebird5, TheLinkFitRecoversTheLinkTheRelayEmulated) {
    // Under AddressSanitizer the client's own work is several times slower and uneven, and enters
    // every measured time the fit reads (the ASan rehearsal fitted a wrong link).
    BLOBBENCH_SKIP_UNLESS_TIMES_MEANINGFUL();
    TempDir dir;
    std::vector<LinkSample> samples;
    // Each statement's elapsed time by label, at `link` ("10"/"10M") or unshaped (empty).
    auto measure = [&](const std::string& latency, const std::string& bandwidth, const std::string& inlineSize,
                       const std::string& rows, std::vector<std::string> scenarios) {
        const std::string json = dir.file("fit" + inlineSize + "-" + bandwidth + ".json");
        std::vector<std::string> run = {"run", "-d"};
        for (const auto& a : connection()) {
            run.push_back(a);
        }
        // Three repetitions, the fastest kept: what a busy machine adds to a run is never negative.
        run.insert(run.end(), {"--wire-tap", "-n", rows, "-w", "0", "-r", "3", "-P",
                               "max_inline_blob_size=" + inlineSize, "--json", json, "-q"});
        if (!latency.empty()) {
            run.insert(run.end(), {"--latency", latency, "--bandwidth", bandwidth});
        }
        for (const auto& s : scenarios) {
            run.insert(run.end(), {"-s", s});
        }
        const auto r = runCli(run);
        EXPECT_EQ(r.exitCode, 0) << r.out << r.err;
        std::vector<LinkSample> out;
        for (const auto& v : readJson(json)[QStringLiteral("samples")].toArray()) {
            const QJsonObject s = v.toObject();
            const QJsonObject tap = s[QStringLiteral("wire")].toObject()[QStringLiteral("tap")].toObject();
            const QJsonObject phases = s[QStringLiteral("phases")].toObject();
            LinkSample sample{s[QStringLiteral("scenario")].toString().toStdString() + " inline " + inlineSize,
                              tap[QStringLiteral("roundTrips")].toDouble(), tap[QStringLiteral("recvBytes")].toDouble(),
                              phases[QStringLiteral("elapsedNs")].toDouble() / 1e9};
            const auto same =
                std::find_if(out.begin(), out.end(), [&](const LinkSample& o) { return o.label == sample.label; });
            if (same == out.end()) {
                out.push_back(sample);
            } else if (sample.seconds < same->seconds) {
                *same = sample;
            }
        }
        return out;
    };
    // The time the link adds: each statement at the link less the same statement through a relay
    // that shapes (10 us one way, unlimited bandwidth) and so wakes up for every exchange as the
    // shaped one does: the server's work and the relay's wake-ups, which a loaded machine lengthens
    // by milliseconds an exchange, are in both and do not move the fit.
    auto added = [&](const std::string& inlineSize, const std::string& rows, const std::vector<std::string>& ids) {
        const std::vector<LinkSample> base = measure("10us", "0", inlineSize, rows, ids);
        std::vector<LinkSample> shaped = measure("10", "10M", inlineSize, rows, ids);
        ASSERT_EQ(base.size(), shaped.size());
        for (std::size_t i = 0; i < shaped.size(); ++i) {
            // The relay counts a round trip at each turn of the streams: a fetch the client sends
            // before the last answer has arrived is one turn or two by timing (27 against 26 for all
            // BLOBs inline, in a rehearsal). Link-independent within that, which the fit absorbs.
            const double turns = std::max(2.0, 0.02 * base[i].roundTrips);
            EXPECT_LE(std::abs(base[i].roundTrips - shaped[i].roundTrips), turns)
                << shaped[i].label << ": " << base[i].roundTrips << " round trips unshaped, " << shaped[i].roundTrips
                << " at the link";
            shaped[i].seconds -= base[i].seconds;
            samples.push_back(shaped[i]);
        }
    };
    // A machine shared with other jobs (CI compiles the sanitizer builds beside these tests) can
    // lengthen one set of runs by scheduling delays the fit reads as link: a fit outside 5% is measured
    // again, up to three times. A wrong fit misses every time.
    LinkFitResult fit;
    for (int attempt = 1; attempt <= 3; ++attempt) {
        samples.clear();
        added("0", "60", {"short-blobs"});  // a round trip a BLOB: the latency term
        // VARCHAR stays out: its fetches are pipelined (the client asks for the next batch before the last
        // one has arrived), so its exchanges are not each a whole round trip, which the model assumes.
        added("65535", "150", {"all-blobs", "blob-ids"});  // few round trips, megabytes: bandwidth
        ASSERT_EQ(samples.size(), 3u);
        fit = fitLink(samples);
        std::cout << "attempt " << attempt << ": " << (fit.ok ? fit.describe() : fit.why) << '\n';
        if (fit.ok && std::abs(fit.rttSeconds - 0.020) <= 0.020 * 0.05 &&
            std::abs(fit.bitsPerSecond - 10e6) <= 10e6 * 0.05) {
            break;
        }
    }
    std::string rows;
    for (std::size_t i = 0; i < samples.size() && fit.ok; ++i) {
        rows += "\n  " + samples[i].label + ": " + std::to_string(samples[i].roundTrips) + " round trips, " +
                std::to_string(samples[i].bytes) + " bytes, " + std::to_string(samples[i].seconds) + " s, residual " +
                std::to_string(fit.residualSeconds[i]);
    }
    ASSERT_TRUE(fit.ok) << fit.why << rows;
    std::cout << "emulated RTT 20 ms, 10 Mbit/s; fitted " << fit.describe() << rows << '\n';
    EXPECT_NEAR(fit.rttSeconds, 0.020, 0.020 * 0.05) << fit.describe() << rows;
    EXPECT_NEAR(fit.bitsPerSecond, 10e6, 10e6 * 0.05) << fit.describe() << rows;
}

TEST(ReproducePostgres, TheHexFormatDoublesTheBytesAndEveryCellIsJudged) {
    BLOBBENCH_REQUIRE_ENV(conninfo, "BLOBBENCH_PG_CONNINFO");
    TempDir dir;
    // 32 KB over the post's 512 kbit/s up, 2 Mbit/s down: a few seconds for the four paths.
    const auto r =
        runCli({"reproduce", "postgres-bytea-2007", conninfo, "--size", "32768", "--json", dir.file("p.json")});
    ASSERT_EQ(r.exitCode, 0) << r.out << r.err;
    const QJsonObject root = readJson(dir.file("p.json"));
    const std::string link = root[QStringLiteral("link")].toString().toStdString();
    EXPECT_EQ(link.find("up 512 kbit/s"), 0u) << link;
    EXPECT_NE(link.find("down 2 Mbit/s"), std::string::npos) << link;
    const auto cells = cellsOf(root);
    expectEveryCellJudged(cells, 8);
    // Hex: "\x" and two digits a byte, exactly.
    EXPECT_DOUBLE_EQ(measuredOf(cells.at("received.ratio.hex")), (2.0 * 32768 + 2) / 32768);
    EXPECT_EQ(verdictOf(cells.at("received.ratio.hex")), "reproduced");
    // The absolute times need the post's 2 MB document.
    EXPECT_EQ(reasonOf(cells.at("select.binary.seconds")), "needs document 2 MB (this run: 32768 bytes)");
    // Over the emulated link the text select is slower than the binary one.
    EXPECT_GT(measuredOf(cells.at("select.ratio")), 1.5);
    EXPECT_GT(measuredOf(cells.at("select.ratio.hex")), 1.5);
}

TEST(ReproduceSqlite, FootprintAndReadRatiosAreJudgedAtReducedSize) {
    TempDir dir;
    const auto r =
        runCli({"reproduce", "sqlite-35-percent", dir.file("work"), "--rows", "1500", "--json", dir.file("s.json")});
    ASSERT_EQ(r.exitCode, 0) << r.out << r.err;
    const auto cells = cellsOf(readJson(dir.file("s.json")));
    expectEveryCellJudged(cells, 7);
    EXPECT_EQ(reasonOf(cells.at("footprint.sqlite.bytes")), "needs values 100000 (this run: 1500)");
    const double sqlite = measuredOf(cells.at("footprint.sqlite.bytes"));
    const double files = measuredOf(cells.at("footprint.files.bytes"));
    ASSERT_GT(files, 0);
    EXPECT_EQ(measuredOf(cells.at("footprint.ratio")), sqlite / files);
    // 1,500 files of 8,000-12,000 bytes take 8 or 12 KiB each (4 KiB blocks) and SQLite's pages hold
    // at least the payload.
    EXPECT_GE(files, 1500.0 * 8192);
    EXPECT_LE(files, 1500.0 * 12288);
    EXPECT_GE(sqlite, 1500.0 * 8000);
    for (const char* id : {"read.files-vs-sql", "read.files-vs-blob-mmap", "write.vs-read"}) {
        EXPECT_GT(measuredOf(cells.at(id)), 0) << id;
        EXPECT_NE(verdictOf(cells.at(id)), "not comparable here") << id << ": " << reasonOf(cells.at(id));
    }
}
