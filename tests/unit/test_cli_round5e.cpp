// Hostile round 5e (docs/hostile-round-5e-2026-12-03.md), the cases that need no server: exports
// through a link (C1), reproduce --list --json (C6), a --json over a study's own files (C9), bidi
// controls in error lines (C10), storage insert over a foreign database (D5), check fb9060's stall
// timeout (G2), --connection '' and a shared name (H2), reproduce postgres-bytea-2007's -P and its
// connect line (B6), and bytea's stall timeout on the second host of a list (B1, a silent stand-in;
// the real server behind a relay: tests/integration/test_stall_multihost.cpp).
#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <fstream>

#include "engine/core/Printable.h"
#include "support/SocketSupport.h"
#include "support/TestSupport.h"

using blobbench::test::runCli;
using blobbench::test::TempDir;

namespace {

int lines(const std::string& text) {
    return static_cast<int>(std::count(text.begin(), text.end(), '\n'));
}

std::string closedFirebird() {
    return "inet://127.0.0.1:" + std::to_string(blobbench::test::closedPort()) + "//nowhere/x.fdb";
}

bool isSqliteFile(const std::filesystem::path& path) {
    return blobbench::test::readFile(path).starts_with(std::string("SQLite format 3\0", 16));
}

}  // namespace

// C1: an export named through a link to another export of the same run, whose target is not written
// yet, was taken as another file: the CSV went over the JSON.
TEST(Round5eCli, AnExportThroughALinkToAnotherIsRefused) {
    TempDir dir;
    std::filesystem::create_directories(dir.path() / "sub");
    std::filesystem::create_symlink("x.json", dir.path() / "lnk.json");
    std::filesystem::create_symlink("../x.json", dir.path() / "sub" / "up.json");
    std::filesystem::create_symlink("lnk.json", dir.path() / "chain.json");  // a link to the link
    const std::string database = "sqlite:" + dir.file("nowhere.sqlite");
    for (const std::string& csv : {dir.file("lnk.json"), dir.file("sub/up.json"), dir.file("chain.json")}) {
        for (const std::vector<std::string>& args : std::vector<std::vector<std::string>>{
                 {"-d", closedFirebird(), "-n", "20", "--json", dir.file("x.json"), "--csv", csv},
                 {"run", database, "--json", dir.file("x.json"), "--csv", csv},
                 {"run", database, "--sessions", "2", "--json", dir.file("x.json"), "--csv", csv}}) {
            const auto r = runCli(args);
            EXPECT_EQ(r.exitCode, 2) << csv << ": " << r.out << r.err;
            EXPECT_EQ(lines(r.err), 1) << r.err;
            EXPECT_NE(r.err.find("--json and --csv name the same file"), std::string::npos) << r.err;
            EXPECT_FALSE(std::filesystem::exists(dir.path() / "x.json")) << csv;
        }
    }
    // A link to a file of its own is another file.
    std::filesystem::create_symlink("y.csv", dir.path() / "other.csv");
    const auto r = runCli({"run", database, "--json", dir.file("x.json"), "--csv", dir.file("other.csv")});
    EXPECT_EQ(r.err.find("name the same file"), std::string::npos) << r.err;
}

// C6: `reproduce --list --json FILE` printed the list, wrote nothing and said nothing.
TEST(Round5eCli, ReproduceListRefusesJson) {
    TempDir dir;
    const auto r = runCli({"reproduce", "--list", "--json", dir.file("l.json")});
    EXPECT_EQ(r.exitCode, 2) << r.out << r.err;
    EXPECT_EQ(lines(r.err), 1) << r.err;
    EXPECT_NE(r.err.find("--json does not apply to --list"), std::string::npos) << r.err;
    EXPECT_TRUE(r.out.empty()) << r.out;
    EXPECT_FALSE(std::filesystem::exists(dir.path() / "l.json"));
    const auto list = runCli({"reproduce", "--list"});
    EXPECT_EQ(list.exitCode, 0) << list.err;
    EXPECT_NE(list.out.find("sqlite-35-percent"), std::string::npos) << list.out;
}

