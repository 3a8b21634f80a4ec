// Hostile input (issue #21): strings of 100,000+ characters through every text scanner of the
// input path (secret masking, connection labels, Firebird version strings, project files), and
// passwords that the old masking let through (an unencoded space or '/' in a URI). Each case once
// crashed (std::regex recursed once per character) or leaked; now each is handled in one pass.
#include <gtest/gtest.h>

#include <arpa/inet.h>

#include <QByteArray>
#include <algorithm>
#include <cstring>
#include <string>

#include "engine/core/Error.h"
#include "engine/drivers/Driver.h"
#include "engine/drivers/Registry.h"
#include "engine/drivers/firebird/FirebirdClient.h"
#include "model/ProjectFile.h"
#include "support/SocketSupport.h"
#include "support/TestSupport.h"

using namespace blobbench;

namespace {

constexpr std::size_t kLong = 100'000;

const std::string kLongText(kLong, 'a');

bool contains(const std::string& text, const std::string& part) {
    return text.find(part) != std::string::npos;
}

// blobbench-cli's stderr for a failed run: exactly one line, its own.
void expectOneErrorLine(const test::ProcessResult& r, const std::string& what) {
    EXPECT_NE(r.exitCode, 128 + 11) << what << ": crashed (SIGSEGV)";
    EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << what << ": " << r.err.substr(0, 300);
    EXPECT_TRUE(r.err.starts_with("blobbench-cli: ")) << what << ": " << r.err.substr(0, 300);
}

// A stand-in PostgreSQL server: declines SSL and GSS encryption, reads the startup packet and
// answers it with a FATAL error whose message is `message`.
void answerWithFatal(int fd, const std::string& message) {
    for (;;) {
        const std::string head = test::readUpTo(fd, 8);
        if (head.size() < 8) {
            return;
        }
        std::uint32_t length = 0;
        std::uint32_t code = 0;
        std::memcpy(&length, head.data(), 4);
        std::memcpy(&code, head.data() + 4, 4);
        length = ntohl(length);
        code = ntohl(code);
        if (length == 8 && (code == 80877103 || code == 80877104)) {  // SSLRequest, GSSENCRequest
            test::writeAll(fd, "N");
            continue;
        }
        (void)test::readUpTo(fd, length > 8 ? length - 8 : 0);
        break;
    }
    std::string fields = std::string("SFATAL") + '\0' + "VFATAL" + '\0' + "C28000" + '\0' + "M" + message + '\0' + '\0';
    const std::uint32_t length = htonl(static_cast<std::uint32_t>(fields.size() + 4));
    std::string packet = "E";
    packet.append(reinterpret_cast<const char*>(&length), 4);
    packet += fields;
    test::writeAll(fd, packet);
    (void)test::readToEnd(fd);
}

}  // namespace

TEST(HostileInput, MaskSecretsTakesLongStrings) {
    // Each of these overflowed the stack in std::regex_replace at about 30,000 characters.
    EXPECT_EQ(maskSecrets(kLongText), kLongText);
    EXPECT_EQ(maskSecrets("host=" + kLongText), "host=" + kLongText);
    EXPECT_EQ(maskSecrets("host=h password=" + kLongText + " user=u"), "host=h password=*** user=u");
    EXPECT_EQ(maskSecrets("password='" + kLongText + "' user=u"), "password=*** user=u");
    EXPECT_EQ(maskSecrets("see https://" + kLongText), "see https://" + kLongText);
    EXPECT_EQ(maskSecrets("postgresql://u:" + kLongText + "@h/db"), "postgresql://u:***@h/db");
    EXPECT_EQ(maskSecrets("postgresql://h/" + kLongText + "?password=" + kLongText + "&x=1"),
              "postgresql://h/" + kLongText + "?password=***&x=1");
    std::string many;
    while (many.size() < kLong) {
        many += "a://x:";  // many URIs, none with an '@': each must not rescan the rest of the line
    }
    EXPECT_EQ(maskSecrets(many), many);
    std::string keyValues;
    while (keyValues.size() < kLong) {
        keyValues += "password=x ";
    }
    const std::string masked = maskSecrets(keyValues);
    EXPECT_FALSE(contains(masked, "=x")) << masked.substr(0, 80);
}

