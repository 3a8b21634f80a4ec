// verify_content=on (issue #28) against the real servers: the reference suite of a small data set
// of the test's own verifies on PostgreSQL, Firebird 3 and Firebird 5.0.4 (with the 5.0 client and
// inline BLOBs); one row changed behind BlobBench's back fails its sample naming the row. And the
// check of Firebird issue #9060 (stale BLOB content with inline BLOBs): seen on the 5.0.4 server
// and client with inline BLOBs, not with inline size 0, not on Firebird 3.
#include <gtest/gtest.h>
#include <unistd.h>

#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <filesystem>
#include <fstream>
#include <regex>

#include "engine/data/Dataset.h"
#include "engine/drivers/firebird/FirebirdDriver.h"
#include "support/FirebirdSupport.h"
#include "support/PgSupport.h"
#include "support/TestSupport.h"

using namespace blobbench;
using blobbench::test::runCli;
using blobbench::test::TempDir;

namespace {

constexpr const char* kRows = "300";

QJsonArray samplesOf(const std::string& path) {
    QFile file(QString::fromStdString(path));
    EXPECT_TRUE(file.open(QIODevice::ReadOnly)) << path;
    return QJsonDocument::fromJson(file.readAll()).object()[QStringLiteral("samples")].toArray();
}

std::string textOf(const QJsonObject& sample, const char* key) {
    return sample[QLatin1String(key)].toString().toStdString();
}

// The whole reference suite with verification on: every scenario that reads content is verified,
// value for value; the run's JSON says so.
void expectWholeSuiteVerified(const std::vector<std::string>& connection, const std::vector<std::string>& env) {
    TempDir dir;
    std::vector<std::string> args = {"run"};
    args.insert(args.end(), connection.begin(), connection.end());
    args.insert(args.end(), {"--verify-content", "--json", dir.file("on.json"), "-q"});
    const auto r = runCli(args, env);
    ASSERT_EQ(r.exitCode, 0) << r.out << r.err;
    const QJsonArray samples = samplesOf(dir.file("on.json"));
    ASSERT_EQ(samples.size(), 7) << r.out;
    for (const auto& v : samples) {
        const QJsonObject s = v.toObject();
        const std::string id = textOf(s, "scenario");
        const std::string check = textOf(s, "contentCheck");
        EXPECT_EQ(textOf(s, "status"), "complete") << id << ": " << textOf(s, "error");
        if (id == "blob-ids") {
            EXPECT_EQ(check, "not verified: BLOB ids only (the scenario asks for no content)");
        } else if (id == "warm-up") {
            EXPECT_TRUE(check.starts_with("verified: the max char length equals the data set's")) << check;
        } else {
            const std::string values = std::to_string(s[QStringLiteral("rows")].toInteger()) + " values";
            EXPECT_GT(s[QStringLiteral("rows")].toInteger(), 0) << id;
            EXPECT_TRUE(check.starts_with("verified: " + values + " equal the data set's")) << id << ": " << check;
        }
    }
}

// After row 7's CONTENT was changed: all-blobs fails naming row 7 (the one line on stderr), and the
// sample says what it found.
void expectRowSevenNamed(const std::vector<std::string>& connection, const std::vector<std::string>& env,
                         const std::string& gotBytes) {
    TempDir dir;
    std::vector<std::string> args = {"run"};
    args.insert(args.end(), connection.begin(), connection.end());
    args.insert(args.end(), {"-P", "verify_content=on", "-s", "all-blobs", "--json", dir.file("bad.json"), "-q"});
    const auto r = runCli(args, env);
    EXPECT_EQ(r.exitCode, 1) << r.out << r.err;
    EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
    EXPECT_TRUE(std::regex_search(r.err, std::regex("Test read all BLOBs: content differs from the prepared data set: "
                                                    "row 7: expected [0-9]+ bytes \\(hash [0-9a-f]{16}\\), got " +
                                                    gotBytes + " bytes \\(hash [0-9a-f]{16}\\)\n")))
        << r.err;
    const QJsonArray samples = samplesOf(dir.file("bad.json"));
    ASSERT_EQ(samples.size(), 1);
    EXPECT_EQ(textOf(samples[0].toObject(), "status"), "failed");
    EXPECT_TRUE(textOf(samples[0].toObject(), "contentCheck").starts_with("differs: 1 rows of " + std::string(kRows)))
        << textOf(samples[0].toObject(), "contentCheck");
}

TEST(VerifyContent, PostgresVerifiesTheSuiteAndNamesAChangedRow) {
    BLOBBENCH_REQUIRE_ENV(conninfo, "BLOBBENCH_PG_CONNINFO");
    const test::PgTarget pg = test::pgTarget(conninfo);
    const test::PgOwnDatabase mine =
        test::createOwnPgDatabase(conninfo, "blobbench_verify_" + std::to_string(getpid()));
    test::PgConn admin(conninfo);
    auto r = runCli({"prepare", mine.target, "--rows", kRows, "-q"}, pg.env());
    ASSERT_EQ(r.exitCode, 0) << r.err;
    expectWholeSuiteVerified({mine.target}, pg.env());
    {
        test::PgConn conn(mine.conninfo);
        ASSERT_TRUE(conn.ok()) << conn.errorMessage();
        conn.value("UPDATE BLOB_TEST SET CONTENT = 'changed behind BlobBench''s back' WHERE ID = 7");
    }
    expectRowSevenNamed({mine.target}, pg.env(), "31");
    admin.value("DROP DATABASE IF EXISTS " + mine.name + " WITH (FORCE)");
}

TEST(VerifyContent, PostgresFolderDataSetIsVerifiedByItsStoredHashes) {
    BLOBBENCH_REQUIRE_ENV(conninfo, "BLOBBENCH_PG_CONNINFO");
    const test::PgTarget pg = test::pgTarget(conninfo);
    const test::PgOwnDatabase mine =
        test::createOwnPgDatabase(conninfo, "blobbench_verify_folder_" + std::to_string(getpid()));
    test::PgConn admin(conninfo);
    TempDir dir;
    std::filesystem::create_directories(dir.file("src"));
    for (int i = 1; i <= 4; ++i) {
        std::ofstream(dir.file("src/f" + std::to_string(i) + ".txt"))
            << std::string(static_cast<std::size_t>(i) * 4000, static_cast<char>('a' + i)) << "\u00e9";
    }
    auto r = runCli({"prepare", mine.target, "--from-folder", dir.file("src"), "--rows", "30", "-q"}, pg.env());
    ASSERT_EQ(r.exitCode, 0) << r.err;
    r = runCli({"run", mine.target, "--verify-content", "-s", "all-blobs", "-s", "warm-up", "-q"}, pg.env());
    EXPECT_EQ(r.exitCode, 0) << r.out << r.err;
    EXPECT_NE(r.out.find("Content: verified: 30 values equal the data set's"), std::string::npos) << r.out;
    EXPECT_NE(r.out.find("Content: verified: the max char length equals the data set's (16001)"), std::string::npos)
        << r.out;
    {
        test::PgConn conn(mine.conninfo);
        conn.value("UPDATE BLOB_TEST SET CONTENT = CONTENT || 'x' WHERE ID = 7");
    }
    r = runCli({"run", mine.target, "--verify-content", "-s", "all-blobs", "-q"}, pg.env());
    EXPECT_EQ(r.exitCode, 1) << r.out << r.err;
    EXPECT_NE(r.err.find("row 7: expected 12002 bytes"), std::string::npos) << r.err;
    EXPECT_NE(r.err.find("got 12003 bytes"), std::string::npos) << r.err;
    admin.value("DROP DATABASE IF EXISTS " + mine.name + " WITH (FORCE)");
}

// A Firebird database of the test's own beside the shared one (inet://HOST:PORT/<folder>/NAME.fdb),
// prepared through `client` (empty: the system 3.0 client), dropped at the end.
void firebirdVerifies(const std::string& shared, const std::string& user, const std::string& password,
                      const std::string& client, const std::string& name) {
    const std::string target = std::regex_replace(shared, std::regex(R"([^/]+$)"), name + ".fdb");
    test::dropFirebirdDatabase(target, user, password);
    const std::vector<std::string> env = {"ISC_PASSWORD=" + password};
    std::vector<std::string> connection = {target, "-u", user};
    if (!client.empty()) {
        connection.insert(connection.end(), {"--client-library", client});
    }
    std::vector<std::string> prepare = {"prepare"};
    prepare.insert(prepare.end(), connection.begin(), connection.end());
    prepare.insert(prepare.end(), {"-P", "create_database=true", "--rows", kRows, "-q"});
    const auto r = runCli(prepare, env);
    ASSERT_EQ(r.exitCode, 0) << r.err;
    expectWholeSuiteVerified(connection, env);
    {
        // Changed with the system client, outside the run: a 24-character text BLOB.
        FirebirdDriver driver;
        ConnectionSpec spec{"firebird", target};
        spec.user = user;
        spec.password = password;
        auto session = driver.connect(spec, resolveParameters(driver.parameters(), {}));
        session->execute("UPDATE BLOB_TEST SET CONTENT = 'changed behind BlobBench' WHERE ID = 7");
    }
    expectRowSevenNamed(connection, env, "24");
    test::dropFirebirdDatabase(target, user, password);
}

TEST(VerifyContent, Firebird3VerifiesTheSuiteAndNamesAChangedRow) {
    BLOBBENCH_REQUIRE_ENV(shared, "BLOBBENCH_FB_DATABASE");
    BLOBBENCH_REQUIRE_ENV(user, "BLOBBENCH_FB_USER");
    BLOBBENCH_REQUIRE_ENV(password, "BLOBBENCH_FB_PASSWORD");
    firebirdVerifies(shared, user, password, "", "blobbench_verify3_" + std::to_string(getpid()));
}

TEST(VerifyContent, Firebird5WithInlineBlobsVerifiesTheSuiteAndNamesAChangedRow) {
    BLOBBENCH_REQUIRE_ENV(shared, "BLOBBENCH_FB5_DATABASE");
    BLOBBENCH_REQUIRE_ENV(user, "BLOBBENCH_FB5_USER");
    BLOBBENCH_REQUIRE_ENV(password, "BLOBBENCH_FB5_PASSWORD");
    BLOBBENCH_REQUIRE_ENV(client, "BLOBBENCH_FB5_CLIENT");
    firebirdVerifies(shared, user, password, client, "blobbench_verify5_" + std::to_string(getpid()));
}

// Tables whose name starts with BLOBBENCH_FB9060_ (the check's own), and the reference data set's
// summary: the check leaves neither changed.
struct FirebirdState {
    std::string checkTables;
    std::string dataSet;
};

FirebirdState firebirdState(const std::string& target, const std::string& user, const std::string& password) {
    class Names final : public RowSink {
    public:
        std::string names;
        void integer(std::size_t, std::int64_t) override {}
        void null(std::size_t) override {}
        void chunk(std::size_t, std::string_view bytes) override { names.append(bytes); }
        void endRow() override { names += ' '; }
    };
    FirebirdDriver driver;
    ConnectionSpec spec{"firebird", target};
    spec.user = user;
    spec.password = password;
    auto session = driver.connect(spec, resolveParameters(driver.parameters(), {}));
    Names names;
    session->query(QuerySpec{"SELECT TRIM(RDB$RELATION_NAME) FROM RDB$RELATIONS WHERE RDB$RELATION_NAME "
                             "STARTING WITH 'BLOBBENCH_FB9060_'"},
                   names, CancelToken());
    const auto summary = readDatasetSummary(*session);
    return {names.names, summary ? describeDataset(*summary) : std::string("no data set")};
}

TEST(Fb9060Check, Firebird504ShowsTheDefectWithInlineBlobsAndNotWithInlineSizeZero) {
    BLOBBENCH_REQUIRE_ENV(target, "BLOBBENCH_FB5_DATABASE");
    BLOBBENCH_REQUIRE_ENV(user, "BLOBBENCH_FB5_USER");
    BLOBBENCH_REQUIRE_ENV(password, "BLOBBENCH_FB5_PASSWORD");
    BLOBBENCH_REQUIRE_ENV(client, "BLOBBENCH_FB5_CLIENT");
    const FirebirdState before = firebirdState(target, user, password);
    const auto r =
        runCli({"check", "fb9060", target, "-u", user, "--client-library", client}, {"ISC_PASSWORD=" + password});
    EXPECT_EQ(r.exitCode, 4) << r.out << r.err;
    EXPECT_NE(r.out.find("Server: LI-V5.0.4"), std::string::npos) << r.out;
    EXPECT_NE(r.out.find("client: LI-V5.0.4"), std::string::npos) << r.out;
    EXPECT_NE(r.out.find("These versions: known affected (both sides 5.0.3 or 5.0.4)"), std::string::npos) << r.out;
    // Inline BLOBs on: the re-read in the same transaction returns row 1's freed content.
    EXPECT_TRUE(std::regex_search(
        r.out,
        std::regex("max_inline_blob_size=65535 \\(the attachment reports: 65535\\): defect seen: the re-read in "
                   "the same transaction returned 'AAA-first', expected 'BBB-second' \\(BLOB id [0-9a-f:]+ freed "
                   "and reused\\); after COMMIT a new transaction reads 'BBB-second'")))
        << r.out;
    // Inline size 0: the same sequence, the right content.
    EXPECT_TRUE(std::regex_search(
        r.out, std::regex("max_inline_blob_size=0 \\(the attachment reports: 0\\): not seen: the re-read in the same "
                          "transaction returned 'BBB-second'")))
        << r.out;
    EXPECT_NE(r.out.find("Result: defect seen\n"), std::string::npos) << r.out;
    const FirebirdState after = firebirdState(target, user, password);
    EXPECT_EQ(after.checkTables, "") << "the check's table was left behind";
    EXPECT_EQ(after.dataSet, before.dataSet);

    const auto off =
        runCli({"check", "fb9060", target, "-u", user, "--client-library", client, "-P", "max_inline_blob_size=0"},
               {"ISC_PASSWORD=" + password});
    EXPECT_EQ(off.exitCode, 0) << off.out << off.err;
    EXPECT_EQ(off.out.find("defect seen"), std::string::npos) << off.out;
    EXPECT_NE(off.out.find("Result: not seen\n"), std::string::npos) << off.out;
}

TEST(Fb9060Check, Firebird3CannotShowItWithEitherClient) {
    BLOBBENCH_REQUIRE_ENV(target, "BLOBBENCH_FB_DATABASE");
    BLOBBENCH_REQUIRE_ENV(user, "BLOBBENCH_FB_USER");
    BLOBBENCH_REQUIRE_ENV(password, "BLOBBENCH_FB_PASSWORD");
    const std::string client5 = test::envOrEmpty("BLOBBENCH_FB5_CLIENT");
    std::vector<std::vector<std::string>> runs = {{"check", "fb9060", target, "-u", user}};
    if (!client5.empty()) {
        runs.push_back({"check", "fb9060", target, "-u", user, "--client-library", client5});
    }
    for (const auto& args : runs) {
        const auto r = runCli(args, {"ISC_PASSWORD=" + password});
        EXPECT_EQ(r.exitCode, 0) << r.out << r.err;
        EXPECT_NE(r.out.find("These versions: not affected: no inline BLOBs (a side is older than 5.0.3)"),
                  std::string::npos)
            << r.out;
        EXPECT_NE(r.out.find("the attachment reports: not in effect"), std::string::npos) << r.out;
        EXPECT_EQ(r.out.find("defect seen"), std::string::npos) << r.out;
        EXPECT_NE(r.out.find("Result: not seen\n"), std::string::npos) << r.out;
    }
    EXPECT_EQ(firebirdState(target, user, password).checkTables, "");
}

TEST(Fb9060Check, AServerThatCannotBeReachedIsOneLineAndExitOne) {
    const auto r =
        runCli({"check", "fb9060", "inet://127.0.0.1:1//nowhere.fdb", "-u", "SYSDBA", "-P", "connect_timeout=2"},
               {"ISC_PASSWORD=x"});
    EXPECT_EQ(r.exitCode, 1) << r.out << r.err;
    EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
    EXPECT_NE(r.err.find("firebird:inet://127.0.0.1:1//nowhere.fdb: connect"), std::string::npos) << r.err;
}

}  // namespace

// Hostile round 5c B1: MariaDB's CHAR_LENGTH of a LONGBLOB counts bytes, so the warm-up's longest
// value never equalled the data set's characters and every correct MariaDB data set failed.
TEST(VerifyContent, MariadbVerifiesTheSuiteItsLongestValueInCharacters) {
    BLOBBENCH_REQUIRE_ENV(url, "BLOBBENCH_MARIADB_URL");
    if (runCli({"run", url, "-s", "warm-up", "-r", "1", "-q"}).exitCode != 0) {
        ASSERT_EQ(runCli({"prepare", url, "--rows", kRows, "-q"}).exitCode, 0);
    }
    expectWholeSuiteVerified({url}, {});
}
