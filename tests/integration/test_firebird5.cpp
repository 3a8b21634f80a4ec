// The Firebird driver with the real Firebird 5.0.4 server and client (scripts/services/start-firebird5:
// BLOBBENCH_FB5_DATABASE, _USER, _PASSWORD, and BLOBBENCH_FB5_CLIENT, the 5.0 client's full path)
// beside the 3.0 server (BLOBBENCH_FB_*): the mixed pairs, two client libraries in one process,
// and statement timeouts. Without the servers the tests skip, or fail when CI=true.
#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <regex>
#include <sstream>

#include "engine/core/Error.h"
#include "engine/drivers/firebird/FirebirdDriver.h"
#include "engine/drivers/firebird/FirebirdSession.h"
#include "support/TestSupport.h"

using namespace blobbench;

namespace {

class CountingSink final : public RowSink {
public:
    void integer(std::size_t, std::int64_t) override {}
    void null(std::size_t) override {}
    void chunk(std::size_t, std::string_view bytes) override { text.append(bytes); }
    void endRow() override { ++rows; }
    std::uint64_t rows = 0;
    std::string text;
};

const ParameterEffect* effectOf(const SessionInfo& info, const std::string& id) {
    const auto it =
        std::find_if(info.effects.begin(), info.effects.end(), [&](const ParameterEffect& e) { return e.id == id; });
    return it == info.effects.end() ? nullptr : &*it;
}

const firebird::FirebirdClient& clientOf(const Session& session) {
    return dynamic_cast<const firebird::FirebirdSession&>(session).client();
}

class Firebird5Test : public ::testing::Test {
protected:
    void SetUp() override {
        BLOBBENCH_REQUIRE_ENV(database, "BLOBBENCH_FB5_DATABASE");
        BLOBBENCH_REQUIRE_ENV(user, "BLOBBENCH_FB5_USER");
        BLOBBENCH_REQUIRE_ENV(password, "BLOBBENCH_FB5_PASSWORD");
        BLOBBENCH_REQUIRE_ENV(client, "BLOBBENCH_FB5_CLIENT");
        m_five.engine = "firebird";
        m_five.target = database;
        m_five.user = user;
        m_five.password = password;
        m_fiveClient = client;
    }
    // The 3.0 server of scripts/services/start-firebird, for the mixed pairs.
    bool threeZeroServer(ConnectionSpec& spec) const {
        spec.engine = "firebird";
        spec.target = test::envOrEmpty("BLOBBENCH_FB_DATABASE");
        spec.user = test::envOrEmpty("BLOBBENCH_FB_USER");
        spec.password = test::envOrEmpty("BLOBBENCH_FB_PASSWORD");
        return !spec.target.empty();
    }
    std::unique_ptr<Session> connect(ConnectionSpec spec, const std::string& clientLibrary,
                                     const ParameterValues& values = {}) const {
        spec.clientLibrary = clientLibrary;
        return m_driver.connect(spec, resolveParameters(m_driver.parameters(), values));
    }
    std::string engineVersion(Session& session) const {
        CountingSink sink;
        QuerySpec q;
        q.sql = "SELECT RDB$GET_CONTEXT('SYSTEM', 'ENGINE_VERSION') FROM RDB$DATABASE";
        session.query(q, sink, CancelToken());
        return sink.text;
    }

