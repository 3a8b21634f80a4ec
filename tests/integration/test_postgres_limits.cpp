// The server's 1 GB limit on one value's text rendering: a 600 MB bytea reads fine in binary and fails in
// hex with a message that says why. Slow (the server builds 600 MB twice), so it has its own executable.

#include "test_postgres_support.h"

namespace blobbench {
namespace {

using pgtest::CollectingSink;
using pgtest::connect;
using pgtest::errorOf;
using pgtest::querySpec;

const char* SixHundredMegabytes = "SELECT convert_to(repeat('a', 600 * 1024 * 1024), 'SQL_ASCII')";

// Counts without keeping: 600 MB values stay out of the test's memory.
class CountingSink final : public RowSink {
public:
    void integer(std::size_t, std::int64_t) override {}
    void null(std::size_t) override {}
    void chunk(std::size_t, std::string_view bytes) override { bytes_ += bytes.size(); }
    void endRow() override {}
    std::uint64_t bytes_ = 0;
};

TEST(PostgresLimits, SixHundredMegabyteByteaInHexSaysItPassesTheServerLimit) {
    BLOBBENCH_REQUIRE_ENV(conninfo, "BLOBBENCH_PG_CONNINFO");
    auto session = connect(conninfo, {{"result_format", "text"}, {"bytea_output", "hex"}});
    CountingSink sink;
    auto error = errorOf([&] { session->query(querySpec(SixHundredMegabytes), sink, CancelToken()); });
    ASSERT_TRUE(error);
    EXPECT_EQ(error->kind(), ErrorKind::Sql);
    const std::string message = error->what();
    EXPECT_NE(message.find("1 GB limit"), std::string::npos) << message;
    EXPECT_NE(message.find("result_format=binary"), std::string::npos) << message;
    EXPECT_EQ(message.find('\n'), std::string::npos);
    session->execute("SELECT 1");
}

TEST(PostgresLimits, SixHundredMegabyteByteaInBinaryArrives) {
    BLOBBENCH_REQUIRE_ENV(conninfo, "BLOBBENCH_PG_CONNINFO");
    auto session = connect(conninfo, {{"result_format", "binary"}});
    CountingSink sink;
    session->query(querySpec(SixHundredMegabytes), sink, CancelToken());
    EXPECT_EQ(sink.bytes_, 600ULL * 1024 * 1024);
}

}  // namespace
}  // namespace blobbench
