#include "engine/data/PrepareDataset.h"

#include "engine/core/Error.h"
#include "engine/drivers/Registry.h"

namespace blobbench {
namespace {

// One integer of a one-row query.
class OneInteger final : public RowSink {
public:
    std::int64_t value = 0;
    void integer(std::size_t /*column*/, std::int64_t v) override { value = v; }
    void null(std::size_t /*column*/) override {}
    void chunk(std::size_t /*column*/, std::string_view bytes) override { text.append(bytes); }
    void endRow() override {}
    std::string text;
};

// Two prepares of one PostgreSQL database at once failed with the server's words for whichever
// catalogue row they raced for ("duplicate key value violates unique constraint
// pg_type_typname_nsp_index"). A session-level advisory lock (per database, released with the
// session) makes the second one say so before it touches a table.
void holdPrepareLock(Session& session) {
    OneInteger held;
    session.query(QuerySpec{"SELECT CASE WHEN pg_try_advisory_lock(1114401074) THEN 1 ELSE 0 END"}, held,
                  CancelToken());
    if (held.value != 1 && held.text != "1") {
        throw Error(ErrorKind::Sql,
                    "prepare: another prepare of this database is running (it holds BlobBench's prepare lock): "
                    "wait for it to finish, then run this one again if still needed");
    }
}

}  // namespace

// Firebird and SQLite have no such lock: two prepares at once end in the engine's words for a
// conflict ("deadlock -update conflicts with concurrent update", "database is locked"; on Firebird
// 5 two CREATE TABLEs racing for one system-table key), which the line explains.
Error explainedPrepareConflict(const Error& e) {
    const std::string_view what = e.what();
    for (const char* conflict : {"update conflicts with concurrent update", "lock conflict on no wait transaction",
                                 "database is locked", "is in use", "UNIQUE KEY constraint \"RDB$INDEX_0\""}) {
        if (what.find(conflict) != std::string_view::npos) {
            return Error(e.kind(), std::string(what) +
                                       " (another prepare of this database, or another session writing to it, "
                                       "holds it: wait for it to finish, then run this one again if still needed)");
        }
    }
    return e;
}

std::unique_ptr<RowSource> makeRowSource(const DatasetChoice& choice) {
    if (!choice.folder.empty()) {
        return std::make_unique<FolderRowSource>(choice.folder, choice.rows.value_or(10000));
    }
    SyntheticProfile profile;
    profile.rows = choice.rows.value_or(profile.rows);
    profile.seed = choice.seed.value_or(profile.seed);
    profile.binary = choice.binary;
    return std::make_unique<SyntheticRowSource>(profile);
}

DatasetSummary prepareDataset(ConnectionSpec spec, const ParameterValues& requested, const RowSource& source,
                              const PrepareOptions& options) {
    const Driver& driver = driverById(spec.engine);
    spec.create = true;
    std::unique_ptr<Session> session;
    try {
        session = driver.connect(spec, resolveParameters(driver.parameters(), requested));
    } catch (const Error& e) {
        throw explainedPrepareConflict(e);
    }
    if (session->dialect() == Dialect::PostgreSQL) {
        try {
            holdPrepareLock(*session);
        } catch (const Error& e) {
            throw e.withContext(spec.label());
        }
    }
    if (options.connected) {
        options.connected();
    }
    const auto rollback = [&session] {
        try {
            session->rollback();
        } catch (const Error&) {
        }
    };
    try {
        DatasetSummary summary = prepareReferenceTables(*session, source, options);
        for (const ParameterEffect& e : session->info().effects) {
            if (!e.inEffect && requested.contains(e.id)) {
                summary.notInEffect.push_back(e);
            }
        }
        return summary;
    } catch (const Error& e) {
        rollback();
        // A driver's word for a failed write ("database or disk is full", a BLOB write) names no
        // connection: the line does.
        const std::string label = spec.label();
        if (std::string_view(e.what()).starts_with(label + ": ")) {
            throw explainedPrepareConflict(e);
        }
        throw explainedPrepareConflict(Error(e.kind(), label + ": prepare: " + e.what()));
    } catch (...) {
        rollback();
        throw;
    }
}

}  // namespace blobbench
