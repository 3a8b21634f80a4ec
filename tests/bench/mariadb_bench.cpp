// Our MariaDB fetch against a bare libmariadb loop over the same LONGBLOB table, in the same run, for
// both protocols (issue #26: at most 1.05x the bare loop). Prints figures; asserts nothing (tests/
// asserts behaviour, never time).
//
//   BLOBBENCH_MARIADB_URL=mariadb://user:pw@127.0.0.1:3307/db mariadb_bench [--rows 10000] [--reps 7]
//
// It creates a table shaped like the reference data set (10,000 values, about 126 MB, sizes spread
// from 100 B to 25 KB, from MariaDB's sequence engine) and drops it at the end. Both readers stream
// the result (mysql_use_result, or mysql_stmt_fetch without mysql_stmt_store_result: the driver's
// default result_mode=streamed) and read every value's length; the binary reader binds a 64 KiB
// buffer as the driver does. The sides alternate each repetition; medians are compared.
#include <mysql.h>
#include <sys/resource.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <iostream>
#include <stdexcept>
#include <string>
#include <vector>

#include "engine/core/Error.h"
#include "engine/drivers/mariadb/MariadbConnectionString.h"
#include "engine/drivers/mariadb/MariadbDriver.h"

namespace {

using namespace blobbench;
using Clock = std::chrono::steady_clock;

struct Figures {
    double seconds = 0;
    std::uint64_t rows = 0;
    std::uint64_t bytes = 0;  // content bytes (the value column)
};

// Counts bytes and does nothing else, so the figures are the driver's cost, not the sink's.
class CountingSink final : public RowSink {
public:
    void integer(std::size_t, std::int64_t) override {}
    void null(std::size_t) override {}
    void chunk(std::size_t column, std::string_view bytes) override { bytesSeen += column == 1 ? bytes.size() : 0; }
    void endRow() override { ++rows; }
    std::uint64_t bytesSeen = 0;
    std::uint64_t rows = 0;
};

[[noreturn]] void fail(MYSQL* conn, const char* what) {
    throw std::runtime_error(std::string(what) + ": " + mysql_error(conn));
}

void exec(MYSQL* conn, const std::string& sql) {
    if (mysql_real_query(conn, sql.data(), sql.size()) != 0) {
        fail(conn, sql.c_str());
    }
    if (MYSQL_RES* r = mysql_store_result(conn)) {
        mysql_free_result(r);
    }
}

// COM_QUERY, streamed: every row's lengths.
Figures bareText(MYSQL* conn, const std::string& sql) {
    Figures f;
    const auto start = Clock::now();
    if (mysql_real_query(conn, sql.data(), sql.size()) != 0) {
        fail(conn, "query");
    }
    MYSQL_RES* result = mysql_use_result(conn);
    if (!result) {
        fail(conn, "use result");
    }
    while (MYSQL_ROW row = mysql_fetch_row(result)) {
        const unsigned long* lengths = mysql_fetch_lengths(result);
        f.bytes += row[1] ? lengths[1] : 0;
        ++f.rows;
    }
    const bool broken = mysql_errno(conn) != 0;
    mysql_free_result(result);
    if (broken) {
        fail(conn, "fetch");
    }
    f.seconds = std::chrono::duration<double>(Clock::now() - start).count();
    return f;
}

// A prepared statement (binary protocol), streamed: the id as a 64-bit integer, the value into a
// 64 KiB buffer, the rest of a longer one with mysql_stmt_fetch_column, as the driver reads it.
Figures bareBinary(MYSQL* conn, const std::string& sql) {
    Figures f;
    const auto start = Clock::now();
    MYSQL_STMT* stmt = mysql_stmt_init(conn);
    if (!stmt || mysql_stmt_prepare(stmt, sql.data(), sql.size()) != 0 || mysql_stmt_execute(stmt) != 0) {
        const std::string message = stmt ? mysql_stmt_error(stmt) : mysql_error(conn);
        if (stmt) {
            mysql_stmt_close(stmt);
        }
        throw std::runtime_error("prepare/execute: " + message);
    }
    long long id = 0;
    std::vector<char> buffer(64 * 1024);
    std::vector<char> rest(64 * 1024);
    unsigned long lengths[2] = {0, 0};
    my_bool nulls[2] = {0, 0};
    MYSQL_BIND binds[2];
    std::memset(binds, 0, sizeof binds);
    binds[0].buffer_type = MYSQL_TYPE_LONGLONG;
    binds[0].buffer = &id;
    binds[0].length = &lengths[0];
    binds[0].is_null = &nulls[0];
    binds[1].buffer_type = MYSQL_TYPE_BLOB;
    binds[1].buffer = buffer.data();
    binds[1].buffer_length = buffer.size();
    binds[1].length = &lengths[1];
    binds[1].is_null = &nulls[1];
    if (mysql_stmt_bind_result(stmt, binds) != 0) {
        const std::string message = mysql_stmt_error(stmt);
        mysql_stmt_close(stmt);
        throw std::runtime_error("bind: " + message);
    }
    for (int rc = mysql_stmt_fetch(stmt); rc != MYSQL_NO_DATA; rc = mysql_stmt_fetch(stmt)) {
        if (rc == 1) {
            const std::string message = mysql_stmt_error(stmt);
            mysql_stmt_close(stmt);
            throw std::runtime_error("fetch: " + message);
        }
        ++f.rows;
        if (nulls[1]) {
            continue;
        }
        const unsigned long length = lengths[1];
        for (unsigned long offset = std::min<unsigned long>(length, buffer.size()); offset < length;) {
            MYSQL_BIND piece;
            std::memset(&piece, 0, sizeof piece);
            unsigned long got = 0;
            piece.buffer_type = MYSQL_TYPE_BLOB;
            piece.buffer = rest.data();
            piece.buffer_length = rest.size();
            piece.length = &got;
            if (mysql_stmt_fetch_column(stmt, &piece, 1, offset) != 0) {
                const std::string message = mysql_stmt_error(stmt);
                mysql_stmt_close(stmt);
                throw std::runtime_error("fetch column: " + message);
            }
            offset += std::min<unsigned long>(rest.size(), length - offset);
        }
        f.bytes += length;
    }
    mysql_stmt_free_result(stmt);
    mysql_stmt_close(stmt);
    f.seconds = std::chrono::duration<double>(Clock::now() - start).count();
    return f;
}

// The driver's query(): prepare (binary protocol), execute and fetch, as a run measures them; the
// span compared is the whole call, as the bare loop's is.
Figures ours(Session& session, const std::string& sql) {
    CountingSink sink;
    QuerySpec spec;
    spec.sql = sql;
    const auto start = Clock::now();
    (void)session.query(spec, sink, CancelToken());
    Figures f;
    f.seconds = std::chrono::duration<double>(Clock::now() - start).count();
    f.rows = sink.rows;
    f.bytes = sink.bytesSeen;
    return f;
}

double median(std::vector<double> values) {
    std::sort(values.begin(), values.end());
    return values[values.size() / 2];
}

}  // namespace