TEST(HostileInput, MaskSecretsHidesPasswordsWithSpaceAndSlash) {
    // libpq reads the password of a URI up to the first '@': a space is part of it.
    EXPECT_EQ(maskSecrets("postgresql://u:Rp9x secret@127.0.0.1/db"), "postgresql://u:***@127.0.0.1/db");
    EXPECT_EQ(maskSecrets("postgresql://u:Rp9x/secret@127.0.0.1/db"), "postgresql://u:***@127.0.0.1/db");
    EXPECT_EQ(maskSecrets("postgresql://127.0.0.1/db?password=Rp9x secret&sslmode=disable"),
              "postgresql://127.0.0.1/db?password=***&sslmode=disable");
    // What was masked before still is, and nothing else.
    EXPECT_EQ(maskSecrets("postgresql://u:secret@h:5432/db"), "postgresql://u:***@h:5432/db");
    EXPECT_EQ(maskSecrets("postgresql://h:5432/db"), "postgresql://h:5432/db");
    EXPECT_EQ(maskSecrets("postgresql://u@h/db"), "postgresql://u@h/db");
    EXPECT_EQ(maskSecrets("postgresql://h:5432/db?user=me@server"), "postgresql://h:5432/db?user=me@server");
    EXPECT_EQ(maskSecrets("host=x password = 'se cr\\'et' user=u"), "host=x password = *** user=u");
    EXPECT_EQ(maskSecrets("host=x PASSWORD=secret"), "host=x PASSWORD=***");
    // An unterminated quote: libpq refuses it, and everything after password= stays hidden.
    EXPECT_EQ(maskSecrets("host=x password='se cret user=u"), "host=x password=***");
}

// Hostile round 2026-12-01: a key=value string that also holds "://" (an application_name or
// sslrootcert that looks like a URL, a dbname written as a URI) was masked as a URI only, so its
// password=... came out in clear; a URI password with an unencoded '@' showed its part after the
// first '@' as the host.
TEST(HostileInput, MaskSecretsHidesKeyValuePasswordNextToAUriAndAtInUriPassword) {
    EXPECT_EQ(maskSecrets("host=127.0.0.1 password=Hx7secret application_name=a://b dbname=d"),
              "host=127.0.0.1 password=*** application_name=a://b dbname=d");
    EXPECT_EQ(maskSecrets("dbname=postgresql://h/db password='Hx7 secret'"), "dbname=postgresql://h/db password=***");
    EXPECT_EQ(maskSecrets("postgresql://u:Hx7p@ss@127.0.0.1:5432/db"), "postgresql://u:***@127.0.0.1:5432/db");
    EXPECT_EQ(maskSecrets("postgresql://u:Hx7p@ss@127.0.0.1/db?password=x&sslmode=disable"),
              "postgresql://u:***@127.0.0.1/db?password=***&sslmode=disable");
    // Unchanged: a query password, a user name with '@' in the query, two URIs on one line.
    EXPECT_EQ(maskSecrets("postgresql://h/db?password=abc&sslmode=disable"),
              "postgresql://h/db?password=***&sslmode=disable");
    EXPECT_EQ(maskSecrets("postgresql://h:5432/db?user=me@server"), "postgresql://h:5432/db?user=me@server");
    EXPECT_EQ(maskSecrets("a postgresql://u:s1@h/db b postgresql://v:s2@k/db"),
              "a postgresql://u:***@h/db b postgresql://v:***@k/db");
}

TEST(HostileInput, PostgresTargetWithAtInUriPasswordIsRefusedWithoutIt) {
    // libpq ends the user info at the first '@': "ss@127.0.0.1" would be looked up as the host name
    // and quoted in the error.
    const Driver& postgres = driverById("postgres");
    try {
        (void)postgres.endpoint(ConnectionSpec{"postgres", "postgresql://u:Hx7p@ss@127.0.0.1/db"});
        FAIL() << "a '@' in the URI's password was accepted";
    } catch (const Error& e) {
        const std::string message = e.what();
        EXPECT_EQ(e.kind(), ErrorKind::Usage);
        EXPECT_FALSE(contains(message, "Hx7p")) << message;
        EXPECT_FALSE(contains(message, "ss@")) << message;
        EXPECT_TRUE(contains(message, "%40")) << message;
    }
}

