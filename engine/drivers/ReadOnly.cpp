#include "engine/drivers/ReadOnly.h"

#include <algorithm>
#include <array>
#include <cctype>
#include <cstddef>
#include <string>
#include <utility>
#include <vector>

namespace blobbench {
namespace {

// The checks are pure functions of the statement's text, and a session repeats one statement
// thousands of times (a sessions run checks every statement): each thread keeps its last answer
// for each check.
enum class Check { ReadingPostgres, ReadingMariadb, PostgresCall, MariadbCall, FirebirdCall, kCount };

template <class Answer>
std::string remembered(Check check, std::string_view sql, Answer answer) {
    struct Last {
        bool set = false;
        std::string sql;
        std::string answer;
    };
    thread_local std::array<Last, static_cast<std::size_t>(Check::kCount)> last;
    Last& l = last[static_cast<std::size_t>(check)];
    if (!l.set || l.sql != sql) {
        l.answer = answer();
        l.sql = sql;
        l.set = true;
    }
    return l.answer;
}

bool wordChar(char c) {
    return std::isalnum(static_cast<unsigned char>(c)) != 0 || c == '_' || c == '$';
}

std::string upper(std::string_view text) {
    std::string out(text);
    for (char& c : out) {
        c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
    }
    return out;
}

// PostgreSQL's U&"..." escapes: \XXXX and \+XXXXXX code points (ASCII kept, others as '?'), the
// escape character doubled for itself.
std::string unicodeUnescaped(std::string_view body, char escape) {
    std::string out;
    for (std::size_t i = 0; i < body.size(); ++i) {
        if (body[i] != escape || i + 1 >= body.size()) {
            out += body[i];
            continue;
        }
        if (body[i + 1] == escape) {
            out += escape;
            ++i;
            continue;
        }
        const bool plus = body[i + 1] == '+';
        const std::size_t digits = plus ? 6 : 4;
        const std::size_t from = i + (plus ? 2 : 1);
        if (from + digits > body.size()) {
            out += body[i];
            continue;
        }
        unsigned long code = 0;
        bool hex = true;
        for (std::size_t k = from; k < from + digits; ++k) {
            hex = hex && std::isxdigit(static_cast<unsigned char>(body[k])) != 0;
        }
        if (!hex) {
            out += body[i];
            continue;
        }
        code = std::stoul(std::string(body.substr(from, digits)), nullptr, 16);
        out += code < 128 ? static_cast<char>(code) : '?';
        i = from + digits - 1;
    }
    return out;
}

// The words of `sql` in upper case, without comments, '...' literals, "..." names (but those called
// as functions) and PostgreSQL's $tag$...$tag$ strings. In MariaDB's dialect a '#' starts a comment,
// "--" does only before a space, `...` is a name, a backslash escapes inside quotes, and the text of
// an executable comment (/*! ... */, /*M! ... */) is code, as the server reads it.
std::vector<std::string> words(std::string_view sql, SqlDialect dialect = SqlDialect::Postgres) {
    const bool mariadb = dialect == SqlDialect::Mariadb;
    std::vector<std::string> out;
    std::size_t i = 0;
    const std::size_t n = sql.size();
    int executableComments = 0;          // open /*! ... */ whose text is code
    auto skipQuoted = [&](char quote) {  // a doubled quote stays inside
        for (++i; i < n; ++i) {
            if (mariadb && sql[i] == '\\' && quote != '`') {
                ++i;
            } else if (sql[i] == quote) {
                if (i + 1 < n && sql[i + 1] == quote) {
                    ++i;
                } else {
                    ++i;
                    return;
                }
            }
        }
    };
    auto lineComment = [&] {
        while (i < n && sql[i] != '\n') {
            ++i;
        }
    };
    while (i < n) {
        const char c = sql[i];
        if (c == '-' && i + 1 < n && sql[i + 1] == '-' &&
            (!mariadb || i + 2 >= n || std::isspace(static_cast<unsigned char>(sql[i + 2])) != 0 ||
             std::iscntrl(static_cast<unsigned char>(sql[i + 2])) != 0)) {
            lineComment();
        } else if (mariadb && c == '#') {
            lineComment();
        } else if (mariadb && c == '*' && executableComments > 0 && i + 1 < n && sql[i + 1] == '/') {
            --executableComments;
            i += 2;
        } else if (c == '/' && i + 1 < n && sql[i + 1] == '*') {
            const bool executable =
                mariadb && i + 2 < n && (sql[i + 2] == '!' || (sql[i + 2] == 'M' && i + 3 < n && sql[i + 3] == '!'));
            if (executable) {
                i += sql[i + 2] == '!' ? 3 : 4;
                while (i < n && std::isdigit(static_cast<unsigned char>(sql[i])) != 0) {
                    ++i;  // the server version from which the text is code
                }
                ++executableComments;
                continue;
            }
            const auto end = sql.find("*/", i + 2);
            i = end == std::string_view::npos ? n : end + 2;
        } else if (c == '"' && !mariadb) {
            // A quoted name called as a function is that function: "lo_create"(0) writes as
            // lo_create(0) does; any other quoted name is no word.
            const std::size_t start = i + 1;
            skipQuoted(c);
            std::size_t next = i;
            while (next < n && std::isspace(static_cast<unsigned char>(sql[next])) != 0) {
                ++next;
            }
            std::string name(sql.substr(start, i - 1 - start));
            // U&"lo\005fcreate" is lo_create: a Unicode-escaped name is read as the server decodes it.
            if (start >= 3 && (sql[start - 3] == 'U' || sql[start - 3] == 'u') && sql[start - 2] == '&') {
                char escape = '\\';
                std::size_t after = next;
                while (after < n && std::isspace(static_cast<unsigned char>(sql[after])) != 0) {
                    ++after;
                }
                if (after + 7 < n && upper(sql.substr(after, 7)) == "UESCAPE") {
                    const auto quote = sql.find('\'', after + 7);
                    if (quote != std::string_view::npos && quote + 1 < n) {
                        escape = sql[quote + 1];
                    }
                    const auto close = sql.find('\'', quote == std::string_view::npos ? n : quote + 2);
                    next = close == std::string_view::npos ? n : close + 1;
                    while (next < n && std::isspace(static_cast<unsigned char>(sql[next])) != 0) {
                        ++next;
                    }
                }
                name = unicodeUnescaped(name, escape);
            }
            if (next < n && sql[next] == '(' && !name.empty()) {
                out.push_back(upper(name));
            }
        } else if (c == '\'' || (mariadb && (c == '"' || c == '`'))) {
            skipQuoted(c);
        } else if (c == '$' && !mariadb) {
            std::size_t j = i + 1;
            while (j < n && (std::isalnum(static_cast<unsigned char>(sql[j])) != 0 || sql[j] == '_')) {
                ++j;
            }
            if (j < n && sql[j] == '$') {
                const std::string_view tag = sql.substr(i, j - i + 1);
                const auto end = sql.find(tag, j + 1);
                i = end == std::string_view::npos ? n : end + tag.size();
            } else {
                i = j;  // $1, a parameter
            }
        } else if (wordChar(c)) {
            const std::size_t start = i;
            while (i < n && wordChar(sql[i])) {
                ++i;
            }
            out.push_back(upper(sql.substr(start, i - start)));
        } else {
            ++i;
        }
    }
    return out;
}

bool oneOf(const std::string& word, std::initializer_list<std::string_view> list) {
    for (const std::string_view w : list) {
        if (word == w) {
            return true;
        }
    }
    return false;
}

// Why a statement led by `first` (then `second`) may not run as a reading one, or "" when it may:
// the queries, the statements the server's read-only transaction refuses itself, and the transaction
// statements whose transaction the session rolls back and refuses after them. Every other statement
// is refused before it runs, for what no read-only transaction stops: a procedure or a block that
// commits and opens a read-write transaction of its own, SQL held in a string.
// `refused` is set to the word refused (the statement after SET STATEMENT ... FOR, for one).
std::string whyNotReading(const std::vector<std::string>& w, SqlDialect dialect, std::string& refused) {
    if (w.empty()) {
        return {};
    }
    refused = w[0];
    const std::string& first = w[0];
    const std::string second = w.size() > 1 ? w[1] : std::string();
    if (oneOf(first, {"SELECT", "WITH", "VALUES", "TABLE", "SHOW", "EXPLAIN"})) {
        return {};
    }
    if (oneOf(first, {"START", "COMMIT", "ROLLBACK", "SAVEPOINT", "RELEASE"}) ||
        (first == "BEGIN" && second != "NOT")) {
        return {};
    }
    if (oneOf(first, {"INSERT", "UPDATE", "DELETE", "CREATE", "ALTER", "DROP", "TRUNCATE", "GRANT", "REVOKE"})) {
        return {};
    }
    if (dialect == SqlDialect::Postgres) {
        if (oneOf(first, {"END", "ABORT", "MERGE", "COMMENT"})) {
            return {};
        }
        if (first == "COPY") {
            return "COPY moves rows outside a query's result (to or from the client, a server file or a program)";
        }
        if (first == "CALL") {
            return "a procedure may commit and open a read-write transaction of its own";
        }
        if (first == "DO") {
            return "a DO block may commit and open a read-write transaction of its own";
        }
    } else {
        if (oneOf(first, {"DESC", "DESCRIBE", "REPLACE", "LOAD", "RENAME"})) {
            return {};
        }
        if (first == "CALL") {
            return "a procedure may open and commit a read-write transaction of its own";
        }
        if (first == "BEGIN") {
            return "a compound statement may open and commit a read-write transaction of its own";
        }
        if (oneOf(first, {"PREPARE", "EXECUTE"})) {
            return "it runs SQL held in a string, which no check before it can read";
        }
        if (first == "SET" && second == "STATEMENT") {
            // SET STATEMENT var=value, ... FOR statement: the statement is what runs.
            for (std::size_t k = 2; k < w.size(); ++k) {
                if (w[k] == "FOR") {
                    return whyNotReading(
                        std::vector<std::string>(w.begin() + static_cast<std::ptrdiff_t>(k) + 1, w.end()), dialect,
                        refused);
                }
            }
            return "its statement after FOR cannot be read";
        }
    }
    if (oneOf(first, {"SET", "RESET"})) {
        return "it changes the session's settings, which tunables and the setup SQL set";
    }
    return "it is not a query";
}

std::string whyRefusedReading(std::string_view sql, SqlDialect dialect) {
    const std::vector<std::string> found = words(sql, dialect);
    std::string word;
    const std::string why = whyNotReading(found, dialect, word);
    if (why.empty()) {
        return {};
    }
    const char* queries = dialect == SqlDialect::Postgres ? "SELECT, WITH, VALUES, TABLE, SHOW or EXPLAIN"
                                                          : "SELECT, WITH, VALUES, TABLE, SHOW, DESCRIBE or EXPLAIN";
    return std::string("a reading scenario runs in a read-only transaction and runs queries (") + queries + "); " +
           word + " is refused before it runs: " + why +
           "; a statement that changes data belongs in the scenario's setup SQL, which is not measured";
}

}  // namespace

std::string refusedReadingStatement(std::string_view sql, SqlDialect dialect) {
    return remembered(dialect == SqlDialect::Postgres ? Check::ReadingPostgres : Check::ReadingMariadb, sql,
                      [&] { return whyRefusedReading(sql, dialect); });
}

namespace {

// Whether `wanted` (a call's words) stands in `found` (a statement's words) as a run of words.
bool holdsWords(const std::vector<std::string>& found, const std::vector<std::string>& wanted) {
    if (wanted.empty() || wanted.size() > found.size()) {
        return false;
    }
    for (std::size_t at = 0; at + wanted.size() <= found.size(); ++at) {
        if (std::equal(wanted.begin(), wanted.end(), found.begin() + static_cast<std::ptrdiff_t>(at))) {
            return true;
        }
    }
    return false;
}

}  // namespace

std::string writingCallIn(std::string_view sql, std::initializer_list<std::string_view> calls, SqlDialect dialect) {
    const std::vector<std::string> found = words(sql, dialect);
    // The first call in the statement's order of words, as before: the earliest position wins.
    std::size_t best = found.size();
    std::string_view first;
    for (const std::string_view call : calls) {
        const std::vector<std::string> wanted = words(call);
        for (std::size_t at = 0; at < best && !wanted.empty() && at + wanted.size() <= found.size(); ++at) {
            if (std::equal(wanted.begin(), wanted.end(), found.begin() + static_cast<std::ptrdiff_t>(at))) {
                best = at;
                first = call;
                break;
            }
        }
    }
    return best < found.size() ? std::string(first) : std::string();
}

namespace {

struct WritingCall {
    const char* words;
    const char* why;
};

// A function's name is shown called ("lo_create()"), a statement's words as they are ("EXECUTE").
// The statement is read into words once, not once for each of the calls looked for.
std::string refusedCallOf(std::string_view sql, SqlDialect dialect, std::initializer_list<WritingCall> calls) {
    const std::vector<std::string> found = words(sql, dialect);
    for (const WritingCall& c : calls) {
        if (holdsWords(found, words(c.words))) {
            const std::string words = c.words;
            const bool function = words.find(' ') == std::string::npos && words != "execute" && words != "GEN_ID" &&
                                  words != "RDB$SET_CONTEXT";
            return refusedWritingCall(function ? words + "()" : upper(words), c.why);
        }
    }
    return {};
}

}  // namespace

std::string refusedPostgresCall(std::string_view sql) {
    constexpr const char* largeObject =
        "PostgreSQL before 17 lets the large-object functions through one, and commits them";
    constexpr const char* inString = "it runs SQL held in a string, which no check before it can read";
    constexpr const char* server = "it changes the server outside the transaction, and stays";
    return remembered(Check::PostgresCall, sql, [&] {
        return refusedCallOf(
            sql, SqlDialect::Postgres,
            {
                {"lo_create", largeObject},
                {"lo_creat", largeObject},
                {"lo_from_bytea", largeObject},
                {"lo_import", largeObject},
                {"lo_unlink", largeObject},
                {"lo_put", largeObject},
                {"lowrite", largeObject},
                {"lo_truncate", largeObject},
                {"lo_truncate64", largeObject},
                {"lo_export", "it writes a file on the server"},
                {"execute", "it runs a prepared statement, which no check before it can read"},
                {"dblink", "it runs SQL on a connection of its own, outside this transaction"},
                {"dblink_exec", "it runs SQL on a connection of its own, outside this transaction"},
                {"dblink_open", "it runs SQL on a connection of its own, outside this transaction"},
                {"dblink_send_query", "it runs SQL on a connection of its own, outside this transaction"},
                {"query_to_xml", inString},
                {"query_to_xmlschema", inString},
                {"query_to_xml_and_xmlschema", inString},
                {"ts_stat", inString},
                {"ts_rewrite", inString},
                {"pg_import_system_collations",
                 "it adds rows to the catalogue, which a read-only transaction lets through"},
                {"pg_create_physical_replication_slot", server},
                {"pg_create_logical_replication_slot", server},
                {"pg_copy_physical_replication_slot", server},
                {"pg_copy_logical_replication_slot", server},
                {"pg_drop_replication_slot", server},
                {"pg_replication_origin_create", server},
                {"pg_replication_origin_drop", server},
                {"pg_replication_origin_advance", server},
                {"pg_replication_origin_session_setup", server},
                {"pg_logical_emit_message", server},
                {"pg_switch_wal", server},
                {"pg_create_restore_point", server},
                {"pg_promote", server},
                {"pg_reload_conf", server},
                {"pg_rotate_logfile", server},
                {"pg_file_write", "it writes a file on the server"},
                {"pg_file_rename", "it renames a file on the server"},
                {"pg_file_unlink", "it removes a file on the server"},
                {"pg_stat_reset", server},
                {"pg_stat_reset_shared", server},
                {"pg_stat_reset_single_table_counters", server},
                {"pg_stat_reset_single_function_counters", server},
                {"pg_stat_reset_slru", server},
                {"pg_stat_reset_replication_slot", server},
                {"pg_terminate_backend", "it ends another session"},
                {"pg_cancel_backend", "it cancels another session's statement"},
            });
    });
}

std::string refusedMariadbCall(std::string_view sql) {
    return remembered(Check::MariadbCall, sql, [&] {
        return refusedCallOf(
            sql, SqlDialect::Mariadb,
            {{"into outfile", "it writes a file on the server"}, {"into dumpfile", "it writes a file on the server"}});
    });
}

std::string refusedFirebirdCall(std::string_view sql) {
    constexpr const char* generator =
        "a generator stands outside every transaction: each repetition would move it on for good";
    return remembered(Check::FirebirdCall, sql, [&] {
        return refusedCallOf(
            sql, SqlDialect::Postgres,
            {{"GEN_ID", generator},
             {"NEXT VALUE FOR", generator},
             {"SET GENERATOR", generator},
             {"ALTER SEQUENCE", generator},
             {"ALTER GENERATOR", generator},
             {"RECREATE SEQUENCE", generator},
             {"RECREATE GENERATOR", generator},
             {"CREATE OR ALTER SEQUENCE", generator},
             {"EXECUTE STATEMENT", "it runs SQL held in a string, which no check before it can read"},
             {"RDB$SET_CONTEXT", "it changes the session's context variables, which outlive the statement"}});
    });
}

}  // namespace blobbench
