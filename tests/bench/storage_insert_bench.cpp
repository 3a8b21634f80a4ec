// storage_insert_bench: the insert throughput study's server paths against bare client loops with the
// same batching, same run, alternating which goes first, median of the repetitions:
//   PostgreSQL: variant bytea-pglz (PostgresInsert, PQexecPrepared, binary parameters) against a bare
//   libpq loop (PQprepare once, PQexecPrepared with binary int8 + bytea, COMMIT every K);
//   Firebird: variant blob (FirebirdInsert: createBlob, putSegment, execute) against a bare OO-API loop
//   doing the same in a fresh database of its own.
// Needs BLOBBENCH_PG_CONNINFO and/or BLOBBENCH_FB_DATABASE (+ _USER, _PASSWORD); a missing one is skipped.
// Run: storage_insert_bench [--rows N] [--commit-every K] [--reps N]
#include <dlfcn.h>
#include <firebird/Interface.h>
#include <libpq-fe.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "engine/drivers/Registry.h"
#include "engine/storage/InsertStudy.h"
#include "engine/storage/StorageValues.h"

using namespace blobbench;
using namespace blobbench::storage;
using Clock = std::chrono::steady_clock;

namespace {

double median(std::vector<double> v) {
    std::sort(v.begin(), v.end());
    return v[v.size() / 2];
}

std::string env(const char* name) {
    const char* v = std::getenv(name);
    return v ? v : "";
}

std::vector<std::string> pool(std::uint64_t size) {
    ValueShape shape;
    shape.meanBytes = size;
    shape.spreadBytes = 0;
    shape.text = false;
    shape.seed = 20261130;  // as InsertOptions
    std::vector<std::string> out(256);
    for (std::size_t i = 0; i < out.size(); ++i) {
        valueFor(shape, i + 1, out[i]);
    }
    return out;
}

void pgExec(PGconn* c, const char* sql) {
    PGresult* r = PQexec(c, sql);
    if (PQresultStatus(r) != PGRES_COMMAND_OK && PQresultStatus(r) != PGRES_TUPLES_OK) {
        std::fprintf(stderr, "%s: %s", sql, PQerrorMessage(c));
        std::exit(1);
    }
    PQclear(r);
}

// Seconds for: BEGIN, N x PQexecPrepared, COMMIT every K.
double pgBare(const std::string& conninfo, std::uint64_t rows, std::uint64_t every, const std::vector<std::string>& p) {
    PGconn* c = PQconnectdb(conninfo.c_str());
    if (PQstatus(c) != CONNECTION_OK) {
        std::fprintf(stderr, "postgres: %s", PQerrorMessage(c));
        std::exit(1);
    }
    PQsetNoticeProcessor(
        c, [](void*, const char*) {}, nullptr);
    pgExec(c, "DROP TABLE IF EXISTS bb_storage_bare");
    pgExec(c, "CREATE TABLE bb_storage_bare (id bigint PRIMARY KEY, v bytea NOT NULL)");
    pgExec(c, "ALTER TABLE bb_storage_bare ALTER COLUMN v SET STORAGE extended, ALTER COLUMN v SET COMPRESSION pglz");
    const Oid types[2] = {20, 17};
    PGresult* prep = PQprepare(c, "ins", "INSERT INTO bb_storage_bare (id, v) VALUES ($1, $2)", 2, types);
    PQclear(prep);
    const auto t0 = Clock::now();
    pgExec(c, "BEGIN");
    for (std::uint64_t id = 1; id <= rows; ++id) {
        std::uint64_t be = 0;
        for (int b = 0; b < 8; ++b) {
            reinterpret_cast<unsigned char*>(&be)[b] = static_cast<unsigned char>(id >> (56 - 8 * b));
        }
        const std::string& v = p[(id - 1) % p.size()];
        const char* values[2] = {reinterpret_cast<const char*>(&be), v.data()};
        const int lengths[2] = {8, static_cast<int>(v.size())};
        const int formats[2] = {1, 1};
        PGresult* r = PQexecPrepared(c, "ins", 2, values, lengths, formats, 0);
        if (PQresultStatus(r) != PGRES_COMMAND_OK) {
            std::fprintf(stderr, "insert: %s", PQerrorMessage(c));
            std::exit(1);
        }
        PQclear(r);
        if (id % every == 0 || id == rows) {
            pgExec(c, "COMMIT");
            if (id != rows) {
                pgExec(c, "BEGIN");
            }
        }
    }
    const double s = std::chrono::duration<double>(Clock::now() - t0).count();
    pgExec(c, "DROP TABLE bb_storage_bare");
    PQfinish(c);
    return s;
}

Firebird::IMaster* fbMaster() {
    void* handle = dlopen("libfbclient.so.2", RTLD_NOW);
    if (!handle) {
        std::fprintf(stderr, "%s\n", dlerror());
        std::exit(1);
    }
    auto get = reinterpret_cast<Firebird::IMaster* (*)()>(dlsym(handle, "fb_get_master_interface"));
    return get();
}

std::string fbSibling(const std::string& target, const std::string& name) {
    return target.substr(0, target.find_last_of('/') + 1) + name;
}

// Seconds for: N x (createBlob, putSegment..., close, execute), commit every K, in a fresh database.
double fbBare(Firebird::IMaster* master, const std::string& target, const std::string& user, const std::string& pw,
              std::uint64_t rows, std::uint64_t every, const std::vector<std::string>& p) {
    Firebird::ThrowStatusWrapper st(master->getStatus());
    double seconds = 0;
    try {
        Firebird::IXpbBuilder* dpb =
            master->getUtilInterface()->getXpbBuilder(&st, Firebird::IXpbBuilder::DPB, nullptr, 0);
        dpb->insertString(&st, isc_dpb_user_name, user.c_str());
        dpb->insertString(&st, isc_dpb_password, pw.c_str());
        dpb->insertInt(&st, isc_dpb_page_size, 16384);  // the driver's default for a new database
        dpb->insertString(&st, isc_dpb_set_db_charset, "UTF8");
        dpb->insertInt(&st, isc_dpb_sql_dialect, 3);
        Firebird::IProvider* provider = master->getDispatcher();
        Firebird::IAttachment* att =
            provider->createDatabase(&st, target.c_str(), dpb->getBufferLength(&st), dpb->getBuffer(&st));
        dpb->dispose();
        Firebird::ITransaction* tra = att->startTransaction(&st, 0, nullptr);
        att->execute(&st, tra, 0,
                     "CREATE TABLE bb_storage_insert (id BIGINT PRIMARY KEY, v BLOB SUB_TYPE BINARY NOT NULL)", 3,
                     nullptr, nullptr, nullptr, nullptr);
        tra->commit(&st);
        tra = att->startTransaction(&st, 0, nullptr);
        Firebird::IStatement* stmt =
            att->prepare(&st, tra, 0, "INSERT INTO bb_storage_insert (id, v) VALUES (?, ?)", 3, 0);
        Firebird::IMessageMetadata* meta = stmt->getInputMetadata(&st);
        std::vector<unsigned char> msg(meta->getMessageLength(&st), 0);
        const unsigned idOff = meta->getOffset(&st, 0), blobOff = meta->getOffset(&st, 1);
        tra->commit(&st);
        const auto t0 = Clock::now();
        tra = att->startTransaction(&st, 0, nullptr);
        for (std::uint64_t id = 1; id <= rows; ++id) {
            const std::int64_t key = static_cast<std::int64_t>(id);
            std::memcpy(msg.data() + idOff, &key, sizeof key);
            auto* blobId = reinterpret_cast<ISC_QUAD*>(msg.data() + blobOff);
            Firebird::IBlob* blob = att->createBlob(&st, tra, blobId, 0, nullptr);
            const std::string& v = p[(id - 1) % p.size()];
            for (std::size_t at = 0; at < v.size(); at += 65535) {
                blob->putSegment(&st, static_cast<unsigned>(std::min<std::size_t>(65535, v.size() - at)),
                                 v.data() + at);
            }
            blob->close(&st);
            stmt->execute(&st, tra, meta, msg.data(), nullptr, nullptr);
            if (id % every == 0 || id == rows) {
                tra->commit(&st);
                tra = id == rows ? nullptr : att->startTransaction(&st, 0, nullptr);
            }
        }
        seconds = std::chrono::duration<double>(Clock::now() - t0).count();
        meta->release();
        stmt->free(&st);
        att->dropDatabase(&st);
        provider->release();
    } catch (const Firebird::FbException& e) {
        char text[512];
        master->getUtilInterface()->formatStatus(text, sizeof text, e.getStatus());
        std::fprintf(stderr, "firebird bare loop: %s\n", text);
        std::exit(1);
    }
    return seconds;
}

}  // namespace