    FirebirdDriver m_driver;
    ConnectionSpec m_five;
    std::string m_fiveClient;
};

TEST_F(Firebird5Test, FiveZeroPairHasInlineBlobsAndWireCounters) {
    auto session = connect(m_five, m_fiveClient);
    const SessionInfo& info = session->info();
    EXPECT_TRUE(std::regex_search(info.serverVersion, std::regex(R"(V5\.0\.4)"))) << info.serverVersion;
    EXPECT_TRUE(std::regex_search(info.clientVersion, std::regex(R"(V5\.0\.4)"))) << info.clientVersion;
    EXPECT_EQ(info.negotiated.at("protocol"), "19");
    EXPECT_EQ(info.negotiated.at("inline_blobs"), "on");
    for (const auto& [id, actual] :
         {std::pair<std::string, std::string>{"max_inline_blob_size", "65535"}, {"max_blob_cache_size", "10485760"}}) {
        const ParameterEffect* e = effectOf(info, id);
        ASSERT_NE(e, nullptr) << id;
        EXPECT_TRUE(e->inEffect) << id << ": " << e->reason;
        EXPECT_EQ(e->actual, actual) << id;
    }
    CountingSink sink;
    QuerySpec q;
    q.sql = "SELECT RDB$RELATION_NAME FROM RDB$RELATIONS";
    q.statementParameters["max_inline_blob_size"] = "1000";
    const QueryStats stats = session->query(q, sink, CancelToken());
    ASSERT_EQ(stats.statementEffects.size(), 1u);
    EXPECT_TRUE(stats.statementEffects[0].inEffect) << stats.statementEffects[0].reason;
    EXPECT_EQ(stats.statementEffects[0].actual, "1000");
    ASSERT_TRUE(stats.nativePhysical.available) << stats.nativePhysical.unavailableReason;
    EXPECT_GT(stats.nativePhysical.counters.roundTrips, 0u);
    EXPECT_GT(stats.nativePhysical.counters.recvBytes, 0u);
    EXPECT_GT(sink.rows, 10u);
}

TEST_F(Firebird5Test, FiveZeroClientAgainstTheThreeZeroServerNamesTheServer) {
    ConnectionSpec three;
    if (!threeZeroServer(three)) {
        BLOBBENCH_REQUIRE_ENV(unused, "BLOBBENCH_FB_DATABASE");
    }
    auto session = connect(three, m_fiveClient, {{"max_inline_blob_size", "16384"}});
    const SessionInfo& info = session->info();
    EXPECT_TRUE(std::regex_search(info.clientVersion, std::regex(R"(V5\.0\.4)"))) << info.clientVersion;
    EXPECT_EQ(info.negotiated.at("inline_blobs"), "off");
    const ParameterEffect* e = effectOf(info, "max_inline_blob_size");
    ASSERT_NE(e, nullptr);
    EXPECT_FALSE(e->inEffect);
    EXPECT_TRUE(std::regex_match(e->reason, std::regex(R"(not in effect \(needs client and server >= 5\.0\.3: )"
                                                       R"(the server 3\.0\.\d+ is older\))")))
        << e->reason;
    // The 5.0 client counts its own wire whatever the server.
    CountingSink sink;
    QuerySpec q;
    q.sql = "SELECT RDB$RELATION_NAME FROM RDB$RELATIONS";
    q.statementParameters["max_inline_blob_size"] = "0";
    const QueryStats stats = session->query(q, sink, CancelToken());
    ASSERT_EQ(stats.statementEffects.size(), 1u);
    EXPECT_FALSE(stats.statementEffects[0].inEffect);
    EXPECT_EQ(stats.statementEffects[0].reason, e->reason);
    EXPECT_TRUE(stats.nativePhysical.available) << stats.nativePhysical.unavailableReason;
}

TEST_F(Firebird5Test, ThreeZeroClientAgainstTheFiveZeroServerNamesTheClient) {
    auto session = connect(m_five, "");
    const SessionInfo& info = session->info();
    EXPECT_TRUE(std::regex_search(info.serverVersion, std::regex(R"(V5\.0\.4)"))) << info.serverVersion;
    EXPECT_TRUE(std::regex_search(info.clientVersion, std::regex(R"(V3\.0\.)"))) << info.clientVersion;
    EXPECT_NE(info.negotiated.at("protocol"), "19");
    for (const char* id : {"max_inline_blob_size", "max_blob_cache_size"}) {
        const ParameterEffect* e = effectOf(info, id);
        ASSERT_NE(e, nullptr) << id;
        EXPECT_FALSE(e->inEffect) << id;
        EXPECT_TRUE(std::regex_match(e->reason, std::regex(R"(not in effect \(needs client and server >= 5\.0\.3: )"
                                                           R"(the client 3\.0\.\d+ is older\))")))
            << e->reason;
    }
}

// Decided: both clients work in one process, each connection with the library it names; the
// system client is never answered by a 5.0 library loaded before it (the same soname).
TEST_F(Firebird5Test, TwoClientLibrariesInOneProcessEachGetTheirOwn) {
    ConnectionSpec three;
    if (!threeZeroServer(three)) {
        BLOBBENCH_REQUIRE_ENV(unused, "BLOBBENCH_FB_DATABASE");
    }
    struct Step {
        const ConnectionSpec* spec;
        std::string library;
        const char* client;
        const char* engine;
        const char* protocol;  // "" : anything but 19
    };
    const std::vector<Step> steps = {
        {&three, "", "V3.0.", "3.0.", ""},
        {&m_five, m_fiveClient, "V5.0.4", "5.0.4", "19"},
        {&three, "", "V3.0.", "3.0.", ""},
        {&m_five, "", "V3.0.", "5.0.4", ""},
        {&three, m_fiveClient, "V5.0.4", "3.0.", ""},
    };
    std::vector<std::unique_ptr<Session>> open;  // all kept open: both libraries in use at once
    for (const auto& step : steps) {
        SCOPED_TRACE(step.spec->target + " with client '" + step.library + "'");
        open.push_back(connect(*step.spec, step.library));
        Session& session = *open.back();
        EXPECT_NE(session.info().clientVersion.find(step.client), std::string::npos) << session.info().clientVersion;
        EXPECT_EQ(engineVersion(session).rfind(step.engine, 0), 0u) << engineVersion(session);
        if (*step.protocol) {
            EXPECT_EQ(session.info().negotiated.at("protocol"), step.protocol);
        } else {
            EXPECT_NE(session.info().negotiated.at("protocol"), "19");
        }
    }
    // Two libraries, two files: the 5.0 one by its path, the system one elsewhere.
    EXPECT_NE(clientOf(*open[0]).file(), clientOf(*open[1]).file());
    EXPECT_EQ(clientOf(*open[0]).file(), clientOf(*open[2]).file());
    EXPECT_EQ(clientOf(*open[1]).version(), (firebird::FbVersion{5, 0, 4}));
    EXPECT_EQ(clientOf(*open[0]).version().major, 3);
    // Still good after all of them: each session queries through its own library.
    for (auto& session : open) {
        EXPECT_FALSE(engineVersion(*session).empty());
    }
}

// blobbench-cli and the window do not link libfbclient: there dlopen("libfbclient.so.2") would answer
// with a 5.0 client loaded before (the same soname), and both clients at exit crashed. The probe is
// such a program: 3.0, 5.0, 3.0 and 5.0, 3.0, 5.0 connections, each client its own, and a clean exit.
TEST_F(Firebird5Test, TwoClientLibrariesInAProgramThatLinksNeither) {
    ConnectionSpec three;
    if (!threeZeroServer(three)) {
        BLOBBENCH_REQUIRE_ENV(unused, "BLOBBENCH_FB_DATABASE");
    }
    const std::string threeZero = three.target + "|";
    const std::string fiveZero = m_five.target + "|" + m_fiveClient;
    for (const auto& order : {std::vector<std::string>{threeZero, fiveZero, threeZero},
                              std::vector<std::string>{fiveZero, threeZero, fiveZero}}) {
        const auto r = test::runProgram(BLOBBENCH_FB_CLIENTS_PROBE, order);
        ASSERT_EQ(r.exitCode, 0) << r.out << r.err;
        std::istringstream in(r.out);
        std::vector<std::string> lines;
        for (std::string line; std::getline(in, line);) {
            lines.push_back(line);
        }
        ASSERT_EQ(lines.size(), 3u) << r.out;
        for (std::size_t i = 0; i < lines.size(); ++i) {
            const bool five = order[i] == fiveZero;
            SCOPED_TRACE(order[i] + ": " + lines[i]);
            if (five) {
                EXPECT_EQ(lines[i].rfind("5.0.4 " + std::filesystem::canonical(m_fiveClient).string() + " 5.0.4", 0),
                          0u);
            } else {
                EXPECT_TRUE(std::regex_match(lines[i], std::regex(R"(3\.0\.\d+ /\S+/libfbclient\.so\.2 3\.0\.\d+)")));
            }
        }
    }
}

// After a 3.0 client, the 5.0 client's failed attach used to fall through to its embedded
// provider, whose Engine13 cannot load beside the 3.0 client (same soname): "undefined symbol
// fb_dsql_set_timeout" instead of the server's answer, and create_database never created. A
// networked connection now asks for the Remote provider only.
TEST_F(Firebird5Test, AfterAThreeZeroClientTheFiveZeroClientSaysAFileIsMissingAndCreatesIt) {
    ConnectionSpec three;
    if (!threeZeroServer(three)) {
        BLOBBENCH_REQUIRE_ENV(unused, "BLOBBENCH_FB_DATABASE");
    }
    auto first = connect(three, "");
    ASSERT_EQ(clientOf(*first).version().major, 3);
    const std::string prefix = m_five.target.substr(0, m_five.target.find("//", 6) + 1);
    const std::string folder = std::filesystem::path(m_five.target.substr(prefix.size())).parent_path().string();
    const std::string file = folder + "/after-three-" + std::to_string(getpid()) + ".fdb";
    ConnectionSpec missing = m_five;
    missing.target = prefix + file;
    try {
        connect(missing, m_fiveClient);
        FAIL() << "a missing database attached";
    } catch (const Error& e) {
        const std::string what = e.what();
        EXPECT_EQ(what.find("Engine13"), std::string::npos) << what;
        EXPECT_NE(what.find("after-three-"), std::string::npos) << what;
    }
    auto created = connect(missing, m_fiveClient, {{"create_database", "true"}});
    EXPECT_EQ(created->info().negotiated.at("created"), "true");
    EXPECT_EQ(engineVersion(*created).rfind("5.0.4", 0), 0u);
    created.reset();
    std::error_code ignored;
    std::filesystem::remove(file, ignored);
}

TEST_F(Firebird5Test, StatementTimeoutCancelsALongQuery) {
    auto session = connect(m_five, m_fiveClient, {{"statement_timeout", "300"}});
    const ParameterEffect* e = effectOf(session->info(), "statement_timeout");
    ASSERT_NE(e, nullptr);
    EXPECT_TRUE(e->inEffect) << e->reason;
    EXPECT_EQ(e->actual, "300");
    CountingSink sink;
    QuerySpec q;
    // Far more than 300 ms of work: a cross join of the system fields, three times over.
    q.sql = "SELECT COUNT(*) FROM RDB$FIELDS A CROSS JOIN RDB$FIELDS B CROSS JOIN RDB$FIELDS C";
    try {
        session->query(q, sink, CancelToken());
        FAIL() << "the query finished despite the statement timeout";
    } catch (const Error& error) {
        const std::string what = error.what();
        EXPECT_NE(what.find("timeout"), std::string::npos) << what;
        EXPECT_EQ(what.find('\n'), std::string::npos) << what;
    }
    EXPECT_EQ(sink.rows, 0u);
    // The attachment lives on.
    EXPECT_EQ(engineVersion(*session).rfind("5.0.4", 0), 0u);
}

}  // namespace
