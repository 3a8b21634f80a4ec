#include "GuiTestSupport.h"

#include "engine/core/Error.h"
#include "engine/data/Dataset.h"
#include "engine/drivers/Registry.h"

namespace blobbench::test {

void prepareSmallDataset(const QString& path, unsigned rows) {
    const Driver& driver = driverById("sqlite");
    ConnectionSpec spec{"sqlite", "sqlite:" + path.toStdString()};
    spec.create = true;
    auto session = driver.connect(spec, resolveParameters(driver.parameters(), {}));
    SyntheticProfile profile;
    profile.rows = rows;
    prepareReferenceTables(*session, SyntheticRowSource(profile), PrepareOptions{});
}

namespace {

class FirstNumber final : public RowSink {
public:
    std::uint64_t value = 0;
    bool seen = false;
    void integer(std::size_t column, std::int64_t v) override { take(column, std::to_string(v)); }
    void null(std::size_t column) override { take(column, "0"); }
    void chunk(std::size_t column, std::string_view bytes) override { take(column, std::string(bytes)); }
    void endRow() override { m_rowDone = true; }

private:
    void take(std::size_t column, const std::string& text) {
        if (column == 0 && !m_rowDone) {
            value = std::stoull(text);
            seen = true;
        }
    }
    bool m_rowDone = false;
};

}  // namespace

std::uint64_t queryNumber(const ConnectionSpec& spec, const std::string& sql) {
    const Driver& driver = driverById(spec.engine);
    auto session = driver.connect(spec, resolveParameters(driver.parameters(), {}));
    FirstNumber sink;
    session->query(QuerySpec{sql}, sink, CancelToken());
    if (!sink.seen) {
        throw Error(ErrorKind::Data, sql + ": no row");
    }
    return sink.value;
}

}  // namespace blobbench::test
