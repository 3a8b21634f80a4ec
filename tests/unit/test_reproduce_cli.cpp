// blobbench-cli reproduce without a server: the list, the stated-only publication, and bad input as
// one clear line with exit 2 before anything connects.
#include <gtest/gtest.h>

#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>

#include "support/TestSupport.h"

using blobbench::test::runCli;
using blobbench::test::TempDir;

namespace {

int lines(const std::string& text) {
    return static_cast<int>(std::count(text.begin(), text.end(), '\n'));
}

}  // namespace

TEST(ReproduceCli, ListsEveryPublicationWithItsEngine) {
    const auto r = runCli({"reproduce", "--list"});
    ASSERT_EQ(r.exitCode, 0) << r.err;
    EXPECT_EQ(lines(r.out), 4) << r.out;
    for (const char* name :
         {"firebird-wire-blobs  ", "postgres-bytea-2007  ", "sqlite-35-percent  ", "oracle-securefiles  "}) {
        EXPECT_NE(r.out.find(name), std::string::npos) << name << "\n" << r.out;
    }
    EXPECT_NE(r.out.find("[no engine here]"), std::string::npos) << r.out;
}

TEST(ReproduceCli, BadInputIsOneLineAndExitTwo) {
    struct Case {
        std::vector<std::string> args;
        std::string says;
    };
    const std::vector<Case> cases = {
        {{"reproduce"}, "name a publication (known: firebird-wire-blobs,"},
        {{"reproduce", "no-such-paper"}, "unknown publication 'no-such-paper'"},
        {{"reproduce", "firebird-wire-blobs"}, "name a Firebird connection"},
        {{"reproduce", "firebird-wire-blobs", "postgresql://u@127.0.0.1:1/x"}, "it runs on Firebird"},
        {{"reproduce", "postgres-bytea-2007", "inet://127.0.0.1:1//x.fdb"}, "it runs on PostgreSQL"},
        {{"reproduce", "sqlite-35-percent", "postgresql://u@127.0.0.1:1/x"}, "is another engine's connection"},
        {{"reproduce", "oracle-securefiles", "sqlite:/tmp/x.db"}, "no engine here runs it; give no connection"},
        {{"reproduce", "postgres-bytea-2007", "postgresql://u@127.0.0.1:1/x", "--at-fitted-link"},
         "states its link (2 Mbit/s down, 512 kbit/s up)"},
        {{"reproduce", "firebird-wire-blobs", "--rows", "0"}, "--rows needs a positive whole number, not '0'"},
        {{"reproduce", "firebird-wire-blobs", "--rows", "1", "--rows", "2"}, "--rows is given twice"},
        {{"reproduce", "firebird-wire-blobs", "--bogus"}, "unknown option '--bogus'"},
    };
    for (const Case& c : cases) {
        SCOPED_TRACE(testing::PrintToString(c.args));
        const auto r = runCli(c.args);
        EXPECT_EQ(r.exitCode, 2) << c.says << "\n" << r.out << r.err;
        EXPECT_EQ(lines(r.err), 1) << r.err;
        EXPECT_NE(r.err.find(c.says), std::string::npos) << r.err;
        EXPECT_EQ(r.out.find("Verdicts:"), std::string::npos) << r.out;
    }
}

TEST(ReproduceCli, AStatedOnlyPublicationPrintsItsTableAsNotComparable) {
    TempDir dir;
    const auto r = runCli({"reproduce", "oracle-securefiles", "--json", dir.file("o.json")});
    ASSERT_EQ(r.exitCode, 0) << r.err << r.out;
    EXPECT_NE(r.out.find("Verdicts: 0 reproduced, 0 differ, 1 not comparable here"), std::string::npos) << r.out;
    QFile file(QString::fromStdString(dir.file("o.json")));
    ASSERT_TRUE(file.open(QIODevice::ReadOnly));
    const QJsonArray cells = QJsonDocument::fromJson(file.readAll()).object()[QStringLiteral("cells")].toArray();
    ASSERT_EQ(cells.size(), 1);
    const QJsonObject cell = cells[0].toObject();
    EXPECT_NEAR(cell[QStringLiteral("published")].toDouble(), 1818.0 / 833.0, 1e-9);
    EXPECT_EQ(cell[QStringLiteral("verdict")].toString(), QStringLiteral("not comparable here"));
    EXPECT_TRUE(cell[QStringLiteral("reason")].toString().contains(QStringLiteral("Oracle")));
    EXPECT_FALSE(cell.contains(QStringLiteral("measured")));
}

TEST(ReproduceCli, HelpNamesEveryOptionAndTheMainHelpNamesTheCommand) {
    const auto r = runCli({"reproduce", "--help"});
    ASSERT_EQ(r.exitCode, 0);
    for (const char* o : {"--list", "--rows", "--size", "--repeat", "--at-fitted-link", "--json", "--client-library"}) {
        EXPECT_NE(r.out.find(o), std::string::npos) << o;
    }
    EXPECT_NE(runCli({"--help"}).out.find("  reproduce  "), std::string::npos);
}
