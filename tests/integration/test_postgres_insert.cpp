// Writing to the real PostgreSQL 15 in every way users do, and reading back byte-exact.

#include "test_postgres_support.h"

namespace blobbench {
namespace {

using pgtest::CollectingSink;
using pgtest::connect;
using pgtest::errorOf;
using pgtest::findEffect;
using pgtest::querySpec;

struct Written {
    std::optional<std::string> note;
    std::optional<std::string> content;
};

std::vector<Written> rowsToWrite() {
    std::string everyByte;
    for (int i = 0; i < 256; ++i) {
        everyByte.push_back(static_cast<char>(i));
    }
    return {
        {std::nullopt, std::nullopt},
        {std::string(), std::string()},
        {std::string("a"), std::string("\0", 1)},
        {std::string("tab\there, newline\nthere, back\\slash, 'quote', \"double\", \xc3\xa9t\xc3\xa9"), everyByte},
        {std::string(70'000, 'x'), pgtest::randomBytes(1 << 20, 5)},
    };
}

struct InsertCase {
    const char* method;
    const char* paramFormat;
    const char* pipeline;
    const char* standardStrings;
};

class PostgresInsertMethods : public ::testing::TestWithParam<InsertCase> {};

TEST_P(PostgresInsertMethods, ReadBackIsByteExact) {
    BLOBBENCH_REQUIRE_ENV(conninfo, "BLOBBENCH_PG_CONNINFO");
    const InsertCase c = GetParam();
    auto session = connect(conninfo, {{"insert_method", c.method},
                                      {"param_format", c.paramFormat},
                                      {"pipeline", c.pipeline},
                                      {"standard_conforming_strings", c.standardStrings},
                                      {"result_format", "binary"}});
    pgtest::ScopedTable table(*session, pgtest::tableName("insert"),
                              "id bigint PRIMARY KEY, small integer, flag boolean, note text, content bytea");
    const auto rows = rowsToWrite();
    session->begin();
    {
        auto insert = session->prepareInsert("INSERT INTO " + table.name() +
                                             " (id, small, flag, note, content) VALUES ($1, $2, $3, $4, $5)");
        for (std::size_t i = 0; i < rows.size(); ++i) {
            insert->bindInteger(0, static_cast<std::int64_t>(i + 1));
            insert->bindInteger(1, -static_cast<std::int64_t>(i));
            insert->bindBoolean(2, i % 2 == 0);
            rows[i].note ? insert->bindText(3, *rows[i].note) : insert->bindNull(3);
            rows[i].content ? insert->bindBytes(4, *rows[i].content) : insert->bindNull(4);
            insert->execute();
        }
        session->commit();  // with the statement still open: commit ends a COPY or a pipeline first
    }
    CollectingSink sink;
    session->query(querySpec("SELECT id, small, flag, note, content FROM " + table.name() + " ORDER BY id"), sink,
                   CancelToken());
    ASSERT_EQ(sink.rows.size(), rows.size());
    for (std::size_t i = 0; i < rows.size(); ++i) {
        const auto& got = sink.rows[i].values;
        EXPECT_EQ(got[0], std::to_string(i + 1));
        EXPECT_EQ(got[1], std::to_string(-static_cast<std::int64_t>(i)));
        EXPECT_EQ(got[2], std::string(i % 2 == 0 ? "1" : "0"));
        EXPECT_EQ(got[3], rows[i].note) << "row " << i + 1;
        EXPECT_EQ(got[4], rows[i].content) << "row " << i + 1;
    }
}

INSTANTIATE_TEST_SUITE_P(
    EveryWay, PostgresInsertMethods,
    ::testing::Values(InsertCase{"prepared", "binary", "false", "on"}, InsertCase{"prepared", "text", "false", "on"},
                      InsertCase{"prepared", "binary", "true", "on"}, InsertCase{"prepared", "text", "true", "on"},
                      InsertCase{"literal", "binary", "false", "on"}, InsertCase{"literal", "binary", "false", "off"},
                      InsertCase{"literal_legacy", "binary", "false", "on"},
                      InsertCase{"literal_legacy", "binary", "false", "off"},
                      InsertCase{"copy_text", "binary", "false", "on"},
                      InsertCase{"copy_binary", "binary", "false", "on"}),
    [](const auto& info) {
        return std::string(info.param.method) + "_" + info.param.paramFormat +
               (std::string(info.param.pipeline) == "true" ? "_pipeline" : "") +
               (std::string(info.param.standardStrings) == "off" ? "_nonstandard" : "");
    });

TEST(PostgresInsert, FailedCopyIsReportedNotPresentedAsComplete) {
    BLOBBENCH_REQUIRE_ENV(conninfo, "BLOBBENCH_PG_CONNINFO");
    for (const char* method : {"copy_text", "copy_binary", "prepared_pipeline"}) {
        const bool pipeline = std::string(method) == "prepared_pipeline";
        auto session = connect(
            conninfo, {{"insert_method", pipeline ? "prepared" : method}, {"pipeline", pipeline ? "true" : "false"}});
        pgtest::ScopedTable table(*session, pgtest::tableName("copyfail"), "id bigint PRIMARY KEY, content bytea");
        auto insert = session->prepareInsert("INSERT INTO " + table.name() + " (id, content) VALUES ($1, $2)");
        for (int i = 0; i < 3; ++i) {
            insert->bindInteger(0, 1);  // the same key three times
            insert->bindBytes(1, "x");
            insert->execute();
        }
        auto error = errorOf([&] { session->commit(); });
        ASSERT_TRUE(error) << method;
        EXPECT_EQ(error->kind(), ErrorKind::Sql);
        EXPECT_NE(std::string(error->what()).find("duplicate key"), std::string::npos) << error->what();
        insert.reset();
        CollectingSink sink;
        session->query(querySpec("SELECT count(*) FROM " + table.name()), sink, CancelToken());
        EXPECT_EQ(sink.rows.at(0).values.at(0), std::string("0")) << method;
    }
}

TEST(PostgresInsert, SixtyFourMebibytesRoundTrip) {
    BLOBBENCH_REQUIRE_ENV(conninfo, "BLOBBENCH_PG_CONNINFO");
    auto session = connect(conninfo, {{"result_format", "binary"}});
    pgtest::ScopedTable table(*session, pgtest::tableName("big"), "id bigint, content bytea");
    const std::string value = pgtest::randomBytes(64u << 20, 64);
    {
        auto insert = session->prepareInsert("INSERT INTO " + table.name() + " (id, content) VALUES ($1, $2)");
        insert->bindInteger(0, 1);
        insert->bindBytes(1, value);
        insert->execute();
    }
    CollectingSink sink;
    session->query(querySpec("SELECT content FROM " + table.name()), sink, CancelToken());
    ASSERT_EQ(sink.rows.size(), 1U);
    EXPECT_EQ(sink.contentBytes, value.size());
    EXPECT_TRUE(sink.rows[0].values[0] == value);
    EXPECT_GE(sink.chunks, 1024U);  // handed over in 64 KiB pieces
}

TEST(PostgresInsert, ColumnStorageAndCompressionAreAppliedAndReadBack) {
    BLOBBENCH_REQUIRE_ENV(conninfo, "BLOBBENCH_PG_CONNINFO");
    auto session = connect(conninfo, {{"column_storage", "main"}, {"column_compression", "lz4"}});
    pgtest::ScopedTable table(*session, pgtest::tableName("toast"), "id bigint, content text");
    std::string compressible;
    while (compressible.size() < 200'000) {
        compressible += "the same line of source text, again and again; ";
    }
    {
        auto insert = session->prepareInsert("INSERT INTO " + table.name() + " (id, content) VALUES ($1, $2)");
        insert->bindInteger(0, 1);
        insert->bindText(1, compressible);
        insert->execute();
    }
    const auto* storage = findEffect(session->info().effects, "column_storage");
    ASSERT_NE(storage, nullptr);
    EXPECT_NE(storage->actual.find("content storage=m compression=lz4"), std::string::npos) << storage->actual;
    CollectingSink sink;
    session->query(querySpec("SELECT pg_column_compression(content), length(content) FROM " + table.name()), sink,
                   CancelToken());
    EXPECT_EQ(sink.rows.at(0).values.at(0), std::string("lz4"));
    EXPECT_EQ(sink.rows.at(0).values.at(1), std::to_string(compressible.size()));
}

TEST(PostgresInsert, ExternalStorageLeavesValuesUncompressed) {
    BLOBBENCH_REQUIRE_ENV(conninfo, "BLOBBENCH_PG_CONNINFO");
    auto session = connect(conninfo, {{"column_storage", "external"}});
    pgtest::ScopedTable table(*session, pgtest::tableName("external"), "id bigint, content bytea");
    {
        auto insert = session->prepareInsert("INSERT INTO " + table.name() + " (id, content) VALUES ($1, $2)");
        insert->bindInteger(0, 1);
        insert->bindBytes(1, std::string(300'000, 'z'));
        insert->execute();
    }
    CollectingSink sink;
    session->query(querySpec("SELECT pg_column_compression(content) FROM " + table.name()), sink, CancelToken());
    EXPECT_EQ(sink.rows.at(0).values.at(0), std::nullopt);
}

}  // namespace
}  // namespace blobbench
