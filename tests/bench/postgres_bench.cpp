// Our PostgreSQL fetch against a bare libpq single-row loop over the same table in the same run.
// Prints figures; asserts nothing (tests/ asserts behaviour, never time).
//
//   BLOBBENCH_PG_CONNINFO=postgresql://... postgres_bench [--rows 10000] [--reps 5] [--table NAME]
//   BLOBBENCH_PG_CONNINFO=postgresql://... postgres_bench --bytea 2M [--reps 5]
//     (the bytea text-vs-binary experiment: one incompressible document in every form)
//
// Without --table it creates a table shaped like the reference data set (10,000 values, about 126 MB,
// sizes spread from 100 B to 25 KB) and drops it at the end.

#include <libpq-fe.h>
#include <sys/resource.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <iostream>
#include <string>
#include <vector>

#include "engine/core/Error.h"
#include "engine/drivers/postgres/ByteaExperiment.h"
#include "engine/drivers/postgres/PostgresDriver.h"

namespace {

using namespace blobbench;
using Clock = std::chrono::steady_clock;

// Counts bytes and does nothing else, so the figures are the driver's cost, not the sink's.
class CountingSink final : public RowSink {
public:
    void integer(std::size_t, std::int64_t) override {}
    void null(std::size_t) override {}
    void chunk(std::size_t, std::string_view bytes) override { bytesSeen += bytes.size(); }
    void endRow() override { ++rows; }
    std::uint64_t bytesSeen = 0;
    std::uint64_t rows = 0;
};

struct Figures {
    double seconds = 0;
    std::uint64_t rows = 0;
    std::uint64_t bytes = 0;
};

Figures bareLoop(PGconn* conn, const std::string& sql, int format) {
    Figures f;
    const auto start = Clock::now();
    if (!PQsendQueryParams(conn, sql.c_str(), 0, nullptr, nullptr, nullptr, nullptr, format) ||
        !PQsetSingleRowMode(conn)) {
        throw std::runtime_error(PQerrorMessage(conn));
    }
    while (PGresult* result = PQgetResult(conn)) {
        if (PQresultStatus(result) == PGRES_SINGLE_TUPLE) {
            ++f.rows;
            for (int c = 0; c < PQnfields(result); ++c) {
                if (PQftype(result, c) != 20) {  // value columns, not the bigint id
                    f.bytes += static_cast<std::uint64_t>(PQgetlength(result, 0, c));
                }
            }
        } else if (PQresultStatus(result) != PGRES_TUPLES_OK) {
            std::string message = PQresultErrorMessage(result);
            PQclear(result);
            throw std::runtime_error(message);
        }
        PQclear(result);
    }
    f.seconds = std::chrono::duration<double>(Clock::now() - start).count();
    return f;
}

Figures ours(Session& session, const std::string& sql, Figures* withPrepare) {
    CountingSink sink;
    QuerySpec spec;
    spec.sql = sql;
    const auto start = Clock::now();
    const QueryStats stats = session.query(spec, sink, CancelToken());
    Figures f;
    f.seconds = std::chrono::duration<double>(stats.execute + stats.fetch).count();
    f.rows = sink.rows;
    f.bytes = sink.bytesSeen;
    *withPrepare = f;
    withPrepare->seconds = std::chrono::duration<double>(Clock::now() - start).count();
    return f;
}

double median(std::vector<double> values) {
    std::sort(values.begin(), values.end());
    return values[values.size() / 2];
}

void exec(PGconn* conn, const std::string& sql) {
    PGresult* result = PQexec(conn, sql.c_str());
    const auto status = PQresultStatus(result);
    std::string message = PQresultErrorMessage(result);
    PQclear(result);
    if (status != PGRES_COMMAND_OK && status != PGRES_TUPLES_OK) {
        throw std::runtime_error(oneLine(message));
    }
}

}  // namespace