TEST(HostileInput, PostgresKeyValuePasswordWithUnquotedSpaceIsNotQuoted) {
    // libpq reads "password=Hx7my" and refuses the word after it: missing "=" after "Hx7secret".
    const Driver& postgres = driverById("postgres");
    const ConnectionSpec spec{"postgres", "host=127.0.0.1 port=1 password=Hx7my Hx7secret dbname=d"};
    for (const bool connect : {false, true}) {
        try {
            if (connect) {
                (void)postgres.connect(spec, resolveParameters(postgres.parameters(), {}));
            } else {
                (void)postgres.endpoint(spec);
            }
            FAIL() << "an unreadable connection string was accepted";
        } catch (const Error& e) {
            const std::string message = e.what();
            EXPECT_FALSE(contains(message, "Hx7")) << message;
            EXPECT_TRUE(message.starts_with("postgres:host=127.0.0.1 port=1 password=*** dbname=d: ")) << message;
            EXPECT_TRUE(contains(message, "missing \"=\" after \"***\"")) << message;
        }
    }
    EXPECT_EQ(spec.label(), "postgres:host=127.0.0.1 port=1 password=*** dbname=d");
    EXPECT_EQ((ConnectionSpec{"postgres", "host=h password=Hx7a b user = u"}.label()),
              "postgres:host=h password=*** user = u");
    EXPECT_EQ(maskTarget("password=Hx7a"), "password=***");
    try {
        (void)driverForTarget("port=1 password=Hx7my Hx7secret");
    } catch (const Error& e) {
        EXPECT_FALSE(contains(e.what(), "Hx7")) << e.what();
    }
}

TEST(HostileInput, LabelOfLongTargets) {
    const std::string path = "/tmp/" + kLongText + ".sqlite";
    EXPECT_EQ((ConnectionSpec{"sqlite", "sqlite:" + path}.label()), "sqlite:" + path);
    EXPECT_EQ((ConnectionSpec{"postgres", "host=" + kLongText + " dbname=" + kLongText}.label()),
              "postgres:host=" + kLongText + " dbname=" + kLongText);
    const std::string label = ConnectionSpec{"postgres", "postgresql://u:" + kLongText + "@h/db"}.label();
    EXPECT_EQ(label, "postgres:postgresql://u:***@h/db");
    EXPECT_EQ((ConnectionSpec{"postgres", "postgresql://u:Rp9x secret@127.0.0.1/db"}.label()),
              "postgres:postgresql://u:***@127.0.0.1/db");
}

TEST(HostileInput, PostgresTargetWithSlashInPasswordIsRefusedWithoutIt) {
    // libpq ends the user info at the first '/', so "u:Rp9x" would be read as host:port and the
    // password's first part echoed as a port.
    const Driver& postgres = driverById("postgres");
    ConnectionSpec spec{"postgres", "postgresql://u:Rp9x/secret@127.0.0.1/db"};
    try {
        (void)postgres.endpoint(spec);
        FAIL() << "a '/' in the URI's password was accepted";
    } catch (const Error& e) {
        const std::string message = e.what();
        EXPECT_EQ(e.kind(), ErrorKind::Usage);
        EXPECT_FALSE(contains(message, "Rp9x")) << message;
        EXPECT_FALSE(contains(message, "secret")) << message;
        EXPECT_TRUE(contains(message, "%2F")) << message;
        EXPECT_FALSE(contains(message, "\n")) << message;
    }
}

TEST(HostileInput, PostgresLongTargetsParseOrAreRefusedInOneLine) {
    const Driver& postgres = driverById("postgres");
    for (const std::string& target : {"host=" + kLongText + " dbname=x", "postgresql://127.0.0.1/" + kLongText,
                                      "postgresql://" + kLongText + "/db", "host='" + kLongText}) {
        try {
            (void)postgres.endpoint(ConnectionSpec{"postgres", target});
        } catch (const Error& e) {
            EXPECT_FALSE(contains(e.what(), "\n"));
        }
    }
}

