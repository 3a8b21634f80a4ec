// Hostile round 5f (docs/hostile-round-5f-2026-12-04.md), the cases that need no server: an export
// that is a FIFO or another non-file (C1), a legal export name of 244-255 bytes (C4), a client library
// that is a FIFO (F3), the check fb9060 table name in two PID namespaces (D1), a URI password with '@',
// '/' and '%' (E3), SQLite URI file names (E5) and a /proc file in prepare --from-folder (J1). The
// server side (D1 at once on Firebird 5, D2, D3, D4): tests/integration/test_round5f.cpp.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <sched.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>

#include <QJsonDocument>
#include <algorithm>
#include <chrono>
#include <filesystem>
#include <regex>
#include <string>
#include <vector>

#include "engine/core/Error.h"
#include "engine/drivers/Driver.h"
#include "engine/drivers/firebird/Fb9060Check.h"
#include "engine/drivers/sqlite/SqliteFileName.h"
#include "model/AtomicFile.h"
#include "model/ProjectFile.h"
#include "support/SocketSupport.h"
#include "support/TestSupport.h"

using namespace blobbench;
using namespace std::chrono_literals;
using blobbench::test::CliProcess;
using blobbench::test::runCli;
using blobbench::test::TempDir;

namespace {

long lines(const std::string& text) {
    return std::count(text.begin(), text.end(), '\n');
}

bool contains(const std::string& text, const std::string& part) {
    return text.find(part) != std::string::npos;
}

std::string closedFirebird() {
    return "inet://127.0.0.1:" + std::to_string(blobbench::test::closedPort()) + "//nowhere/x.fdb";
}

// Runs the CLI in the background and waits at most 20 s: a command blocked in open(2) of a FIFO
// (the failures these tests guard against) is killed and reported as exit -1.
blobbench::test::ProcessResult runBounded(const std::vector<std::string>& args,
                                          const std::vector<std::string>& env = {}) {
    CliProcess run(args, env);
    return run.wait(20s);
}

// A prepared SQLite data set of 20 rows in `dir`.
std::string preparedSqlite(const TempDir& dir) {
    const std::string db = dir.file("s.db");
    const auto r = runCli({"prepare", "sqlite:" + db, "--rows", "20", "-q"});
    EXPECT_EQ(r.exitCode, 0) << r.err;
    return db;
}

}  // namespace

// C1: `--json FIFO` (and --csv, --markdown; run, --sessions, predict, storage, reproduce, the
// fb-blob-test mode) blocked in open(2) for ever, a SIGTERM did nothing. An export that is a
// directory or a socket is refused before anything is measured; a FIFO or a device is written in
// place when the export is written (below).
TEST(Round5fCli, AnExportThatIsADirectoryOrASocketIsRefusedBeforeAnythingIsMeasured) {
    TempDir dir;
    const std::string db = preparedSqlite(dir);
    const std::string samples = dir.file("samples.json");
    ASSERT_EQ(runCli({"run", "sqlite:" + db, "-s", "short-blobs", "-r", "1", "-q", "--json", samples}).exitCode, 0);
    const std::string socketPath = dir.file("sock");
    const int listener = ::socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
    sockaddr_un address{};
    address.sun_family = AF_UNIX;
    std::snprintf(address.sun_path, sizeof address.sun_path, "%s", socketPath.c_str());
    ASSERT_EQ(::bind(listener, reinterpret_cast<const sockaddr*>(&address), sizeof address), 0);
    const std::string sqlite = "sqlite:" + db;
    const std::vector<std::pair<std::string, std::string>> nonFiles = {{dir.file("sub"), "is a directory"},
                                                                       {socketPath, "not a regular file (a socket)"}};
    std::filesystem::create_directories(dir.path() / "sub");
    for (const auto& [path, says] : nonFiles) {
        const std::vector<std::pair<std::string, std::vector<std::string>>> commands = {
            {"--json", {"run", sqlite, "-s", "short-blobs", "-r", "2", "--json", path}},
            {"--csv", {"run", sqlite, "-s", "short-blobs", "-r", "2", "--csv", path}},
            {"--json", {"run", sqlite, "-s", "short-blobs", "--sessions", "2", "-r", "2", "--json", path}},
            {"--markdown", {"predict", samples, "--latency", "10", "--markdown", path}},
            {"--json", {"predict", samples, "--latency", "10", "--json", path}},
            {"--json", {"storage", "footprint", dir.file("fp"), "--count", "10", "--size", "1k", "--json", path}},
            {"--json", {"reproduce", "oracle-securefiles", "--json", path}},
            {"--csv", {"-d", closedFirebird(), "-n", "5", "--csv", path}},
        };
        for (const auto& [option, args] : commands) {
            SCOPED_TRACE(args[0] + " " + option + " " + path);
            const auto r = runBounded(args);
            EXPECT_EQ(r.exitCode, 2) << "-1: blocked for 20 s; " << r.err;
            EXPECT_EQ(lines(r.err), 1) << r.err;
            EXPECT_TRUE(contains(r.err, option + " " + path + ": " + says)) << r.err;
            EXPECT_TRUE(r.out.empty()) << "something ran before the refusal: " << r.out;
        }
    }
    ::close(listener);
    EXPECT_FALSE(std::filesystem::exists(dir.path() / "fp")) << "the study ran";
}

