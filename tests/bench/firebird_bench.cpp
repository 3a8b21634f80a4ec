// "Test read all BLOBs" through FirebirdDriver against a bare OO-API loop (openCursor, fetchNext,
// openBlob, getSegment into a 64 KiB buffer) over the same table, interleaved in the same run.
// Prints medians and their ratio; the bar is driver <= 1.05 x bare.
//
//   eval "$(scripts/services/start-firebird)"
//   firebird_bench [--table BLOB_TEST] [--repeat 7] [--fill ROWS] [--compress] [--fb5]
//
// --fb5: the Firebird 5.0.4 server and client of scripts/services/start-firebird5 (BLOBBENCH_FB5_*),
// inline BLOBs on (the client's default, 65535), both loops through that same client library.
//
// --fill creates and fills the table with synthetic source-like text when it is missing (the
// real data set comes from `blobbench-cli prepare`).
#include <dlfcn.h>
#include <firebird/Interface.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <string>
#include <vector>

#include "engine/core/Error.h"
#include "engine/drivers/firebird/FirebirdDriver.h"
#include "engine/wire/WireTap.h"

using namespace blobbench;
using Clock = std::chrono::steady_clock;

namespace {

std::string env(const char* name) {
    const char* v = std::getenv(name);
    return v ? v : "";
}

// CPU time of this thread: what the client side costs, much less disturbed by a busy machine
// than wall-clock time.
double threadCpuMs() {
    timespec ts{};
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

struct Result {
    double ms = 0;
    double cpuMs = 0;
    std::uint64_t rows = 0;
    std::uint64_t bytes = 0;
};

class CountingSink final : public RowSink {
public:
    void integer(std::size_t, std::int64_t) override {}
    void null(std::size_t) override {}
    void chunk(std::size_t, std::string_view b) override { bytes += b.size(); }
    void endRow() override { ++rows; }
    std::uint64_t rows = 0, bytes = 0;
};

Firebird::IMaster* loadMaster(const std::string& library) {
    // The library the driver loads too (FirebirdClient::load): one client for both loops.
    void* handle = dlopen(library.empty() ? "libfbclient.so.2" : library.c_str(), RTLD_NOW | RTLD_LOCAL);
    if (!handle) {
        std::fprintf(stderr, "%s\n", dlerror());
        std::exit(1);
    }
    auto get = reinterpret_cast<Firebird::IMaster* (*)()>(dlsym(handle, "fb_get_master_interface"));
    return get();
}

// The bare loop: what a hand-written client does, nothing else.
// With `tap`, `wire` receives what crossed the wire from opening the cursor to the last close.
Result bareLoop(Firebird::IMaster* master, const std::string& target, const std::string& user,
                const std::string& password, const std::string& sql, bool compress, const WireTap* tap = nullptr,
                WireCounters* wire = nullptr) {
    Firebird::ThrowStatusWrapper st(master->getStatus());
    Result r;
    try {
        Firebird::IXpbBuilder* dpb =
            master->getUtilInterface()->getXpbBuilder(&st, Firebird::IXpbBuilder::DPB, nullptr, 0);
        dpb->insertString(&st, isc_dpb_user_name, user.c_str());
        dpb->insertString(&st, isc_dpb_password, password.c_str());
        dpb->insertString(&st, isc_dpb_lc_ctype, "UTF8");
        if (compress) {
            dpb->insertString(&st, isc_dpb_config, "WireCompression=true");
        }
        Firebird::IProvider* provider = master->getDispatcher();
        Firebird::IAttachment* att =
            provider->attachDatabase(&st, target.c_str(), dpb->getBufferLength(&st), dpb->getBuffer(&st));
        dpb->dispose();
        Firebird::ITransaction* tra = att->startTransaction(&st, 0, nullptr);
        Firebird::IStatement* stmt = att->prepare(&st, tra, 0, sql.c_str(), 3, 0);
        Firebird::IMessageMetadata* meta = stmt->getOutputMetadata(&st);
        std::vector<unsigned char> row(meta->getMessageLength(&st));
        const unsigned blobOffset = meta->getOffset(&st, 1);
        const unsigned blobNull = meta->getNullOffset(&st, 1);
        // 64 KiB as the API allows it: segment lengths are 16-bit on the wire, and a 3.0 client asked
        // for 65536 bytes gets none and loops forever.
        std::vector<char> buffer(65535);
        const auto t0 = Clock::now();
        const double cpu0 = threadCpuMs();
        const WireCounters wire0 = tap ? tap->snapshot() : WireCounters{};
        Firebird::IResultSet* rs = stmt->openCursor(&st, tra, nullptr, nullptr, meta, 0);
        while (rs->fetchNext(&st, row.data()) == Firebird::IStatus::RESULT_OK) {
            ++r.rows;
            std::int16_t isNull = 0;
            std::memcpy(&isNull, row.data() + blobNull, sizeof isNull);
            if (isNull) {
                continue;
            }
            auto* id = reinterpret_cast<ISC_QUAD*>(row.data() + blobOffset);
            Firebird::IBlob* blob = att->openBlob(&st, tra, id, 0, nullptr);
            unsigned length = 0;
            for (;;) {
                const int res = blob->getSegment(&st, static_cast<unsigned>(buffer.size()), buffer.data(), &length);
                if (res != Firebird::IStatus::RESULT_OK && res != Firebird::IStatus::RESULT_SEGMENT) {
                    break;
                }
                r.bytes += length;
            }
            blob->close(&st);
        }
        rs->close(&st);
        r.ms = std::chrono::duration<double, std::milli>(Clock::now() - t0).count();
        r.cpuMs = threadCpuMs() - cpu0;
        if (tap && wire) {
            *wire = tap->since(wire0);
        }
        meta->release();
        stmt->free(&st);
        tra->commit(&st);
        att->detach(&st);
        provider->release();
    } catch (const Firebird::FbException& e) {
        char text[1024];
        master->getUtilInterface()->formatStatus(text, sizeof text, e.getStatus());
        std::fprintf(stderr, "bare loop: %s\n", text);
        std::exit(1);
    }
    st.dispose();
    return r;
}

Result driverRun(const FirebirdDriver& driver, const ConnectionSpec& spec, const ParameterValues& values,
                 const std::string& sql, const WireTap* tap = nullptr, WireCounters* wire = nullptr) {
    auto session = driver.connect(spec, values);
    CountingSink sink;
    QuerySpec q;
    q.sql = sql;
    WireCounters wire0;
    if (tap && wire) {
        // The same span as the bare loop's: from opening the cursor to the last fetch.
        q.phaseMark = [&](QueryPhase phase) {
            if (phase == QueryPhase::Prepared) {
                wire0 = tap->snapshot();
            } else if (phase == QueryPhase::Fetched) {
                *wire = tap->since(wire0);
            }
        };
    }
    const double cpu0 = threadCpuMs();
    const QueryStats stats = session->query(q, sink, CancelToken());
    Result r;
    r.cpuMs = threadCpuMs() - cpu0;  // includes the driver's prepare, which the bare figure does not
    r.ms = std::chrono::duration<double, std::milli>(stats.execute + stats.fetch).count();
    r.rows = sink.rows;
    r.bytes = sink.bytes;
    return r;
}

void fill(Session& session, const std::string& table, int rows) {
    if (session.tableExists(table)) {
        return;
    }
    std::printf("filling %s with %d synthetic rows...\n", table.c_str(), rows);
    session.execute("CREATE TABLE " + table +
                    " (ID BIGINT GENERATED BY DEFAULT AS IDENTITY PRIMARY KEY, SHORT_CONTENT VARCHAR(8191), "
                    "CONTENT BLOB SUB_TYPE TEXT, SHORT_BLOB BOOLEAN)");
    session.begin();
    auto insert =
        session.prepareInsert("INSERT INTO " + table + " (SHORT_CONTENT, CONTENT, SHORT_BLOB) VALUES (?, ?, ?)");
    std::uint32_t seed = 12345;
    for (int i = 0; i < rows; ++i) {
        seed = seed * 1103515245u + 12345u;
        // Sizes like a source tree: most files small, a long tail up to ~78 KB (about 12.6 KB mean).
        const double u = (seed >> 8) / double(1 << 24);
        const auto length = static_cast<std::size_t>(200 + 77000 * u * u * u * u * u);
        std::string text;
        while (text.size() < length) {
            text += "    value = compute(" + std::to_string(i) + ", " + std::to_string(text.size()) + "); // line\n";
        }
        text.resize(length);
        const bool isShort = length < 8191;
        if (isShort) {
            insert->bindText(0, text);
        } else {
            insert->bindNull(0);
        }
        insert->bindText(1, text);
        insert->bindBoolean(2, isShort);
        insert->execute();
        if (i % 1000 == 999) {
            session.commit();
            session.begin();
        }
    }
    insert.reset();
    session.commit();
}

double median(std::vector<double> v) {
    std::sort(v.begin(), v.end());
    return v[v.size() / 2];
}

}  // namespace

int main(int argc, char** argv) {
    std::setvbuf(stdout, nullptr, _IOLBF, 0);  // progress visible when piped
    std::string table = "BLOB_TEST";
    int repeat = 7;
    int fillRows = 0;
    bool compress = false;
    bool five = false;
    for (int i = 1; i < argc; ++i) {
        const std::string a = argv[i];
        if (a == "--table" && i + 1 < argc) {
            table = argv[++i];
        } else if (a == "--repeat" && i + 1 < argc) {
            repeat = std::max(1, std::atoi(argv[++i]));
        } else if (a == "--fill" && i + 1 < argc) {
            fillRows = std::atoi(argv[++i]);
        } else if (a == "--compress") {
            compress = true;
        } else if (a == "--fb5") {
            five = true;
        } else {
            std::fprintf(stderr, "usage: %s [--table NAME] [--repeat N] [--fill ROWS] [--compress] [--fb5]\n", argv[0]);
            return 2;
        }
    }
    ConnectionSpec spec;
    spec.engine = "firebird";
    const std::string prefix = five ? "BLOBBENCH_FB5_" : "BLOBBENCH_FB_";
    spec.target = env((prefix + "DATABASE").c_str());
    spec.user = env((prefix + "USER").c_str());
    spec.password = env((prefix + "PASSWORD").c_str());
    spec.clientLibrary = five ? env("BLOBBENCH_FB5_CLIENT") : "";
    if (spec.target.empty() || (five && spec.clientLibrary.empty())) {
        std::fprintf(stderr, "set %sDATABASE (eval \"$(scripts/services/start-firebird%s)\")\n", prefix.c_str(),
                     five ? "5" : "");
        return 77;
    }
    const FirebirdDriver driver;
    const ParameterValues values =
        resolveParameters(driver.parameters(), {{"wire_compression", compress ? "true" : "false"}});
    try {
        auto session = driver.connect(spec, values);
        if (fillRows > 0) {
            fill(*session, table, fillRows);
        }
        if (!session->tableExists(table)) {
            std::fprintf(stderr, "no table %s: run `blobbench-cli prepare` or pass --fill ROWS\n", table.c_str());
            return 77;
        }
        std::printf("server %s, client %s, compression %s, inline BLOBs %s\n", session->info().serverVersion.c_str(),
                    session->info().clientVersion.c_str(), session->info().negotiated.at("compression").c_str(),
                    session->info().negotiated.at("inline_blobs").c_str());
    } catch (const Error& e) {
        std::fprintf(stderr, "%s\n", e.what());
        return 1;
    }
    const std::string sql = "SELECT ID, CONTENT FROM " + table;
    Firebird::IMaster* master = loadMaster(spec.clientLibrary);
    std::vector<double> bare, ours, bareCpu, oursCpu;
    Result b, d;
    bareLoop(master, spec.target, spec.user, spec.password, sql, compress);  // warm the server's cache
    for (int i = 0; i < repeat; ++i) {
        // Alternate who goes first, so that neither always inherits the other's cache state.
        if (i % 2 == 0) {
            b = bareLoop(master, spec.target, spec.user, spec.password, sql, compress);
            d = driverRun(driver, spec, values, sql);
        } else {
            d = driverRun(driver, spec, values, sql);
            b = bareLoop(master, spec.target, spec.user, spec.password, sql, compress);
        }
        bare.push_back(b.ms);
        ours.push_back(d.ms);
        bareCpu.push_back(b.cpuMs);
        oursCpu.push_back(d.cpuMs);
        std::printf("  run %d: bare %.1f ms (cpu %.1f), driver %.1f ms (cpu %.1f)\n", i + 1, b.ms, b.cpuMs, d.ms,
                    d.cpuMs);
    }
    std::printf("rows %llu / %llu, content bytes %llu / %llu (bare / driver)\n",
                static_cast<unsigned long long>(b.rows), static_cast<unsigned long long>(d.rows),
                static_cast<unsigned long long>(b.bytes), static_cast<unsigned long long>(d.bytes));
    const double mb = median(bare), md = median(ours);
    std::printf("median of %d: bare %.1f ms, driver %.1f ms, ratio %.3f (bar: <= 1.05)\n", repeat, mb, md, md / mb);
    const double cb = median(bareCpu), cd = median(oursCpu);
    std::printf("client cpu median: bare %.1f ms, driver %.1f ms, ratio %.3f\n", cb, cd, cd / cb);
    // Round trips through the wire tap: one more run of each, not timed.
    if (const auto upstream = driver.endpoint(spec)) {
        try {
            WireTap tap(upstream->host, upstream->port);
            const ConnectionSpec tapped = driver.redirected(spec, Endpoint{"127.0.0.1", tap.port()});
            WireCounters bareWire, driverWire;
            bareLoop(master, tapped.target, spec.user, spec.password, sql, compress, &tap, &bareWire);
            driverRun(driver, tapped, values, sql, &tap, &driverWire);
            auto show = [](const char* who, const WireCounters& c) {
                std::printf(
                    "  %s: roundtrips %llu, send packets %llu, recv packets %llu, send bytes %llu, recv bytes %llu\n",
                    who, static_cast<unsigned long long>(c.roundTrips.value_or(0)),
                    static_cast<unsigned long long>(c.sendPackets), static_cast<unsigned long long>(c.recvPackets),
                    static_cast<unsigned long long>(c.sendBytes), static_cast<unsigned long long>(c.recvBytes));
            };
            std::printf("wire tap, open cursor to last fetch:\n");
            show("bare  ", bareWire);
            show("driver", driverWire);
        } catch (const Error& e) {
            std::fprintf(stderr, "wire tap: %s\n", e.what());
        }
    }
    return (b.rows == d.rows && b.bytes == d.bytes) ? 0 : 1;
}