int main(int argc, char** argv) {
    std::setvbuf(stdout, nullptr, _IOLBF, 0);
    std::uint64_t rows = 5000, every = 1000;
    int reps = 3;
    for (int i = 1; i + 1 < argc; i += 2) {
        const std::string a = argv[i];
        if (a == "--rows") {
            rows = std::stoull(argv[i + 1]);
        } else if (a == "--commit-every") {
            every = std::stoull(argv[i + 1]);
        } else if (a == "--reps") {
            reps = std::stoi(argv[i + 1]);
        }
    }
    const auto values = pool(4402);
    InsertOptions o;
    o.rows = rows;
    o.valueBytes = 4402;
    o.text = false;
    o.commitEvery = every;
    o.verify = false;
    std::printf("storage_insert_bench: %llu rows x 4402 incompressible bytes, commit every %llu, %d repetitions\n",
                static_cast<unsigned long long>(rows), static_cast<unsigned long long>(every), reps);

    const std::string conninfo = env("BLOBBENCH_PG_CONNINFO");
    if (!conninfo.empty()) {
        o.variants = {"bytea-pglz"};
        std::vector<double> ours, bare;
        for (int r = 0; r < reps; ++r) {
            for (int turn = 0; turn < 2; ++turn) {
                if ((turn == 0) == (r % 2 == 0)) {
                    bare.push_back(pgBare(conninfo, rows, every, values));
                } else {
                    const auto res = runServerInserts(ConnectionSpec{"postgres", conninfo}, {}, o);
                    ours.push_back(std::chrono::duration<double>(res.at(0).elapsed).count());
                }
            }
        }
        const double a = median(ours), b = median(bare);
        std::printf("postgres bytea-pglz: ours %.0f inserts/s, bare libpq %.0f inserts/s, ours/bare time %.3f\n",
                    static_cast<double>(rows) / a, static_cast<double>(rows) / b, a / b);
    } else {
        std::printf("postgres: skipped (BLOBBENCH_PG_CONNINFO not set)\n");
    }

    const std::string fb = env("BLOBBENCH_FB_DATABASE");
    if (!fb.empty()) {
        ConnectionSpec spec{"firebird", fb};
        spec.user = env("BLOBBENCH_FB_USER");
        spec.password = env("BLOBBENCH_FB_PASSWORD");
        o.variants = {"blob"};
        Firebird::IMaster* master = fbMaster();
        std::vector<double> ours, bare;
        for (int r = 0; r < reps; ++r) {
            for (int turn = 0; turn < 2; ++turn) {
                if ((turn == 0) == (r % 2 == 0)) {
                    bare.push_back(fbBare(master, fbSibling(fb, "bb_storage_bare.fdb"), spec.user, spec.password, rows,
                                          every, values));
                } else {
                    const auto res = runServerInserts(spec, {}, o);
                    ours.push_back(std::chrono::duration<double>(res.at(0).elapsed).count());
                }
            }
        }
        const double a = median(ours), b = median(bare);
        std::printf("firebird blob: ours %.0f inserts/s, bare OO API %.0f inserts/s, ours/bare time %.3f\n",
                    static_cast<double>(rows) / a, static_cast<double>(rows) / b, a / b);
    } else {
        std::printf("firebird: skipped (BLOBBENCH_FB_DATABASE not set)\n");
    }
    return 0;
}