// C1, the FIFO: with no process reading it, the export is refused at once in one line and the report
// is still printed (a signal could not reach a process blocked in open(2)); with a reader (the
// shell's `--json >(jq .)`), the export goes to it whole and once (the rewrites after every sample
// are for regular files only). /dev/null takes an export too.
TEST(Round5fCli, AFifoExportGoesToItsReaderAndWithoutOneIsRefusedAtOnce) {
    TempDir dir;
    const std::string db = preparedSqlite(dir);
    const std::string fifo = dir.file("fifo1");
    ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
    const std::string sqlite = "sqlite:" + db;
    const std::vector<std::vector<std::string>> commands = {
        {"run", sqlite, "-s", "short-blobs", "-r", "2", "--json", fifo},
        {"run", sqlite, "-s", "short-blobs", "--sessions", "2", "-r", "2", "--json", fifo},
        {"reproduce", "oracle-securefiles", "--json", fifo},
    };
    for (const auto& args : commands) {
        SCOPED_TRACE(args[0] + " " + args[3]);
        const auto alone = runBounded(args);
        EXPECT_EQ(alone.exitCode, 1) << "-1: blocked for 20 s; " << alone.err;
        const std::string refusal = "cannot write " + fifo + ": a FIFO no process reads";
        EXPECT_TRUE(contains(alone.err, refusal)) << alone.err;
        EXPECT_EQ(alone.err.find(refusal), alone.err.rfind(refusal)) << "said once: " << alone.err;
        EXPECT_FALSE(alone.out.empty()) << "the report is printed whatever the export";

        // A reader that does not wait (the export is small: the pipe holds it until it is read).
        const int reader = ::open(fifo.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC);
        ASSERT_GE(reader, 0);
        const auto read = runBounded(args);
        std::string got;
        char buffer[4096];
        for (ssize_t n; (n = ::read(reader, buffer, sizeof buffer)) > 0;) {
            got.append(buffer, static_cast<std::size_t>(n));
        }
        ::close(reader);
        EXPECT_EQ(read.exitCode, 0) << read.err;
        const QJsonDocument json = QJsonDocument::fromJson(QByteArray::fromStdString(got));
        EXPECT_TRUE(json.isObject()) << "the reader got: " << got.substr(0, 200);
    }
    const auto null = runBounded({"run", sqlite, "-s", "short-blobs", "-r", "1", "-q", "--json", "/dev/null"});
    EXPECT_EQ(null.exitCode, 0) << null.err;
}

// C1, below the options: a FIFO that takes an export's place during a run (after the options were
// checked) is opened without waiting: refused at once with no reader, written with one.
TEST(Round5fCli, WriteFileAtomicallyOpensAFifoWithoutWaiting) {
    TempDir dir;
    const std::string fifo = dir.file("x.json");
    ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
    try {
        writeFileAtomically(QString::fromStdString(fifo), QByteArray("{}"));
        ADD_FAILURE() << "a FIFO with no reader was written";
    } catch (const Error& e) {
        EXPECT_EQ(std::string(e.what()), "cannot write " + fifo + ": a FIFO no process reads (start its reader first)");
    }
    const int reader = ::open(fifo.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC);
    ASSERT_GE(reader, 0);
    EXPECT_NO_THROW(writeFileAtomically(QString::fromStdString(fifo), QByteArray("{}")));
    char got[8] = {};
    EXPECT_EQ(::read(reader, got, sizeof got), 2);
    EXPECT_STREQ(got, "{}");
    ::close(reader);
    EXPECT_NO_THROW(writeFileAtomically(QStringLiteral("/dev/null"), QByteArray("{}")));
    EXPECT_THROW(writeFileAtomically(QString::fromStdString(dir.path().string()), QByteArray("{}")), Error);
}