int main(int argc, char** argv) {
    const char* env = std::getenv("BLOBBENCH_PG_CONNINFO");
    std::string conninfo = env ? env : "";
    int rows = 10000;
    int reps = 5;
    std::string table;
    std::int64_t byteaDocument = 0;
    for (int i = 1; i + 1 < argc; i += 2) {
        const std::string option = argv[i];
        if (option == "--rows") {
            rows = std::atoi(argv[i + 1]);
        } else if (option == "--reps") {
            reps = std::max(1, std::atoi(argv[i + 1]));
        } else if (option == "--table") {
            table = argv[i + 1];
        } else if (option == "--bytea") {
            byteaDocument = parseSize(argv[i + 1], "--bytea");
        } else if (option == "--conninfo") {
            conninfo = argv[i + 1];
        }
    }
    if (conninfo.empty()) {
        std::cerr << "postgres_bench: set BLOBBENCH_PG_CONNINFO or pass --conninfo\n";
        return 2;
    }
    try {
        if (byteaDocument > 0) {
            PostgresDriver driver;
            ConnectionSpec spec;
            spec.engine = "postgres";
            spec.target = conninfo;
            ByteaExperimentOptions options;
            options.documentBytes = static_cast<std::uint64_t>(byteaDocument);
            options.repetitions = reps;
            const auto trials = runByteaExperiment(driver, spec, {}, options, CancelToken());
            std::cout << "bytea experiment: " << byteaDocument << " incompressible bytes, median of " << reps << "\n";
            std::printf("%-13s %10s %7s %10s %7s %12s %12s %7s %s\n", "path", "insert ms", "ratio", "select ms",
                        "ratio", "sent B", "received B", "ratio", "identical");
            for (const auto& t : trials) {
                std::printf("%-13s %10.2f %7.2f %10.2f %7.2f %12llu %12llu %7.3f %s\n", t.path.c_str(),
                            std::chrono::duration<double, std::milli>(t.insert).count(), t.insertRatio,
                            std::chrono::duration<double, std::milli>(t.select).count(), t.selectRatio,
                            static_cast<unsigned long long>(t.sentBytes),
                            static_cast<unsigned long long>(t.receivedBytes), t.receivedRatio,
                            t.identical ? "yes" : "NO");
            }
            return 0;
        }
        PGconn* bare = PQconnectdb(conninfo.c_str());
        if (PQstatus(bare) != CONNECTION_OK) {
            throw std::runtime_error(oneLine(PQerrorMessage(bare)));
        }
        const bool ownTable = table.empty();
        if (ownTable) {
            table = "bb_bench_" + std::to_string(getpid());
            exec(bare, "CREATE TABLE " + table + " (id bigint PRIMARY KEY, content bytea)");
            // Sizes cycle 100 B .. 25 KB like source files; md5 hex pairs decoded give varied bytes.
            exec(bare, "INSERT INTO " + table +
                           " SELECT i, substr(decode(repeat(md5(i::text) || md5((i * 7)::text), 800), 'hex'), 1, "
                           "100 + (i * 7919) % 25000) FROM generate_series(1, " +
                           std::to_string(rows) + ") i");
            exec(bare, "VACUUM ANALYZE " + table);
        }
        const std::string sql = "SELECT id, content FROM " + table;
        PostgresDriver driver;
        std::cout << "table " << table << ", " << reps << " repetitions each, medians; elapsed = execute + fetch\n";
        std::printf("%-7s %-12s %10s %10s %14s %8s\n", "format", "reader", "seconds", "MB/s", "content bytes", "ratio");
        for (const char* format : {"binary", "text"}) {
            ConnectionSpec spec;
            spec.engine = "postgres";
            spec.target = conninfo;
            auto session = driver.connect(spec, resolveParameters(driver.parameters(), {{"result_format", format},
                                                                                        {"fetch_mode", "single_row"}}));
            const int formatCode = std::string(format) == "binary" ? 1 : 0;
            std::vector<double> bareTimes;
            std::vector<double> ourTimes;
            std::vector<double> ourTotals;
            Figures bareFigures;
            Figures ourFigures;
            Figures withPrepare;
            bareLoop(bare, sql, formatCode);  // warm-up: table in the server's cache
            for (int r = 0; r < reps; ++r) {
                // alternate the order so drift in the machine's load hits both alike
                if (r % 2 == 0) {
                    bareFigures = bareLoop(bare, sql, formatCode);
                    ourFigures = ours(*session, sql, &withPrepare);
                } else {
                    ourFigures = ours(*session, sql, &withPrepare);
                    bareFigures = bareLoop(bare, sql, formatCode);
                }
                bareTimes.push_back(bareFigures.seconds);
                ourTimes.push_back(ourFigures.seconds);
                ourTotals.push_back(withPrepare.seconds);
            }
            const double bareMedian = median(bareTimes);
            const double ourMedian = median(ourTimes);
            const double totalMedian = median(ourTotals);
            auto line = [&](const char* reader, double seconds, std::uint64_t bytes, double ratio) {
                std::printf("%-7s %-12s %10.4f %10.1f %14llu %8.3f\n", format, reader, seconds,
                            static_cast<double>(bytes) / seconds / 1e6, static_cast<unsigned long long>(bytes), ratio);
            };
            line("bare libpq", bareMedian, bareFigures.bytes, 1.0);
            line("blobbench", ourMedian, ourFigures.bytes, ourMedian / bareMedian);
            line("+prepare", totalMedian, ourFigures.bytes, totalMedian / bareMedian);
            if (bareFigures.rows != ourFigures.rows || bareFigures.bytes != ourFigures.bytes) {
                std::cout << "MISMATCH: bare " << bareFigures.rows << " rows " << bareFigures.bytes << " B, ours "
                          << ourFigures.rows << " rows " << ourFigures.bytes << " B\n";
            }
        }
        if (ownTable) {
            exec(bare, "DROP TABLE " + table);
        }
        PQfinish(bare);
        rusage usage{};
        getrusage(RUSAGE_SELF, &usage);
        std::cout << "peak RSS " << usage.ru_maxrss / 1024 << " MiB\n";
    } catch (const std::exception& error) {
        std::cerr << "postgres_bench: " << error.what() << "\n";
        return 1;
    }
    return 0;
}
