// blobbench-cli's command line read in process (the blobbench_cli library): the command table, the
// shared option set's parser and the one progress line, without starting a subprocess. Each row of
// a table is a case that a failure names.
#include <gtest/gtest.h>

#include <iostream>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "app/cli/CliOptions.h"
#include "app/cli/Commands.h"
#include "app/cli/ExitCodes.h"
#include "app/cli/ProgressLine.h"
#include "engine/core/Error.h"
#include "support/TestSupport.h"

using blobbench::Error;
using blobbench::ErrorKind;
using namespace blobbench::cli;

namespace {

std::string commandName(Command c) {
    switch (c) {
        case Command::Default:
            return "default";
        case Command::Prepare:
            return "prepare";
        case Command::Run:
            return "run";
        case Command::Engines:
            return "engines";
        case Command::Bytea:
            return "bytea";
        case Command::Predict:
            return "predict";
        case Command::Help:
            return "help";
        case Command::Version:
            return "version";
    }
    return "?";
}

// What a parse gave, as "key=value" words a row can look for.
std::string described(const CliOptions& o) {
    std::ostringstream s;
    s << "command=" << commandName(o.command) << " database=" << o.database << " engine=" << o.engine
      << " user=" << o.user << " repeat=" << o.repeat << " warmup=" << o.warmup << " json=" << o.jsonPath
      << " csv=" << o.csvPath << " markdown=" << o.markdownPath << " quiet=" << o.quiet << " tap=" << o.wireTap
      << " notap=" << o.noTap << " linkSet=" << o.linkSet << " sessions=" << o.sessions.value_or(0)
      << " shared=" << o.sharedLink << " rows=" << o.rows.value_or(0) << " binary=" << o.binary
      << " limit=" << o.limitRows.value_or(0) << " verify=" << o.verifyContent << " advise=" << o.advise
      << " sweep=" << o.sweep << " compare=" << o.compare << " nosave=" << o.noSave;
    for (const auto& s2 : o.scenarios) {
        s << " scenario=" << s2;
    }
    for (const auto& [id, value] : o.parameters) {
        s << " P:" << id << "=" << value;
    }
    s << " down=" << o.link.bandwidthDown << " up=" << o.link.bandwidthUp;
    return s.str();
}

struct Accepted {
    std::string name;
    std::vector<std::string> args;
    std::vector<std::string> expect;  // words of described() the parse must give
};

void PrintTo(const Accepted& row, std::ostream* os) {
    *os << row.name;
}

class ParseAccepts : public ::testing::TestWithParam<Accepted> {};

TEST_P(ParseAccepts, GivesWhatTheCommandLineSays) {
    const Accepted& row = GetParam();
    const std::string got = described(parseArguments(row.args));
    for (const std::string& word : row.expect) {
        EXPECT_NE((" " + got + " ").find(" " + word + " "), std::string::npos) << word << " not in: " << got;
    }
}

INSTANTIATE_TEST_SUITE_P(
    CliOptions, ParseAccepts,
    ::testing::Values(
        Accepted{"NothingIsTheDefaultSuite", {}, {"command=default", "database=", "repeat=1"}},
        Accepted{"AConnectionAloneIsRun", {"sqlite:/tmp/x.db"}, {"command=run", "database=sqlite:/tmp/x.db"}},
        Accepted{"RunWithRepeatAndWarmup",
                 {"run", "pg.example", "-r", "3", "--warmup=2", "-e", "postgres"},
                 {"command=run", "database=pg.example", "repeat=3", "warmup=2", "engine=postgres"}},
        Accepted{"PrepareRowsBinary",
                 {"prepare", "sqlite:/tmp/p.db", "--rows", "300", "--binary"},
                 {"command=prepare", "rows=300", "binary=1"}},
        Accepted{"RowsOfTheDefaultDataSet", {"--rows", "20", "--seed", "3", "-q"}, {"command=run", "rows=20"}},
        Accepted{"ScenariosAccumulate",
                 {"run", "x.db", "-s", "warm-up", "--scenario", "short-blobs"},
                 {"scenario=warm-up", "scenario=short-blobs"}},
        Accepted{"TunablesBySpelling",
                 {"run", "x.db", "-P", "protocol=binary", "--param=fetch_size=100"},
                 {"P:protocol=binary", "P:fetch_size=100"}},
        Accepted{"ABandwidthTurnsTheTapOn",
                 {"run", "postgresql://h/d", "--bandwidth", "2M"},
                 {"tap=1", "linkSet=1", "down=2000000", "up=2000000"}},
        Accepted{"OneDirectionOnly", {"run", "postgresql://h/d", "--down", "8M"}, {"down=8000000", "tap=1"}},
        Accepted{"NoTap", {"run", "postgresql://h/d", "--no-tap"}, {"notap=1", "tap=0"}},
        Accepted{"Exports",
                 {"run", "x.db", "--json", "a.json", "--csv=b.csv", "-q"},
                 {"json=a.json", "csv=b.csv", "quiet=1"}},
        Accepted{
            "SessionsClosedLoop",
            {"run", "postgresql://h/d", "--sessions", "4", "--duration", "5", "--shared-link", "--bandwidth", "4M"},
            {"sessions=4", "shared=1"}},
        Accepted{"ProjectOptions",
                 {"run", "p.blobbench.json", "--sweep", "fetch_size", "--compare", "last", "--no-save", "--markdown",
                  "m.md"},
                 {"sweep=fetch_size", "compare=last", "nosave=1", "markdown=m.md"}},
        Accepted{
            "PredictAdvise", {"predict", "s.json", "--latency", "20", "--advise"}, {"command=predict", "advise=1"}},
        Accepted{"Bytea", {"bytea", "postgresql://h/d"}, {"command=bytea"}},
        Accepted{"Engines", {"engines"}, {"command=engines"}},
        Accepted{"HelpStopsTheReading", {"run", "x.db", "-h", "--bogus-after-it"}, {"command=help"}},
        Accepted{"Version", {"--version"}, {"command=version"}},
        Accepted{"LimitAndVerify", {"run", "x.db", "-n", "10", "--verify-content"}, {"limit=10", "verify=1"}},
        Accepted{"UserByBothSpellings", {"run", "x.db", "--username=alice"}, {"user=alice"}}),
    [](const ::testing::TestParamInfo<Accepted>& info) { return info.param.name; });

struct Refused {
    std::string name;
    std::vector<std::string> args;
    std::string says;  // a piece of the one line
};

void PrintTo(const Refused& row, std::ostream* os) {
    *os << row.name;
}

class ParseRefuses : public ::testing::TestWithParam<Refused> {};

TEST_P(ParseRefuses, WithOneUsageLine) {
    const Refused& row = GetParam();
    try {
        const CliOptions o = parseArguments(row.args);
        FAIL() << "accepted: " << described(o);
    } catch (const Error& e) {
        EXPECT_EQ(e.kind(), ErrorKind::Usage);
        const std::string what = e.what();
        EXPECT_NE(what.find(row.says), std::string::npos) << what;
        EXPECT_EQ(what.find('\n'), std::string::npos) << what;
    }
}

INSTANTIATE_TEST_SUITE_P(
    CliOptions, ParseRefuses,
    ::testing::Values(
        Refused{"UnknownCommand", {"explode"}, "unknown command 'explode'"},
        Refused{"UnknownOption", {"run", "x.db", "--frobnicate"}, "unknown option '--frobnicate'"},
        Refused{"GluedPasswordNotEchoed", {"run", "x.db", "-pS3cret"}, "a value glued to -p is not shown"},
        Refused{"MissingValue", {"run", "x.db", "--json"}, "--json needs a value"},
        Refused{"EmptyFileName", {"run", "x.db", "--json", ""}, "--json needs a file name"},
        Refused{"RepeatedJson", {"run", "x.db", "--json", "a.json", "--json", "b.json"}, "--json is given twice"},
        Refused{"RepeatedUnderTwoSpellings",
                {"run", "x.db", "-r", "2", "--repeat", "3"},
                "--repeat is given twice (-r and --repeat)"},
        Refused{"TunableTwice", {"run", "x.db", "-P", "a=1", "-P", "a=2"}, "is given twice"},
        Refused{"TunableWithoutValue", {"run", "x.db", "-P", "fetch_size"}, "is not ID=VALUE"},
        Refused{"RepeatZero", {"run", "x.db", "-r", "0"}, "-r: '0' is not a whole number >= 1"},
        Refused{"RepeatTooMany", {"run", "x.db", "-r", "1001"}, "at most 1000"},
        Refused{"TwoConnections", {"run", "a.db", "b.db"}, "unexpected argument 'b.db'"},
        Refused{"EmptyConnection", {"run", ""}, "the connection named is empty"},
        Refused{
            "NoTapAndBandwidth", {"run", "postgresql://h/d", "--no-tap", "--bandwidth", "1M"}, "--no-tap contradicts"},
        Refused{"AdviseOutsidePredict", {"run", "x.db", "--advise"}, "--advise is an option of predict"},
        Refused{
            "PredictAtOutsideBytea", {"run", "x.db", "--predict-at", "2M/1M"}, "--predict-at is an option of bytea"},
        Refused{"RateWithoutDuration",
                {"run", "postgresql://h/d", "--sessions", "2", "--rate", "3"},
                "--rate needs --duration"},
        Refused{
            "DurationAndRepeat", {"run", "postgresql://h/d", "--duration", "2", "-r", "3"}, "--duration and --repeat"},
        Refused{"SharedLinkOfOneSession",
                {"run", "postgresql://h/d", "--shared-link"},
                "--shared-link is for a run of many sessions"},
        Refused{"AggregateIntervalAlone",
                {"run", "postgresql://h/d", "--aggregate-interval", "2"},
                "--aggregate-interval needs --aggregate-log"},
        Refused{"TooManySessions", {"run", "postgresql://h/d", "--sessions", "5000"}, "exceeds the limit of 1024"},
        Refused{"VerifyTwice",
                {"run", "x.db", "--verify-content", "-P", "verify_content=off"},
                "both say whether to verify"},
        Refused{"JsonOverTheDatabase",
                {"run", "sqlite:/tmp/cli-options-x.db", "--json", "/tmp/cli-options-x.db"},
                "name the same file"},
        Refused{"JsonOverTheJournal",
                {"run", "/tmp/p.blobbench.json", "--json", "/tmp/p.blobbench.json.journal"},
                "the project's run journal"},
        Refused{"TwoDatabases", {"run", "-d", "a.db", "--database", "b.db"}, "the connection is already 'a.db'"},
        Refused{"FlagWithAValue", {"run", "x.db", "--quiet=1"}, "--quiet takes no value (it was given '1')"},
        Refused{"ReplaceOutsidePrepare", {"run", "x.db", "--replace"}, "--replace is an option of prepare"},
        Refused{"RowsOfANamedDatabase", {"run", "x.db", "--rows", "5"}, "--rows is an option of prepare"},
        Refused{"BatchOfPredict", {"predict", "x.json", "--batch", "5"}, "--batch is an option of prepare"},
        Refused{"SizeOutsideBytea", {"prepare", "x.db", "--size", "5"}, "--size is an option of bytea"},
        Refused{"LinkOfPrepare", {"prepare", "postgresql://h/d", "--latency", "50"}, "are options of run and bytea"}),
    [](const ::testing::TestParamInfo<Refused>& info) { return info.param.name; });

struct Dispatched {
    std::string name;
    std::vector<std::string> args;
    std::string command;  // the table entry's name
};

void PrintTo(const Dispatched& row, std::ostream* os) {
    *os << row.name;
}

class CommandTable : public ::testing::TestWithParam<Dispatched> {};

TEST_P(CommandTable, SendsTheCommandLineToItsCommand) {
    EXPECT_EQ(commandFor(GetParam().args).name, GetParam().command);
}

INSTANTIATE_TEST_SUITE_P(
    Cli, CommandTable,
    ::testing::Values(Dispatched{"Nothing", {}, ""}, Dispatched{"AConnection", {"sqlite:/x.db"}, ""},
                      Dispatched{"UnknownWordGoesToTheDefaultWhichRefusesIt", {"explode"}, ""},
                      Dispatched{"Storage", {"storage", "keyed"}, "storage"},
                      Dispatched{"Reproduce", {"reproduce", "--help"}, "reproduce"},
                      Dispatched{"Check", {"check", "x.json"}, "check"}, Dispatched{"Run", {"run", "x.db"}, "run"},
                      Dispatched{"Prepare", {"prepare", "x.db"}, "prepare"},
                      Dispatched{"Predict", {"predict", "x.json"}, "predict"},
                      Dispatched{"Bytea", {"bytea", "postgresql://h/d"}, "bytea"},
                      Dispatched{"Engines", {"engines"}, "engines"},
                      Dispatched{"FbBlobTestByItsOptions", {"-d", "inet://h/x.fdb", "-z"}, "fb-blob-test"},
                      Dispatched{"AnEngineNamedIsTheGenericLine", {"-d", "inet://h/x.fdb", "-e", "firebird"}, ""}),
    [](const ::testing::TestParamInfo<Dispatched>& info) { return info.param.name; });

TEST(CommandTable, NamesAreUniqueAndEachHasARunAndASummary) {
    std::set<std::string_view> names;
    for (const CliCommand& c : cliCommands()) {
        EXPECT_TRUE(names.insert(c.name).second) << "twice: " << c.name;
        EXPECT_NE(c.run, nullptr) << c.name;
        EXPECT_FALSE(c.summary.empty()) << c.name;
    }
    EXPECT_TRUE(names.contains("")) << "no default command";
    // Only bytea prints through stdio.
    for (const CliCommand& c : cliCommands()) {
        EXPECT_EQ(c.throughStdio, c.name == "bytea") << c.name;
    }
}

// Runs a command with std::cout and std::cerr captured: the commands of the shared option set print
// there themselves.
struct Captured {
    int code;
    std::string out, err;
};
Captured runCaptured(const std::vector<std::string>& args) {
    std::ostringstream out, err;
    auto* oldOut = std::cout.rdbuf(out.rdbuf());
    auto* oldErr = std::cerr.rdbuf(err.rdbuf());
    const int code = commandFor(args).run(args, std::cout, std::cerr);
    std::cout.rdbuf(oldOut);
    std::cerr.rdbuf(oldErr);
    return {code, out.str(), err.str()};
}

TEST(CommandTable, VersionHelpAndARefusalRunInProcess) {
    const Captured version = runCaptured({"--version"});
    EXPECT_EQ(version.code, kOk);
    EXPECT_EQ(version.out, std::string("blobbench-cli ") + BLOBBENCH_VERSION + "\n");
    const Captured help = runCaptured({"--help"});
    EXPECT_EQ(help.code, kOk);
    EXPECT_EQ(help.out, usageText());
    const Captured bad = runCaptured({"explode"});
    EXPECT_EQ(bad.code, kUsage);
    EXPECT_EQ(bad.out, "");
    EXPECT_EQ(bad.err, "blobbench-cli: unknown command 'explode' (try --help)\n");
}

TEST(CommandTable, EnginesListsEveryEngineWithItsTunables) {
    const Captured engines = runCaptured({"engines"});
    EXPECT_EQ(engines.code, kOk);
    for (const char* line : {"sqlite  SQLite (embedded)\n", "postgres  PostgreSQL (libpq)\n", "firebird  Firebird\n",
                             "mariadb  MariaDB / MySQL (Connector/C)\n"}) {
        EXPECT_NE(engines.out.find(line), std::string::npos) << line << engines.out;
    }
}

TEST(ProgressLine, OneLineRewrittenAtMostTenTimesASecondPhasesAlwaysAndClearedAtTheEnd) {
    std::ostringstream err;
    {
        ProgressLine line(err, true, true);
        line.show("first\x1b]0;title\x07");
        line.show("dropped: within 100 ms");
        line.show("a phase", true);
        EXPECT_EQ(err.str(), "\rfirst\\x1b]0;title\\x07\033[K\ra phase\033[K");
        line.clear();
        line.clear();  // once
        EXPECT_EQ(err.str(), "\rfirst\\x1b]0;title\\x07\033[K\ra phase\033[K\r\033[K");
        line.show("left on screen", true);
    }
    EXPECT_TRUE(err.str().ends_with("\rleft on screen\033[K\r\033[K")) << "the destructor clears it";
    std::ostringstream quiet;
    {
        ProgressLine off(quiet, false, true);  // -q
        off.show("x", true);
        ProgressLine notATerminal(quiet, true, false);
        notATerminal.show("y", true);
    }
    EXPECT_EQ(quiet.str(), "");
}

}  // namespace
