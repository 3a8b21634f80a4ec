// Hostile round 5g (docs/hostile-round-5g-2026-12-06.md): a password behind a percent-encoded '=',
// a mask that ate the error's reason, a NUL in a MariaDB database name, --compare with runs of many
// sessions. The open loop's figures and the cancelled statements of a sessions run are tested in
// test_sessions_threads.cpp.
#include <gtest/gtest.h>

#include <algorithm>
#include <string>

#include "engine/core/Error.h"
#include "engine/drivers/Driver.h"
#include "engine/drivers/mariadb/MariadbConnectionString.h"
#include "model/ProjectFile.h"
#include "support/TestSupport.h"

using namespace blobbench;
using test::runCli;
using test::TempDir;

namespace {

QString q(const std::string& s) {
    return QString::fromStdString(s);
}

// E5: "?password%3Dsecret" is refused by libpq and libmariadb, who quote it in their message; the CLI
// printed the password twice in clear (in the connection's label and in the driver's words).
TEST(Round5g, APasswordBehindAPercentEncodedEqualsSignIsMasked) {
    for (const std::string scheme : {"mariadb", "postgresql"}) {
        const std::string target = scheme + "://bb@127.0.0.1:3399/h5g?password%3DBb-h5g-S3cret";
        EXPECT_EQ(maskTarget(target), scheme + "://bb@127.0.0.1:3399/h5g?password%3D***") << scheme;
        // As the CLI says it: the connection's label, then the driver's words.
        const ConnectionSpec spec{scheme == "mariadb" ? "mariadb" : "postgres", target};
        const std::string line = "blobbench-cli: " + spec.label() +
                                 ": connect: missing key/value separator \"=\" in URI query parameter: "
                                 "\"password%3DBb-h5g-S3cret\"";
        const std::string masked = maskSecrets(line);
        EXPECT_EQ(masked.find("S3cret"), std::string::npos) << masked;
        EXPECT_NE(masked.find("connect: missing key/value separator"), std::string::npos) << masked;
    }
    EXPECT_EQ(maskSecrets("h/db?PASSWORD%3dx&sslmode=disable"), "h/db?PASSWORD%3d***&sslmode=disable");
    EXPECT_EQ(maskSecrets("unknown option 'password=S3cret'"), "unknown option 'password=***");
}

// E4: a line that holds a label already masked was masked again as a whole, and the mask ran from
// "password=" over the reason to the end of the line: "...nodb?password=***" and nothing else.
TEST(Round5g, AMaskedLabelKeepsTheReasonAfterIt) {
    const std::string label =
        ConnectionSpec{"postgres", "postgresql://postgres@127.0.0.1:5432/nodb?password=x"}.label();
    ASSERT_EQ(label, "postgres:postgresql://postgres@127.0.0.1:5432/nodb?password=***");
    const std::string reason = ": connect: FATAL: database \"nodb\" does not exist";
    EXPECT_EQ(maskSecrets(label + reason), label + reason);
    EXPECT_EQ(terminalLine("blobbench-cli: " + label + reason), "blobbench-cli: " + label + reason);
    // The keyword form lost its ':' ("password=*** connect: ...").
    const std::string keywords = ConnectionSpec{"postgres", "host=h dbname=d password=x"}.label();
    EXPECT_EQ(maskSecrets(keywords + reason), keywords + reason);
    // A password that only starts like a mask is still masked.
    EXPECT_EQ(maskSecrets("h/db?password=***x&a=1"), "h/db?password=***&a=1");
}

// E3: libmariadb takes C strings, so "h5g%00zzz" connected to h5g while every sample named h5g%00zzz.
TEST(Round5g, ANulByteInAMariadbNameIsRefused) {
    for (const std::string target : {"mariadb://bb@127.0.0.1:3399/h5g%00zzz", "mariadb://b%00b@127.0.0.1/h5g",
                                     "mariadb://bb:s%00cret@127.0.0.1/h5g"}) {
        try {
            (void)mariadb::parseMariadbTarget(target);
            ADD_FAILURE() << target << " was taken";
        } catch (const Error& e) {
            const std::string what = e.what();
            EXPECT_EQ(e.kind(), ErrorKind::Usage);
            EXPECT_NE(what.find("a NUL byte (%00)"), std::string::npos) << what;
            EXPECT_EQ(what.find("s%00cret"), std::string::npos) << what;
        }
    }
}

// C13: --compare compares samples; a run of many sessions keeps load points. It printed an empty
// comparison table and exited 0.
TEST(Round5g, CompareRefusesRunsOfManySessionsBeforeMeasuring) {
    TempDir dir;
    const std::string db = dir.file("ref.sqlite");
    const std::string path = dir.file("p.blobbench.json");
    ASSERT_EQ(runCli({"prepare", "sqlite:" + db, "--rows", "20"}).exitCode, 0);
    Project p = defaultProject(q(db));
    for (auto& s : p.scenarios) {
        s.enabled = s.id == QStringLiteral("short-blobs");
    }
    saveProject(q(path), p);
    const auto load = runCli({"run", path, "--sessions", "2", "--repeat", "2", "-q"});
    ASSERT_EQ(load.exitCode, 0) << load.err;
    const auto historyBefore = loadProject(q(path)).history.size();

    const auto againstLoad = runCli({"run", path, "-r", "1", "--compare", "last", "-q"});
    EXPECT_EQ(againstLoad.exitCode, 2) << againstLoad.err;
    EXPECT_NE(againstLoad.err.find("is a run of many sessions"), std::string::npos) << againstLoad.err;
    const auto loadAgainst = runCli({"run", path, "--sessions", "2", "--repeat", "1", "--compare", "last", "-q"});
    EXPECT_EQ(loadAgainst.exitCode, 2) << loadAgainst.err;
    EXPECT_NE(loadAgainst.err.find("--compare compares the samples of runs of one session"), std::string::npos)
        << loadAgainst.err;
    EXPECT_EQ(std::count(loadAgainst.err.begin(), loadAgainst.err.end(), '\n'), 1) << loadAgainst.err;
    EXPECT_EQ(loadProject(q(path)).history.size(), historyBefore) << "refused before measuring";
}

}  // namespace