TEST(HostileInput, FirebirdVersionOfLongText) {
    const auto v = firebird::parseFbVersion(kLongText + "LI-V3.0.11.33637 Firebird 3.0" + kLongText);
    EXPECT_EQ(v.major, 3);
    EXPECT_EQ(v.minor, 0);
    EXPECT_EQ(v.patch, 11);
    const auto client = firebird::parseFbVersion("LI-V6.3.11.33637 Firebird 5.0");
    EXPECT_EQ(client.major, 5);
    EXPECT_EQ(client.minor, 0);
    EXPECT_EQ(client.patch, 11);
    const auto none = firebird::parseFbVersion(std::string(kLong, 'V') + std::string(kLong, '9'));
    EXPECT_EQ(none.major, 0);
    const auto huge = firebird::parseFbVersion("V" + std::string(kLong, '9') + ".1.2");
    EXPECT_EQ(huge.major, 0) << "a number that does not fit is no version";
}

TEST(HostileInput, ProjectWithDuplicateKeyIsRefusedNamingIt) {
    const QByteArray text = R"({"formatVersion": 1, "name": "a", "connections": [{"name": "x", "engine": "sqlite",
        "target": "sqlite:/tmp/a.sqlite", "target": "sqlite:/tmp/b.sqlite"}], "scenarios": []})";
    try {
        (void)projectFromJson(text);
        FAIL() << "a duplicate key was accepted (the last one silently wins)";
    } catch (const Error& e) {
        const std::string message = e.what();
        EXPECT_EQ(e.kind(), ErrorKind::Data);
        EXPECT_TRUE(contains(message, "connections[0].target")) << message;
        EXPECT_TRUE(contains(message, "duplicate")) << message;
        EXPECT_FALSE(contains(message, "\n")) << message;
    }
    // The same key in two objects, and one written with an escape, are told apart correctly.
    const QByteArray escaped = R"({"formatVersion": 1, "n\u0061me": "a", "name": "b"})";
    EXPECT_THROW((void)projectFromJson(escaped), Error);
}

TEST(HostileInput, ProjectWithNulInAStringIsRefusedNamingIt) {
    const QByteArray text = R"({"formatVersion": 1, "name": "a", "connections": [{"name": "x", "engine": "sqlite",
        "target": "sqlite:/tmp/a\u0000b.sqlite"}], "scenarios": []})";
    try {
        (void)projectFromJson(text);
        FAIL() << "a NUL character was accepted";
    } catch (const Error& e) {
        const std::string message = e.what();
        EXPECT_EQ(e.kind(), ErrorKind::Data);
        EXPECT_TRUE(contains(message, "connections[0].target")) << message;
        EXPECT_TRUE(contains(message, "NUL")) << message;
        EXPECT_EQ(message.find('\0'), std::string::npos);
    }
}

TEST(HostileInput, ProjectWithLongTargetIsRefusedInOneLine) {
    const QByteArray text = QByteArray(R"({"formatVersion": 1, "name": "a", "connections": [{"name": "x", "engine":
        "postgres", "target": "host=)") +
                            QByteArray::fromStdString(kLongText) + R"( password=x"}], "scenarios": []})";
    try {
        (void)projectFromJson(text);
        FAIL() << "a target of 100,000 characters was accepted";
    } catch (const Error& e) {
        EXPECT_EQ(e.kind(), ErrorKind::Data);
        EXPECT_TRUE(contains(e.what(), "connections[0].target")) << e.what();
        EXPECT_LT(std::string(e.what()).size(), 200u);
    }
}

TEST(HostileInputCli, LongDatabaseNameAndHostGiveOneErrorLine) {
    // Every one of these crashed blobbench-cli (SIGSEGV in maskSecrets, from the label).
    const std::string port = std::to_string(test::closedPort());
    const std::vector<std::pair<std::string, std::string>> targets = {
        {"a database name of 100,000 characters", "postgresql://127.0.0.1:" + port + "/" + kLongText},
        {"a host of 100,000 characters", "postgresql://" + kLongText + ":" + port + "/db"},
        {"a password of 100,000 characters", "postgresql://u:" + kLongText + "@127.0.0.1:" + port + "/db"},
    };
    for (const auto& [what, target] : targets) {
        for (const char* tap : {"--tap", "--no-tap"}) {
            const auto r = test::runCli({"run", target, "-s", "warm-up", tap});
            EXPECT_EQ(r.exitCode, 1) << what << " " << tap << ": " << r.err.substr(0, 300);
            expectOneErrorLine(r, what + " " + tap);
        }
    }
    const auto secret = test::runCli({"run", "postgresql://u:" + kLongText + "@127.0.0.1:" + port + "/db"});
    EXPECT_FALSE(contains(secret.err, kLongText.substr(0, 64))) << "the long password was printed";
}