// C4: a --json whose legal name has 244-255 bytes failed "File name too long" and stopped the run:
// its temporary file NAME.tmp-XXXXXX passed the 255-byte limit. The temporary name now fits.
TEST(Round5fCli, AnExportWhoseLegalNameIsLongIsWritten) {
    TempDir dir;
    const std::string db = preparedSqlite(dir);
    for (const std::size_t length : {244u, 250u, 255u}) {
        SCOPED_TRACE(length);
        const std::string json = dir.file(std::string(length - 5, 'n') + ".json");
        const std::string csv = dir.file(std::string(length - 4, 'c') + ".csv");
        const auto r =
            runCli({"run", "sqlite:" + db, "-s", "short-blobs", "-r", "2", "-q", "--json", json, "--csv", csv});
        EXPECT_EQ(r.exitCode, 0) << r.err;
        EXPECT_TRUE(r.err.empty()) << r.err;
        EXPECT_TRUE(QJsonDocument::fromJson(QByteArray::fromStdString(blobbench::test::readFile(json))).isObject());
        EXPECT_TRUE(contains(blobbench::test::readFile(csv), "short-blobs"));
        // Written a second time over the first (the temporary name beside it, then the rename).
        writeFileAtomically(QString::fromStdString(json), QByteArray("{\"again\": 1}"));
        EXPECT_EQ(blobbench::test::readFile(json), "{\"again\": 1}");
    }
    std::vector<std::string> left;
    for (const auto& entry : std::filesystem::directory_iterator(dir.path())) {
        const std::string name = entry.path().filename().string();
        if (contains(name, ".tmp-") || name.starts_with(".bb-")) {
            left.push_back(name);
        }
    }
    EXPECT_TRUE(left.empty()) << "a temporary file was left: " << left.front();
}

// F3: --client-library naming a FIFO blocked in dlopen (open(2) waits for a writer) before any
// connect timeout: refused at once, also a bare name found in LD_LIBRARY_PATH (an empty entry is the
// working directory), and a project's stored client library.
TEST(Round5fCli, AClientLibraryThatIsAFifoIsRefusedAtOnce) {
    TempDir dir;
    const std::string fifo = dir.file("libfb.fifo");
    ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
    const std::string target = closedFirebird();
    const std::vector<std::vector<std::string>> commands = {
        {"run", target, "-u", "SYSDBA", "-s", "short-blobs", "--client-library", fifo},
        {"prepare", target, "-u", "SYSDBA", "--client-library", fifo},
        {"check", "fb9060", target, "-u", "SYSDBA", "--client-library", fifo},
        {"storage", "insert", target, "-u", "SYSDBA", "--rows", "10", "--client-library", fifo},
        {"reproduce", "firebird-wire-blobs", target, "-u", "SYSDBA", "--client-library", fifo},
        {"-d", target, "-u", "SYSDBA", "--client-library", fifo},
    };
    for (const auto& args : commands) {
        SCOPED_TRACE(args[0] + " " + args[1]);
        const auto r = runBounded(args, {"ISC_PASSWORD=x"});
        EXPECT_EQ(r.exitCode, 2) << "-1: blocked for 20 s; " << r.err;
        EXPECT_EQ(lines(r.err), 1) << r.err;
        EXPECT_TRUE(contains(r.err, "--client-library " + fifo + ": not a regular file (a FIFO)")) << r.err;
    }
    const auto bare = runBounded({"run", target, "-u", "SYSDBA", "-s", "short-blobs", "--client-library", "libfb.fifo"},
                                 {"ISC_PASSWORD=x", "LD_LIBRARY_PATH=/nonexistent:" + dir.path().string()});
    EXPECT_EQ(bare.exitCode, 2) << "-1: blocked for 20 s; " << bare.err;
    EXPECT_TRUE(contains(bare.err, "--client-library libfb.fifo: " + fifo + ": not a regular file (a FIFO)"))
        << bare.err;
    // A project's connection names the FIFO: the driver refuses it (exit 1, a connect failure).
    Project p = defaultProject(QString::fromStdString(dir.file("unused.sqlite")));
    ConnectionProfile fb;
    fb.name = QStringLiteral("fb");
    fb.engine = QStringLiteral("firebird");
    fb.target = QString::fromStdString(target);
    fb.user = QStringLiteral("SYSDBA");
    fb.clientLibrary = QString::fromStdString(fifo);
    p.connections = {fb};
    p.currentConnection = 0;
    const std::string project = dir.file("fb.blobbench.json");
    saveProject(QString::fromStdString(project), p);
    const auto stored = runBounded({"run", project, "-s", "warm-up", "-q", "--no-save"}, {"ISC_PASSWORD=x"});
    EXPECT_EQ(stored.exitCode, 1) << "-1: blocked for 20 s; " << stored.err;
    EXPECT_TRUE(
        contains(stored.err, "cannot load the Firebird client library '" + fifo + "': not a regular file (a FIFO)"))
        << stored.err;
}