// C9: a --json naming the study's own database in its work directory replaced it with the JSON.
TEST(Round5eCli, AStudysJsonIsRefusedOverItsOwnFiles) {
    TempDir dir;
    const std::string work = dir.file("work");
    std::filesystem::create_symlink("work/store.sqlite", dir.path() / "lnk.json");
    ASSERT_EQ(runCli({"storage", "footprint", work, "--count", "20", "--size", "1k"}).exitCode, 0);
    ASSERT_TRUE(isSqliteFile(dir.path() / "work" / "store.sqlite"));
    for (const std::string& json : {work + "/store.sqlite", work + "/./store.sqlite-wal", dir.file("lnk.json"),
                                    work + "/files/x.json", work + "/.blobbench-keyed-study"}) {
        for (const std::vector<std::string>& args : std::vector<std::vector<std::string>>{
                 {"storage", "footprint", work, "--count", "20", "--size", "1k", "--json", json},
                 {"storage", "keyed-read", work, "--count", "20", "--size", "1k", "--json", json},
                 {"reproduce", "sqlite-35-percent", work, "--rows", "20", "--json", json}}) {
            const auto r = runCli(args);
            EXPECT_EQ(r.exitCode, 2) << args[0] << " " << json << ": " << r.out << r.err;
            EXPECT_EQ(lines(r.err), 1) << r.err;
            EXPECT_NE(r.err.find("the study's own"), std::string::npos) << r.err;
            EXPECT_TRUE(isSqliteFile(dir.path() / "work" / "store.sqlite")) << args[0] << " " << json;
        }
    }
    // A directory not written yet, and storage insert's own files.
    const auto fresh = runCli(
        {"reproduce", "sqlite-35-percent", dir.file("new"), "--rows", "20", "--json", dir.file("new/store.sqlite")});
    EXPECT_EQ(fresh.exitCode, 2) << fresh.out << fresh.err;
    EXPECT_FALSE(std::filesystem::exists(dir.path() / "new"));
    const auto insert = runCli({"storage", "insert", "sqlite:" + dir.file("ins"), "--rows", "10", "--variant", "bind",
                                "-q", "--json", dir.file("ins/insert-bind.sqlite")});
    EXPECT_EQ(insert.exitCode, 2) << insert.out << insert.err;
    EXPECT_NE(insert.err.find("the study's own insert-bind.sqlite"), std::string::npos) << insert.err;
    // A JSON elsewhere in the directory is written.
    const auto beside =
        runCli({"storage", "footprint", work, "--count", "20", "--size", "1k", "--json", work + "/footprint.json"});
    EXPECT_EQ(beside.exitCode, 0) << beside.err;
    EXPECT_TRUE(blobbench::test::readFile(work + "/footprint.json").starts_with("{"));
}

// C10: U+202E in an export path reached the terminal raw in an error line (the rest of it shown
// reversed); ESC was escaped already.
TEST(Round5eCli, BidiControlsAreEscapedInErrorLines) {
    TempDir dir;
    const std::string rlo = "\xe2\x80\xae";  // U+202E RIGHT-TO-LEFT OVERRIDE
    const std::string path = dir.file("no" + rlo + "dir/x.json");
    for (const std::vector<std::string>& args : std::vector<std::vector<std::string>>{
             {"reproduce", "oracle-securefiles", "--json", path},
             {"-d", closedFirebird(), "-n", "20", "--json", path, "--csv", path}}) {  // refused, named
        const auto r = runCli(args);
        EXPECT_NE(r.exitCode, 0) << r.out << r.err;
        EXPECT_EQ(r.err.find(rlo), std::string::npos) << r.err;
        EXPECT_NE(r.err.find("no\\u202edir"), std::string::npos) << r.err;
    }
}

TEST(Round5eCli, PrintableEscapesEveryBidiAndLineSeparatingFormatCharacter) {
    const std::vector<std::pair<std::string, std::string>> escaped = {
        {"\xd8\x9c", "\\u061c"},     {"\xe2\x80\x8e", "\\u200e"}, {"\xe2\x80\x8f", "\\u200f"},
        {"\xe2\x80\xa8", "\\u2028"}, {"\xe2\x80\xa9", "\\u2029"}, {"\xe2\x80\xaa", "\\u202a"},
        {"\xe2\x80\xab", "\\u202b"}, {"\xe2\x80\xac", "\\u202c"}, {"\xe2\x80\xad", "\\u202d"},
        {"\xe2\x80\xae", "\\u202e"}, {"\xe2\x81\xa6", "\\u2066"}, {"\xe2\x81\xa7", "\\u2067"},
        {"\xe2\x81\xa8", "\\u2068"}, {"\xe2\x81\xa9", "\\u2069"}};
    for (const auto& [raw, shown] : escaped) {
        EXPECT_EQ(blobbench::printable("a" + raw + "b"), "a" + shown + "b") << shown;
        EXPECT_EQ(blobbench::printable("a" + raw + "b", true), "a" + shown + "b") << shown;
    }
    // Other text stays as it is: letters of any script, a dash, a zero-width joiner in an emoji, and
    // a sequence cut short at the end.
    for (const std::string& kept :
         {std::string("caf\xc3\xa9 \xd8\xb9\xd8\xb1\xd8\xa8\xd9\x8a \xe4\xb8\xad"),
          std::string("a \xe2\x80\x94 b \xe2\x80\xa6"), std::string("\xf0\x9f\x91\xa9\xe2\x80\x8d\xf0\x9f\x92\xbb"),
          std::string("end\xe2\x80")}) {
        EXPECT_EQ(blobbench::printable(kept), kept);
    }
    EXPECT_EQ(blobbench::printable("\x1b[31m\xc2\x9b"), "\\x1b[31m\\u009b");
}