TEST(HostileInputCli, ServerWithLongFatalErrorGivesOneErrorLine) {
    // libpq takes an error of up to 30,000 bytes during start-up; one this long crashed maskSecrets.
    const std::string message = "see https://" + std::string(29'880, 'a');
    test::ScriptedServer server([&](int fd) { answerWithFatal(fd, message); });
    const std::string target = "postgresql://u@127.0.0.1:" + std::to_string(server.port()) + "/db";
    for (const char* tap : {"--tap", "--no-tap"}) {
        const auto r = test::runCli({"run", target, "-s", "warm-up", tap});
        EXPECT_EQ(r.exitCode, 1) << tap << ": " << r.err.substr(0, 300);
        expectOneErrorLine(r, tap);
        EXPECT_TRUE(contains(r.err, "see https://aaaa"))
            << tap << ": the server's words are missing: " << r.err.substr(0, 300);
    }
}

// Hostile round 3: above 30,000 bytes libpq reads the start-up error as a pre-3.0 server's and
// keeps nothing of it ("connection to server at ... failed:" and no reason); the line says so.
TEST(HostileInputCli, ServerWithStartupErrorTooLongForLibpqSaysTheReasonIsLost) {
    test::ScriptedServer server([&](int fd) { answerWithFatal(fd, std::string(1'000'000, 'x')); });
    const std::string target = "postgresql://u@127.0.0.1:" + std::to_string(server.port()) + "/db?sslmode=disable";
    for (const char* tap : {"--tap", "--no-tap"}) {
        const auto r = test::runCli({"run", target, "-s", "warm-up", "-q", tap});
        EXPECT_EQ(r.exitCode, 1) << tap << ": " << r.err.substr(0, 300);
        expectOneErrorLine(r, tap);
        EXPECT_TRUE(contains(r.err, "failed: (no reason: the server's error was too long for libpq to keep"))
            << tap << ": " << r.err.substr(0, 300);
        EXPECT_FALSE(contains(r.err, "xxxx")) << tap << ": " << r.err.substr(0, 300);
    }
}

TEST(HostileInputCli, EmptyTargetIsRefused) {
    for (const std::vector<std::string>& args : std::vector<std::vector<std::string>>{
             {"run", ""}, {"run", "-d", ""}, {"prepare", ""}, {"run", "", "-s", "warm-up"}}) {
        const test::TempDir data;  // had the default run started, it would have prepared its data set here
        const auto r = test::runCli(args, {"BLOBBENCH_DATA_DIR=" + data.path().string()});
        EXPECT_EQ(r.exitCode, 2) << args.size() << " args: " << r.err << r.out.substr(0, 200);
        expectOneErrorLine(r, "empty target");
        EXPECT_TRUE(contains(r.err, "empty")) << r.err;
        EXPECT_TRUE(r.out.empty()) << "something ran: " << r.out.substr(0, 200);
    }
}

TEST(HostileInputCli, CharsetOnPostgresSaysItIsNotInEffect) {
    const std::string target = "postgresql://u@127.0.0.1:" + std::to_string(test::closedPort()) + "/db";
    const auto r = test::runCli({"run", target, "-s", "warm-up", "-c", "WIN1252"});
    EXPECT_EQ(r.exitCode, 1) << r.err;
    EXPECT_TRUE(contains(r.err, "blobbench-cli: -c WIN1252 is not in effect on PostgreSQL")) << r.err;
    EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 2) << "the note and the connect error: " << r.err;
}

// Hostile round 2026-12-01: the fb-blob-test mode's connect error named its connection twice
// ("firebird:inet://h/db: firebird:inet://h/db: connect: ...").
TEST(HostileInput, ContextIsNotAddedTwice) {
    const Error e(ErrorKind::Connect, "firebird:inet://h/db: connect: refused");
    EXPECT_EQ(std::string(e.withContext("firebird:inet://h/db").what()), "firebird:inet://h/db: connect: refused");
    EXPECT_EQ(std::string(e.withContext("p.json").what()), "p.json: firebird:inet://h/db: connect: refused");
    EXPECT_EQ(e.withContext("firebird:inet://h/db").kind(), ErrorKind::Connect);
}