// D1: the check's table was BLOBBENCH_FB9060_<pid>, and two checks in two PID namespaces (both pid 1)
// met on one table. Now the pid and a random part, the same for the whole process, in 31 characters.
TEST(Round5fCli, Fb9060TableNamesDifferBetweenProcessesOfOnePid) {
    // Two processes that are each pid 1 of a PID namespace of their own, as two containers. First,
    // before this process has a name of its own that a fork would inherit.
    std::vector<std::string> names;
    for (int i = 0; i < 2; ++i) {
        int pipeFds[2];
        ASSERT_EQ(::pipe(pipeFds), 0);
        const pid_t child = ::fork();
        ASSERT_GE(child, 0);
        if (child == 0) {
            ::close(pipeFds[0]);
            if (::unshare(CLONE_NEWPID) != 0) {
                ::_exit(3);
            }
            const pid_t inner = ::fork();
            if (inner == 0) {
                const std::string mine = fb9060TableName();
                (void)!::write(pipeFds[1], mine.data(), mine.size());
                ::_exit(::getpid() == 1 ? 0 : 4);
            }
            int status = 0;
            ::waitpid(inner, &status, 0);
            ::_exit(WIFEXITED(status) ? WEXITSTATUS(status) : 5);
        }
        ::close(pipeFds[1]);
        std::string got;
        char buffer[64];
        for (ssize_t n; (n = ::read(pipeFds[0], buffer, sizeof buffer)) > 0;) {
            got.append(buffer, static_cast<std::size_t>(n));
        }
        ::close(pipeFds[0]);
        int status = 0;
        ::waitpid(child, &status, 0);
        if (WIFEXITED(status) && WEXITSTATUS(status) == 3) {
            GTEST_SKIP() << "no PID namespace here (unshare needs CAP_SYS_ADMIN)";
        }
        ASSERT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << status;
        EXPECT_TRUE(got.starts_with("BLOBBENCH_FB9060_1_")) << got;
        names.push_back(got);
    }
    EXPECT_NE(names[0], names[1]) << "two checks of pid 1 would meet on " << names[0];
    const std::string name = fb9060TableName();
    EXPECT_EQ(fb9060TableName(), name) << "two names in one process: the cleanup would miss the table";
    EXPECT_LE(name.size(), 31u) << name;
    EXPECT_TRUE(std::regex_match(name, std::regex("BLOBBENCH_FB9060_" + std::to_string(::getpid()) + "_[0-9A-Z]{6}")))
        << name;
}