// D5: `storage insert DIR --variant bind` replaced a DIR/insert-bind.sqlite BlobBench had not written.
TEST(Round5eCli, StorageInsertLeavesAForeignDatabaseAlone) {
    TempDir dir;
    const std::filesystem::path mine = dir.path() / "mine";
    std::filesystem::create_directories(mine);
    blobbench::test::writeFile(mine / "insert-bind.sqlite", "my own database\n");
    for (const std::string& target : {mine.string(), "sqlite:" + mine.string()}) {
        const auto r = runCli({"storage", "insert", target, "--rows", "100", "--variant", "bind"});
        EXPECT_EQ(r.exitCode, 2) << r.out << r.err;
        EXPECT_EQ(lines(r.err), 1) << r.err;
        EXPECT_NE(r.err.find("holds insert-bind.sqlite and no earlier run of the study wrote it"), std::string::npos)
            << r.err;
        EXPECT_TRUE(r.out.empty()) << r.out;
        EXPECT_TRUE(blobbench::test::readFile(mine / "insert-bind.sqlite") == "my own database\n");  // not replaced
    }
    // Its journal alone is someone's too; a file of a variant not run is not in the way.
    std::filesystem::remove(mine / "insert-bind.sqlite");
    blobbench::test::writeFile(mine / "insert-zeroblob.sqlite-wal", "wal\n");
    const auto wal = runCli({"storage", "insert", mine.string(), "--rows", "10", "--variant", "zeroblob", "-q"});
    EXPECT_EQ(wal.exitCode, 2) << wal.out << wal.err;
    EXPECT_TRUE(blobbench::test::readFile(mine / "insert-zeroblob.sqlite-wal") == "wal\n");
    const auto other = runCli({"storage", "insert", mine.string(), "--rows", "10", "--variant", "bind", "-q"});
    EXPECT_EQ(other.exitCode, 0) << other.err;
    // That run owns its own file, not the other variant's.
    const auto again = runCli({"storage", "insert", mine.string(), "--rows", "10", "--variant", "zeroblob", "-q"});
    EXPECT_EQ(again.exitCode, 2) << again.out << again.err;
    EXPECT_TRUE(blobbench::test::readFile(mine / "insert-zeroblob.sqlite-wal") == "wal\n");
    // A directory the study wrote: each run replaces its own files.
    const std::string work = dir.file("work");
    for (int run = 0; run < 2; ++run) {
        const auto r = runCli({"storage", "insert", "sqlite:" + work, "--rows", "10", "--variant", "bind", "-q"});
        EXPECT_EQ(r.exitCode, 0) << "run " << run << ": " << r.err;
        EXPECT_TRUE(isSqliteFile(dir.path() / "work" / "insert-bind.sqlite"));
    }
}

// G2: `check fb9060 -P wire_stall_timeout_s=-1` was taken as about 1 s (a check failed on a healthy
// server and its table was left).
TEST(Round5eCli, CheckFb9060RefusesAStallTimeoutOutOfRange) {
    for (const std::string value : {"-1", "3601", "x", "1.5"}) {
        const auto r = runCli({"check", "fb9060", closedFirebird(), "-P", "wire_stall_timeout_s=" + value});
        EXPECT_EQ(r.exitCode, 2) << value << ": " << r.out << r.err;
        EXPECT_EQ(lines(r.err), 1) << r.err;
        EXPECT_NE(r.err.find("wire_stall_timeout_s: '" + value + "' is not valid"), std::string::npos) << r.err;
        EXPECT_TRUE(r.out.empty()) << r.out;
    }
    // In range: taken, and the check goes on to connect (here to a closed port).
    for (const std::string value : {"0", "3600"}) {
        const auto r = runCli({"check", "fb9060", closedFirebird(), "-P", "wire_stall_timeout_s=" + value});
        EXPECT_EQ(r.exitCode, 1) << value << ": " << r.out << r.err;
        EXPECT_EQ(r.err.find("wire_stall_timeout_s"), std::string::npos) << r.err;
    }
}