int main(int argc, char** argv) {
    const char* env = std::getenv("BLOBBENCH_MARIADB_URL");
    std::string url = env ? env : "";
    int rows = 10000;
    int reps = 7;
    for (int i = 1; i + 1 < argc; i += 2) {
        const std::string option = argv[i];
        if (option == "--rows") {
            rows = std::max(1, std::atoi(argv[i + 1]));
        } else if (option == "--reps") {
            reps = std::max(1, std::atoi(argv[i + 1]));
        } else if (option == "--url") {
            url = argv[i + 1];
        }
    }
    if (url.empty()) {
        std::cerr << "mariadb_bench: set BLOBBENCH_MARIADB_URL or pass --url\n";
        return 2;
    }
    MYSQL* bare = nullptr;
    std::string table;
    try {
        const mariadb::MariadbTarget target = mariadb::parseMariadbTarget(url);
        bare = mysql_init(nullptr);
        const char* password = target.hasPassword ? target.password.c_str() : std::getenv("MYSQL_PWD");
        if (!mysql_real_connect(bare, target.host.empty() ? "localhost" : target.host.c_str(), target.user.c_str(),
                                password, target.database.c_str(), target.tcpPort(), nullptr, 0)) {
            fail(bare, "connect");
        }
        table = "bb_bench_" + std::to_string(getpid());
        exec(bare, "CREATE TABLE " + table + " (id BIGINT PRIMARY KEY, content LONGBLOB)");
        // Sizes cycle 100 B .. 25 KB like source files; MD5 bytes repeated give varied content.
        exec(bare, "INSERT INTO " + table +
                       " SELECT seq, SUBSTRING(REPEAT(UNHEX(MD5(seq)), 1600), 1, 100 + (seq * 7919) % 25000) FROM "
                       "seq_1_to_" +
                       std::to_string(rows));
        const std::string sql = "SELECT id, content FROM " + table;
        MariadbDriver driver;
        ConnectionSpec spec;
        spec.engine = "mariadb";
        spec.target = url;
        std::printf("mariadb_bench: %s, server %s, client %s; table %s, %d rows; %d repetitions each, medians\n",
                    mariadb::parseMariadbTarget(url).host.c_str(), mysql_get_server_info(bare), mysql_get_client_info(),
                    table.c_str(), rows, reps);
        std::printf("%-8s %-16s %10s %10s %14s %8s\n", "protocol", "reader", "seconds", "MB/s", "content bytes",
                    "ratio");
        bool mismatch = false;
        for (const char* protocol : {"text", "binary"}) {
            const bool binary = std::string(protocol) == "binary";
            auto session = driver.connect(
                spec, resolveParameters(driver.parameters(), {{"protocol", protocol}, {"result_mode", "streamed"}}));
            auto bareRead = [&] { return binary ? bareBinary(bare, sql) : bareText(bare, sql); };
            (void)bareRead();  // warm-up: the table in the server's buffer pool
            (void)ours(*session, sql);
            std::vector<double> bareTimes, ourTimes;
            Figures bareFigures, ourFigures;
            for (int r = 0; r < reps; ++r) {
                // the order alternates, so a drift in the machine's load touches both sides alike
                if (r % 2 == 0) {
                    bareFigures = bareRead();
                    ourFigures = ours(*session, sql);
                } else {
                    ourFigures = ours(*session, sql);
                    bareFigures = bareRead();
                }
                bareTimes.push_back(bareFigures.seconds);
                ourTimes.push_back(ourFigures.seconds);
            }
            const double bareMedian = median(bareTimes);
            const double ourMedian = median(ourTimes);
            auto line = [&](const char* reader, double seconds, std::uint64_t bytes, double ratio) {
                std::printf("%-8s %-16s %10.4f %10.1f %14llu %8.3f\n", protocol, reader, seconds,
                            static_cast<double>(bytes) / seconds / 1e6, static_cast<unsigned long long>(bytes), ratio);
            };
            line("bare libmariadb", bareMedian, bareFigures.bytes, 1.0);
            line("blobbench", ourMedian, ourFigures.bytes, ourMedian / bareMedian);
            std::printf("%-8s %s: blobbench took %.3fx the bare loop's time (issue #26 asks <= 1.05)\n", protocol,
                        ourMedian / bareMedian <= 1.05 ? "PASS" : "FAIL", ourMedian / bareMedian);
            if (bareFigures.rows != ourFigures.rows || bareFigures.bytes != ourFigures.bytes) {
                std::printf("MISMATCH: bare %llu rows %llu B, ours %llu rows %llu B\n",
                            static_cast<unsigned long long>(bareFigures.rows),
                            static_cast<unsigned long long>(bareFigures.bytes),
                            static_cast<unsigned long long>(ourFigures.rows),
                            static_cast<unsigned long long>(ourFigures.bytes));
                mismatch = true;
            }
        }
        exec(bare, "DROP TABLE " + table);
        mysql_close(bare);
        rusage usage{};
        getrusage(RUSAGE_SELF, &usage);
        std::printf("peak RSS %ld MiB\n", usage.ru_maxrss / 1024);
        return mismatch ? 1 : 0;
    } catch (const std::exception& error) {
        std::cerr << "mariadb_bench: " << error.what() << "\n";
        if (bare) {
            if (!table.empty()) {
                const std::string drop = "DROP TABLE IF EXISTS " + table;
                mysql_real_query(bare, drop.data(), drop.size());
            }
            mysql_close(bare);
        }
        return 1;
    }
}