// E3: a URI password with an unencoded '@', '/' and '%' was masked only up to its first '@':
// `mariadb://odd:***@ss/w%rd:x@...` showed 9 of its 11 characters. The user info runs to the last
// '@' before the host, as libmariadb and BlobBench's MariaDB parser read it, in every URI form.
TEST(Round5fMasking, AUriPasswordIsMaskedUpToTheLastAtBeforeTheHost) {
    for (const std::string scheme : {"mariadb", "mysql", "postgresql", "postgres"}) {
        SCOPED_TRACE(scheme);
        const std::string front = scheme + "://odd:";
        EXPECT_EQ(maskTarget(front + "p@ss/w%rd:x@127.0.0.1:3398/h5f"), front + "***@127.0.0.1:3398/h5f");
        EXPECT_EQ(maskTarget(front + "Sec@ret9/x%zz@127.0.0.1:5432/h5f_a"), front + "***@127.0.0.1:5432/h5f_a");
        EXPECT_EQ(maskTarget(front + "a/b@c/d@e@[::1]:3306/db?ssl=1"), front + "***@[::1]:3306/db?ssl=1");
        EXPECT_EQ(maskTarget(front + "p@ss/w%rd:x@h/db?user=me@server"), front + "***@h/db?user=me@server");
        // In a line of text: the password of each URI, nothing after the host.
        EXPECT_EQ(maskSecrets("blobbench-cli: " + front + "p@ss/w%rd:x@127.0.0.1:3398/h5f: connect: mariadb: " + front +
                              "p@ss/w%rd:x@127.0.0.1:3398/h5f: a '%' in the password"),
                  "blobbench-cli: " + front + "***@127.0.0.1:3398/h5f: connect: mariadb: " + front +
                      "***@127.0.0.1:3398/h5f: a '%' in the password");
        // What was right stays so.
        EXPECT_EQ(maskTarget(front + "secret@h:5432/db"), front + "***@h:5432/db");
        EXPECT_EQ(maskTarget(scheme + "://h:5432/db?user=me@server"), scheme + "://h:5432/db?user=me@server");
        EXPECT_EQ(maskTarget(scheme + "://u@h/db"), scheme + "://u@h/db");
        EXPECT_EQ(maskSecrets("a " + front + "s1@h/db b " + front + "s2@k/db"),
                  "a " + front + "***@h/db b " + front + "***@k/db");
    }
    EXPECT_EQ((ConnectionSpec{"mariadb", "mariadb://odd:p@ss/w%rd:x@127.0.0.1:3398/h5f"}.label()),
              "mariadb://odd:***@127.0.0.1:3398/h5f");
}

// E3 through the CLI: the MariaDB parser's refusal and libpq's reading of such a URI name no part of
// the password.
TEST(Round5fMasking, TheCliLineShowsNoPartOfTheUriPassword) {
    const std::string port = std::to_string(blobbench::test::closedPort());
    const std::vector<std::pair<std::string, std::vector<std::string>>> cases = {
        {"mariadb://odd:p@ss/w%rd:x@127.0.0.1:" + port + "/h5f", {"p@ss", "ss/w", "w%rd", "rd:x"}},
        {"mysql://odd:p@ss/w%rd:x@127.0.0.1:" + port + "/h5f", {"p@ss", "ss/w", "w%rd", "rd:x"}},
        {"postgresql://postgres:Sec@ret9/x%zz@127.0.0.1:" + port + "/h5f_a", {"Sec", "ret9", "x%zz"}},
    };
    for (const auto& [target, parts] : cases) {
        for (const std::vector<std::string>& args : std::vector<std::vector<std::string>>{
                 {"run", target, "-s", "short-blobs", "-r", "1", "-q"}, {"prepare", target, "--rows", "10", "-q"}}) {
            SCOPED_TRACE(args[0] + " " + target);
            const auto r = runCli(args);
            EXPECT_NE(r.exitCode, 0) << r.err;
            EXPECT_EQ(lines(r.err), 1) << r.err;
            for (const std::string& part : parts) {
                EXPECT_FALSE(contains(r.err + r.out, part)) << "'" << part << "' shown: " << r.err;
            }
            EXPECT_TRUE(contains(r.err, ":***@127.0.0.1:" + port)) << r.err;
        }
    }
}