// H2: `--connection ''` ran the project's current connection, and a name two connections share took
// the first, both without a word.
TEST(Round5eCli, ConnectionByAnEmptyOrSharedName) {
    TempDir dir;
    blobbench::test::sqliteExecute(dir.file("empty-name.sqlite"), {"CREATE TABLE t(x)"});
    auto project = [&](const std::string& secondName) {
        const std::string path = dir.file("p.blobbench.json");
        blobbench::test::writeFile(path, R"({"formatVersion": 1, "name": "h2", "currentConnection": 0, "connections": [
                {"name": "sqlite", "engine": "sqlite", "target": "sqlite:)" +
                                             dir.file("current.sqlite") + R"("},
                {"name": ")" + secondName + R"(", "engine": "sqlite", "target": "sqlite:)" +
                                             dir.file("empty-name.sqlite") + R"("},
                {"name": "sqlite", "engine": "sqlite", "target": "sqlite:)" +
                                             dir.file("third.sqlite") + R"("}],
              "scenarios": [{"id": "one", "sql": "SELECT 1"}]})");
        return path;
    };
    const std::string withEmpty = project("");
    const auto r =
        runCli({"run", withEmpty, "--connection", "", "-r", "1", "--no-save", "-q", "--json", dir.file("h2.json")});
    EXPECT_EQ(r.exitCode, 0) << r.out << r.err;
    const std::string json = blobbench::test::readFile(dir.file("h2.json"));
    EXPECT_NE(json.find("empty-name.sqlite"), std::string::npos) << json;
    EXPECT_EQ(json.find("current.sqlite"), std::string::npos) << json;
    // A name two connections have says so.
    const auto shared = runCli({"run", withEmpty, "--connection", "sqlite", "-r", "1", "--no-save", "-q"});
    EXPECT_EQ(shared.exitCode, 2) << shared.out << shared.err;
    EXPECT_EQ(lines(shared.err), 1) << shared.err;
    EXPECT_NE(shared.err.find("has 2 connections named 'sqlite'"), std::string::npos) << shared.err;
    EXPECT_FALSE(std::filesystem::exists(dir.path() / "current.sqlite"));
    // No connection named '': refused, the names listed.
    const std::string withoutEmpty = project("other");
    const auto none = runCli({"run", withoutEmpty, "--connection", "", "-r", "1", "--no-save", "-q"});
    EXPECT_EQ(none.exitCode, 2) << none.out << none.err;
    EXPECT_EQ(lines(none.err), 1) << none.err;
    EXPECT_NE(none.err.find("has no connection '' (it has: sqlite, other, sqlite)"), std::string::npos) << none.err;
    // --connection '' outside a project is a project's option, as any --connection.
    const auto plain = runCli({"run", "sqlite:" + dir.file("empty-name.sqlite"), "--connection", ""});
    EXPECT_EQ(plain.exitCode, 2) << plain.err;
    EXPECT_NE(plain.err.find("--connection needs a project file"), std::string::npos) << plain.err;
}

