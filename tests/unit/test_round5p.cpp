// Hostile round 5p (docs/hostile-round-5p-2026-12-06.md) without a server: prepare over a SHORT_CONTENT
// value or a SHORT_BLOB flag changed (A2), a column the user added (A3), a folder set's BLOB_SAMPLE value
// changed in place (A5); an export on this process's own stdout written after what it printed there (B2),
// once (B3); outputs over a Firebird database's file named through this machine's host name (C2), by
// storage insert (C3) and by a project run (C4).
#include <fcntl.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <QByteArray>
#include <QJsonDocument>
#include <filesystem>
#include <string>

#include "support/TestSupport.h"

using namespace std::chrono_literals;
using blobbench::test::CliProcess;
using blobbench::test::runCli;
using blobbench::test::TempDir;

namespace {

TEST(Round5p, PrepareRefusesShortValuesFlagsAndColumnsItDidNotMake) {
    TempDir dir;
    const std::string file = dir.file("s.db");
    ASSERT_EQ(runCli({"prepare", "sqlite:" + file, "--rows", "30", "-q"}).exitCode, 0);
    struct Case {
        const char* what;
        const char* change;
        const char* says;
    };
    for (const Case& c :
         {Case{"SHORT_CONTENT changed in place",
               "UPDATE BLOB_TEST SET SHORT_CONTENT = upper(SHORT_CONTENT) WHERE ID = (SELECT MIN(ID) FROM "
               "BLOB_TEST WHERE SHORT_CONTENT IS NOT NULL)",
               "BLOB_TEST holds 1 value BlobBench did not prepare (row "},
          Case{"a SHORT_BLOB flag flipped", "UPDATE BLOB_TEST SET SHORT_BLOB = NOT SHORT_BLOB WHERE ID = 2",
               "BLOB_TEST has SHORT_BLOB set on "},
          Case{"a column added", "ALTER TABLE BLOB_TEST ADD COLUMN NOTE TEXT",
               "BLOB_TEST has a column NOTE BlobBench did not make"}}) {
        SCOPED_TRACE(c.what);
        const std::string copy = dir.file("copy.db");
        std::filesystem::copy_file(file, copy, std::filesystem::copy_options::overwrite_existing);
        blobbench::test::sqliteExecute(copy, {c.change});
        const auto refused = runCli({"prepare", "sqlite:" + copy, "--rows", "3", "-q"});
        EXPECT_EQ(refused.exitCode, 2) << refused.err;
        EXPECT_NE(refused.err.find(c.says), std::string::npos) << refused.err;
    }
    // A folder's data set: BLOB_SAMPLE's values are compared too.
    const std::string folder = dir.file("files");
    std::filesystem::create_directory(folder);
    blobbench::test::writeFile(folder + "/a.txt", std::string(3000, 'a'));
    blobbench::test::writeFile(folder + "/b.txt", std::string(5000, 'b'));
    const std::string fromFolder = dir.file("f.db");
    ASSERT_EQ(runCli({"prepare", "sqlite:" + fromFolder, "--from-folder", folder, "--rows", "4", "-q"}).exitCode, 0);
    blobbench::test::sqliteExecute(fromFolder, {"UPDATE BLOB_SAMPLE SET CONTENT = upper(CONTENT) WHERE ID = 1"});
    const auto sample = runCli({"prepare", "sqlite:" + fromFolder, "--from-folder", folder, "--rows", "4", "-q"});
    EXPECT_EQ(sample.exitCode, 2) << sample.err;
    EXPECT_NE(sample.err.find("BLOB_SAMPLE holds 1 value BlobBench did not prepare"), std::string::npos) << sample.err;
}

// The process's stdout redirected to a file, an export named on a link to it: the report and the export
// both whole, one after the other.
std::string capturedRun(const TempDir& dir, const std::vector<std::string>& args) {
    const std::string captured = dir.file("captured.txt");
    const int fd = ::open(captured.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    EXPECT_GE(fd, 0);
    CliProcess run(args, {}, fd);
    ::close(fd);
    const auto r = run.wait(120s);
    EXPECT_EQ(r.exitCode, 0) << r.err;
    return blobbench::test::readFile(captured);
}

TEST(Round5p, AnExportOnTheProcesssOwnStdoutComesAfterWhatItPrintedThereOnce) {
    TempDir dir;
    const std::string db = dir.file("s.db");
    ASSERT_EQ(runCli({"prepare", "sqlite:" + db, "--rows", "20", "-q"}).exitCode, 0);
    const std::string project = dir.file("p.blobbench.json");
    blobbench::test::writeFile(project, R"({"formatVersion": 1, "name": "b2", "currentConnection": 0,
        "connections": [{"name": "s", "engine": "sqlite", "target": "sqlite:)" +
                                            db + R"("}],
        "scenarios": [{"id": "one", "sql": "SELECT ID, CONTENT FROM BLOB_TEST"}]})");
    const std::string link = dir.file("out");
    std::filesystem::create_symlink("/proc/self/fd/1", link);
    // B2: a project run prints its table after the export is written.
    std::string out = capturedRun(dir, {"run", project, "-r", "2", "--no-save", "--json", link});
    std::size_t json = out.find("{\n");
    ASSERT_NE(json, std::string::npos) << out;
    EXPECT_NE(out.find("one median"), std::string::npos) << "the report is kept: " << out;
    QJsonParseError error{};
    QJsonDocument::fromJson(QByteArray::fromStdString(out.substr(json, out.rfind('}') + 1 - json)), &error);
    EXPECT_EQ(error.error, QJsonParseError::NoError) << out;
    // B3: storage insert writes its JSON there once, at the end.
    out = capturedRun(
        dir, {"storage", "insert", "sqlite:" + dir.file("ins"), "--rows", "50", "--size", "1k", "-q", "--json", link});
    EXPECT_EQ(out.find("\"results\""), out.rfind("\"results\"")) << "one document: " << out;
    EXPECT_NE(out.find("\"results\""), std::string::npos) << out;
}

TEST(Round5p, OutputsOverAFirebirdDatabaseAreRefusedByEveryCommandThatWrites) {
    TempDir dir;
    const std::string fdb = dir.file("f.fdb");
    blobbench::test::writeFile(fdb, "not really a database");
    char host[256] = {};
    ASSERT_EQ(::gethostname(host, sizeof host - 1), 0);
    const std::string project = dir.file("p.blobbench.json");
    blobbench::test::writeFile(project, R"({"formatVersion": 1, "name": "c4", "currentConnection": 0,
        "connections": [{"name": "f", "engine": "firebird", "target": "inet://127.0.0.1:1/)" +
                                            fdb + R"("}],
        "scenarios": [{"id": "one", "sql": "SELECT 1 FROM RDB$DATABASE"}]})");
    struct Case {
        std::vector<std::string> args;
        std::string says;
    };
    for (const Case& c :
         {Case{{"run", "inet://" + std::string(host) + ":1/" + fdb, "--json", fdb}, "name the same file"},
          Case{{"-d", std::string(host) + ":" + fdb, "-u", "SYSDBA", "--csv", fdb}, "--csv and the database"},
          Case{{"storage", "insert", "inet://127.0.0.1:1/" + fdb, "--rows", "3", "--json", fdb},
               "--json and the database"},
          Case{{"run", project, "--no-save", "--json", fdb}, "--json and the database"},
          Case{{"run", project, "--no-save", "--markdown", fdb}, "--markdown and the database"}}) {
        SCOPED_TRACE(testing::PrintToString(c.args));
        const auto r = runCli(c.args);
        EXPECT_EQ(r.exitCode, 2) << r.err;
        EXPECT_NE(r.err.find(c.says), std::string::npos) << r.err;
        EXPECT_EQ(blobbench::test::readFile(fdb), "not really a database");
    }
}

}  // namespace