// E5: `prepare "sqlite:file:/x/x.db?mode=rwc"` wrote /x/x.db, and `run` on the same string said "no
// such database file ... prepare it first": run took the URI for a path. SQLite's URI file names are
// read as SQLite reads them.
TEST(Round5fCli, RunReadsTheSqliteUriFileNamePrepareWrote) {
    TempDir dir;
    const std::string file = dir.file("x.db");
    const std::string uri = "sqlite:file:" + file + "?mode=rwc";
    const auto prepared = runCli({"prepare", uri, "--rows", "10", "-q"});
    ASSERT_EQ(prepared.exitCode, 0) << prepared.err;
    ASSERT_TRUE(std::filesystem::exists(file));
    for (const std::string& target : {uri, "sqlite:file:" + file + "?mode=ro", "sqlite:file://localhost" + file,
                                      "sqlite:file:" + file, "sqlite:file:" + file + "?immutable=1#x"}) {
        SCOPED_TRACE(target);
        const auto r = runCli({"run", target, "-s", "short-blobs", "-r", "1", "-q"});
        EXPECT_EQ(r.exitCode, 0) << r.err;
        EXPECT_TRUE(contains(r.out, "Record count: ")) << r.out;
    }
    // A file name with a space, written %20 in the URI.
    const std::string spaced = dir.file("a b.db");
    std::filesystem::copy_file(file, spaced);
    const auto encoded = runCli({"run", "sqlite:file:" + dir.file("a%20b.db") + "?mode=ro", "-s", "short-blobs", "-q"});
    EXPECT_EQ(encoded.exitCode, 0) << encoded.err;
    // A URI of a missing file is still refused, naming it as given, and creates nothing.
    const std::string missing = "sqlite:file:" + dir.file("nx.db") + "?mode=rwc";
    const auto none = runCli({"run", missing, "-s", "short-blobs", "-q"});
    EXPECT_EQ(none.exitCode, 1) << none.err;
    EXPECT_TRUE(contains(none.err,
                         "no such database file (a read creates none; prepare it first: blobbench-cli "
                         "prepare " +
                             missing))
        << none.err;
    EXPECT_FALSE(std::filesystem::exists(dir.path() / "nx.db"));
    // The URI's file is the database: an export over it is refused.
    const auto over = runCli({"run", "sqlite:file:" + file + "?mode=ro", "--json", file});
    EXPECT_EQ(over.exitCode, 2) << over.err;
    EXPECT_TRUE(contains(over.err, "--json and the database or project name the same file")) << over.err;
}

TEST(Round5fCli, SqliteFileNamesAreReadAsSqliteReadsThem) {
    EXPECT_EQ(sqliteFileOf("/x/s.db"), "/x/s.db");
    EXPECT_EQ(sqliteFileOf("rel.db"), "rel.db");
    EXPECT_EQ(sqliteFileOf("file:/x/s.db?mode=ro"), "/x/s.db");
    EXPECT_EQ(sqliteFileOf("file:///x/s.db"), "/x/s.db");
    EXPECT_EQ(sqliteFileOf("file://localhost/x/s.db?cache=shared"), "/x/s.db");
    EXPECT_EQ(sqliteFileOf("file:s%20b.db#frag"), "s b.db");
    EXPECT_EQ(sqliteFileOf("file:x.db?vfs=unix&mode=ro"), "x.db");
    EXPECT_EQ(sqliteFileOf(":memory:"), std::nullopt);
    EXPECT_EQ(sqliteFileOf("file::memory:"), std::nullopt);
    EXPECT_EQ(sqliteFileOf("file:x.db?mode=memory"), std::nullopt);
    EXPECT_EQ(sqliteFileOf("file://otherhost/x.db"), "file://otherhost/x.db");  // SQLite refuses it, and says so
    EXPECT_EQ(sqliteUriParameter("file:x.db?a=1&mode=rwc", "mode"), "rwc");
    EXPECT_EQ(sqliteUriParameter("/x/s.db?mode=rwc", "mode"), "");
}

// J1: prepare --from-folder with a link to /proc/self/status ended "internal error:
// basic_string::_M_replace_aux", naming no file (its size is 0; a seek to its end reports -1). Such a
// file is refused in one line naming it, before the database is written.
TEST(Round5fCli, PrepareFromAFolderWithAProcFileNamesTheFile) {
    TempDir dir;
    std::filesystem::create_directories(dir.path() / "src");
    blobbench::test::writeFile(dir.path() / "src" / "a.txt", "a\n");
    const std::string proc = dir.file("src/procfile");
    std::filesystem::create_symlink("/proc/self/status", proc);
    const std::string db = dir.file("from.db");
    const auto r = runCli({"prepare", "sqlite:" + db, "--from-folder", dir.file("src"), "--rows", "10", "-q"});
    EXPECT_EQ(r.exitCode, 1) << r.err;
    EXPECT_EQ(lines(r.err), 1) << r.err;
    EXPECT_FALSE(contains(r.err, "internal error")) << r.err;
    EXPECT_TRUE(contains(r.err, proc + ": its size is 0 but it reads as more")) << r.err;
    EXPECT_FALSE(std::filesystem::exists(db)) << "the database was written before the refusal";
    // An empty file (size 0, reads as nothing) is loaded as an empty value, as before.
    std::filesystem::remove(proc);
    blobbench::test::writeFile(dir.path() / "src" / "empty.txt", "");
    const auto ok = runCli({"prepare", "sqlite:" + db, "--from-folder", dir.file("src"), "--rows", "10", "-q"});
    EXPECT_EQ(ok.exitCode, 0) << ok.err;
}