// B6: reproduce postgres-bytea-2007 had no -P (its stall timeout stayed 30 s; firebird-wire-blobs too), and a failed
// connect named the relay's rewritten conninfo (its port, a stand-in password file) instead of the one given.
TEST(Round5eCli, ReproduceTakesTheStallTimeoutAndNamesTheConnectionGiven) {
    const std::string a = std::to_string(blobbench::test::closedPort());
    const std::string b = std::to_string(blobbench::test::closedPort());
    const std::string given = "host=127.0.0.1,127.0.0.1 port=" + a + "," + b + " user=postgres dbname=nowhere";
    const auto r = runCli({"reproduce", "postgres-bytea-2007", given, "--size", "65536"});
    EXPECT_EQ(r.exitCode, 1) << r.out << r.err;
    EXPECT_EQ(lines(r.err), 1) << r.err;
    EXPECT_TRUE(r.err.starts_with("blobbench-cli: postgres:" + given + ": connect: ")) << r.err;
    EXPECT_EQ(r.err.find("passfile"), std::string::npos) << r.err;
    EXPECT_EQ(r.err.find("hostaddr"), std::string::npos) << r.err;
    EXPECT_NE(r.err.find("(wire tap: cannot connect to upstream 127.0.0.1:" + a), std::string::npos) << r.err;

    // -P wire_stall_timeout_s: checked, for the publications that talk to a server only.
    const std::string one = "host=127.0.0.1 port=" + a + " user=postgres dbname=nowhere";
    struct Refused {
        std::vector<std::string> args;
        std::string says;
    };
    for (const Refused& c : std::vector<Refused>{
             {{"reproduce", "postgres-bytea-2007", one, "-P", "wire_stall_timeout_s=-1"},
              "wire_stall_timeout_s: '-1' is not valid (expected 0..3600 s)"},
             {{"reproduce", "postgres-bytea-2007", one, "-P", "fetch_mode=cursor"},
              "-P takes wire_stall_timeout_s=N only"},
             {{"reproduce", "postgres-bytea-2007", one, "-P", "wire_stall_timeout_s=3", "-P", "wire_stall_timeout_s=4"},
              "-P is given twice"},
             {{"reproduce", "sqlite-35-percent", "-P", "wire_stall_timeout_s=3"}, "-P does not apply to it"},
             {{"reproduce", "oracle-securefiles", "-P", "wire_stall_timeout_s=3"}, "-P does not apply to it"}}) {
        TempDir dir;
        const auto refused = runCli(c.args, {"TMPDIR=" + dir.path().string()});
        EXPECT_EQ(refused.exitCode, 2) << c.says << ": " << refused.out << refused.err;
        EXPECT_EQ(lines(refused.err), 1) << refused.err;
        EXPECT_NE(refused.err.find(c.says), std::string::npos) << refused.err;
    }

    // Taken: a server that accepts and then says nothing is cut after 1 s, not 30 (both publications
    // that talk to a server).
    blobbench::test::ScriptedServer silent([](int fd) { blobbench::test::readToEnd(fd); });
    const std::string port = std::to_string(silent.port());
    for (const std::vector<std::string>& args : std::vector<std::vector<std::string>>{
             {"reproduce", "postgres-bytea-2007", "host=127.0.0.1 port=" + port + " user=postgres dbname=x", "--size",
              "65536", "-P", "wire_stall_timeout_s=1"},
             {"reproduce", "firebird-wire-blobs", "inet://127.0.0.1:" + port + "//x.fdb", "-u", "SYSDBA", "--rows",
              "20", "-P", "wire_stall_timeout_s=1"}}) {
        const auto t0 = std::chrono::steady_clock::now();
        const auto cut = runCli(args);
        const double took = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
        EXPECT_EQ(cut.exitCode, 1) << args[1] << ": " << cut.out << cut.err;
        EXPECT_NE(cut.err.find("no data for 1 s (stall timeout)"), std::string::npos) << args[1] << ": " << cut.err;
        EXPECT_LT(took, 12.0) << args[1] << ": " << cut.err;  // the default is 30 s
    }
}

// B1: the stall timeout outside `run` watched the connections to the first port of the list only;
// libpq went on to the second host, and a silent server there held bytea until libpq's own connect
// timeout (and, behind the real server, for good: tests/integration/test_stall_multihost.cpp).
TEST(Round5eCli, ByteaWatchesTheSecondHostOfAList) {
    blobbench::test::ScriptedServer silent([](int fd) { blobbench::test::readToEnd(fd); });
    const std::string conn = "host=127.0.0.1,127.0.0.1 port=" + std::to_string(blobbench::test::closedPort()) + "," +
                             std::to_string(silent.port()) + " user=postgres dbname=x";
    for (const std::vector<std::string>& args : std::vector<std::vector<std::string>>{
             {"bytea", conn, "--size", "64k", "-r", "1", "-P", "wire_stall_timeout_s=1"},
             {"prepare", conn, "--rows", "10", "-q", "-P", "wire_stall_timeout_s=1"},
             {"storage", "insert", conn, "--rows", "10", "--variant", "bytea-main", "-q", "-P",
              "wire_stall_timeout_s=1"}}) {
        const auto t0 = std::chrono::steady_clock::now();
        const auto r = runCli(args);
        const double took = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
        EXPECT_EQ(r.exitCode, 1) << args[0] << ": " << r.out << r.err;
        EXPECT_NE(r.err.find("no data for 1 s (stall timeout)"), std::string::npos) << args[0] << ": " << r.err;
        EXPECT_LT(took, 12.0) << args[0] << ": " << r.err;
        EXPECT_GT(silent.accepted(), 0) << args[0] << ": libpq never reached the second host";
    }
}
