// The "bytea text vs binary" experiment on the real server: bytes received follow from the formats
// (binary n, hex 2 + 2n, escape about 2.89n for incompressible bytes) and every path reads back exactly
// what it wrote. The figures are printed; time is never asserted.

#include <cstdio>

#include "engine/drivers/postgres/ByteaExperiment.h"
#include "test_postgres_support.h"

namespace blobbench {
namespace {

TEST(PostgresByteaExperiment, BytesFollowTheFormatsAndValuesRoundTrip) {
    BLOBBENCH_REQUIRE_ENV(conninfo, "BLOBBENCH_PG_CONNINFO");
    ByteaExperimentOptions options;
    options.repetitions = 1;
    const std::uint64_t n = options.documentBytes;
    const auto trials = runByteaExperiment(pgtest::driver(), pgtest::specFor(conninfo), {}, options, CancelToken());
    ASSERT_EQ(trials.size(), 4U);
    EXPECT_EQ(trials[0].path, "binary");
    EXPECT_EQ(trials[0].receivedBytes, n);
    EXPECT_EQ(trials[1].path, "text hex");
    EXPECT_EQ(trials[1].receivedBytes, 2 + 2 * n);
    EXPECT_EQ(trials[2].path, "text escape");
    // 94 of 256 byte values stay one byte, the backslash becomes two, the other 161 four: 2.895x
    EXPECT_NEAR(trials[2].receivedRatio, (94.0 + 2.0 + 161.0 * 4.0) / 256.0, 0.01 * 2.89);
    EXPECT_EQ(trials[3].path, "large object");
    EXPECT_EQ(trials[3].receivedBytes, n);
    for (const auto& trial : trials) {
        EXPECT_TRUE(trial.identical) << trial.path;
        std::printf("%-13s insert %8.2f ms (%.2fx)  select %8.2f ms (%.2fx)  sent %9llu B  received %9llu B (%.3fx)\n",
                    trial.path.c_str(), std::chrono::duration<double, std::milli>(trial.insert).count(),
                    trial.insertRatio, std::chrono::duration<double, std::milli>(trial.select).count(),
                    trial.selectRatio, static_cast<unsigned long long>(trial.sentBytes),
                    static_cast<unsigned long long>(trial.receivedBytes), trial.receivedRatio);
    }
}

}  // namespace
}  // namespace blobbench
