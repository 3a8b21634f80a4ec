#include "engine/drivers/postgres/ByteaExperiment.h"
#include "engine/core/ClientPause.h"

#include <algorithm>
#include <chrono>
#include <random>

#include "engine/core/ClientPause.h"
#include "engine/core/Error.h"

namespace blobbench {
namespace {

using Clock = std::chrono::steady_clock;

// Keeps the first value whole (to compare it) and counts every byte.
class DocumentSink final : public RowSink {
public:
    void integer(std::size_t, std::int64_t) override {}
    void null(std::size_t) override {}
    void chunk(std::size_t, std::string_view bytes) override {
        received += bytes.size();
        value.append(bytes);
    }
    void endRow() override {}
    std::uint64_t received = 0;
    std::string value;
};

struct Path {
    const char* name;
    const char* how;
    ParameterValues writeWith;
    ParameterValues readWith;
    const char* columnType;
};

// What each path sends for n bytes: binary n, hex 2 + 2n, escape literal (standard strings) 1 for
// 0x20..0x7e except \ and ' (2 each), 4 (\ooo) for the others.
std::uint64_t escapeLiteralLength(const std::string& bytes) {
    std::uint64_t length = 0;
    for (unsigned char c : bytes) {
        length += (c == '\\' || c == '\'') ? 2 : (c >= 0x20 && c <= 0x7e) ? 1 : 4;
    }
    return length;
}

// bytea text output back to bytes: "\x" + hex pairs, or the escape form (\\ and \ooo).
std::string decodeByteaText(const std::string& text) {
    std::string out;
    if (text.size() >= 2 && text[0] == '\\' && text[1] == 'x') {
        auto nibble = [](char c) { return c <= '9' ? c - '0' : (c | 0x20) - 'a' + 10; };
        for (std::size_t i = 2; i + 1 < text.size(); i += 2) {
            out.push_back(static_cast<char>(nibble(text[i]) << 4 | nibble(text[i + 1])));
        }
        return out;
    }
    for (std::size_t i = 0; i < text.size();) {
        if (text[i] != '\\') {
            out.push_back(text[i++]);
        } else if (i + 1 < text.size() && text[i + 1] == '\\') {
            out.push_back('\\');
            i += 2;
        } else if (i + 3 < text.size()) {
            out.push_back(static_cast<char>((text[i + 1] - '0') << 6 | (text[i + 2] - '0') << 3 | (text[i + 3] - '0')));
            i += 4;
        } else {
            break;
        }
    }
    return out;
}

Nanos median(std::vector<Nanos> values) {
    std::sort(values.begin(), values.end());
    return values[values.size() / 2];
}

double ratio(Nanos value, Nanos base) {
    return base.count() > 0 ? static_cast<double>(value.count()) / static_cast<double>(base.count()) : 0.0;
}

}  // namespace

std::vector<ByteaTrial> runByteaExperiment(const Driver& driver, const ConnectionSpec& spec,
                                           const ParameterValues& given, const ByteaExperimentOptions& options,
                                           const CancelToken& cancel) {
    if (driver.id() != "postgres") {
        throw Error(ErrorKind::Unsupported, "the bytea experiment needs the postgres engine, not " + driver.id());
    }
    std::string document(options.documentBytes, '\0');
    std::mt19937_64 random(options.seed);
    for (auto& c : document) {
        c = static_cast<char>(random() & 0xff);
    }

    const std::vector<Path> paths = {
        {"binary",
         "PQexecPrepared binary parameter, resultFormat 1",
         {{"param_format", "binary"}},
         {{"result_format", "binary"}},
         "bytea"},
        {"text hex",
         "PQexecPrepared text parameter (\\x hex), bytea_output=hex, resultFormat 0",
         {{"param_format", "text"}},
         {{"result_format", "text"}, {"bytea_output", "hex"}},
         "bytea"},
        {"text escape",
         "PQescapeBytea literal, bytea_output=escape, resultFormat 0",
         {{"insert_method", "literal_legacy"}},
         {{"result_format", "text"}, {"bytea_output", "escape"}},
         "bytea"},
        {"large object",
         "lo_creat + lo_write / lo_open + lo_read in lo_chunk_size pieces",
         {},
         {{"fetch_mode", "cursor"}},
         "oid"},
    };

    auto span = [&options](ByteaSpan which, bool begins) {
        if (options.onSpan) {
            options.onSpan(which, begins);
        }
    };
    // A stopped or suspended client's pause inside a measured span is in its time: said with the path
    // (hostile round 5l S5: a 3 s stop read as "text hex select x 0.03").
    const clientpause::Watch pauses;
    clientpause::Pauses spanStart;
    std::int64_t pausedNs = 0;
    auto measured = [&span, &spanStart, &pausedNs](ByteaSpan which, bool begins) {
        if (begins) {
            spanStart = clientpause::pausesSoFar();
        } else if (const clientpause::Pauses now = clientpause::pausesSoFar(); now.count != spanStart.count) {
            pausedNs += std::max<std::int64_t>(now.totalNs - spanStart.totalNs, 1);
        }
        span(which, begins);
    };
    std::vector<ByteaTrial> trials;
    const int repetitions = std::max(1, options.repetitions);
    for (const Path& path : paths) {
        ParameterValues values = given;
        for (const auto& [id, value] : path.writeWith) {
            values[id] = value;
        }
        for (const auto& [id, value] : path.readWith) {
            values[id] = value;
        }
        auto session = driver.connect(spec, resolveParameters(driver.parameters(), values));
        const std::string table = "blobbench_bytea_experiment";
        session->execute(std::string("CREATE TEMP TABLE ") + table + " (id integer, content " + path.columnType + ")");
        ByteaTrial trial;
        trial.path = path.name;
        trial.how = path.how;
        trial.identical = true;
        pausedNs = 0;
        for (int r = 0; r < repetitions; ++r) {
            if (cancel.cancelled()) {
                throw Error(ErrorKind::Cancelled, "bytea experiment cancelled");
            }
            session->execute("TRUNCATE " + table);
            auto insert = session->prepareInsert("INSERT INTO " + table + " (id, content) VALUES ($1, $2)");
            measured(ByteaSpan::Insert, true);
            const auto start = Clock::now();
            insert->bindInteger(0, 1);
            insert->bindBytes(1, document);
            insert->execute();
            trial.inserts.push_back(std::chrono::duration_cast<Nanos>(Clock::now() - start));
            measured(ByteaSpan::Insert, false);
            insert.reset();

            DocumentSink sink;
            QuerySpec query;
            query.sql = "SELECT content FROM " + table;
            query.phaseMark = [&measured](QueryPhase phase) {
                if (phase != QueryPhase::Executed) {
                    measured(ByteaSpan::Select, phase == QueryPhase::Prepared);
                }
            };
            const QueryStats stats = session->query(query, sink, cancel);
            PhaseTimes times;
            times.execute = stats.execute;
            times.fetch = stats.fetch;
            trial.selects.push_back(times);
            trial.receivedBytes = sink.received;
            const bool text = std::string(path.name).rfind("text", 0) == 0;
            trial.identical = trial.identical && (text ? decodeByteaText(sink.value) : sink.value) == document;
            if (std::string(path.columnType) == "oid") {
                session->execute("SELECT lo_unlink(content) FROM " + table);
            }
        }
        session->execute("DROP TABLE " + table);
        trial.insert = median(trial.inserts);
        std::vector<Nanos> selects;
        for (const PhaseTimes& t : trial.selects) {
            selects.push_back(t.elapsed());
        }
        trial.select = median(selects);
        trial.disturbed = clientpause::disturbanceNote(pausedNs, "its measured inserts and selects");
        trial.sentBytes = trial.path == "text hex"      ? 2 + 2 * document.size()
                          : trial.path == "text escape" ? escapeLiteralLength(document)
                                                        : document.size();
        trials.push_back(trial);
    }
    const ByteaTrial& binary = trials.front();
    for (auto& trial : trials) {
        trial.insertRatio = ratio(trial.insert, binary.insert);
        trial.selectRatio = ratio(trial.select, binary.select);
        trial.receivedRatio = binary.receivedBytes > 0
                                  ? static_cast<double>(trial.receivedBytes) / static_cast<double>(binary.receivedBytes)
                                  : 0.0;
    }
    return trials;
}

}  // namespace blobbench
