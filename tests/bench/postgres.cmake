# PostgreSQL fetch benchmark: our driver against a bare libpq single-row loop over the same table, same run.
# Included from tests/bench/CMakeLists.txt. Run: BLOBBENCH_PG_CONNINFO=... postgres_bench [--rows N] [--reps N]
add_executable(postgres_bench ${CMAKE_CURRENT_LIST_DIR}/postgres_bench.cpp)
target_link_libraries(postgres_bench PRIVATE blobbench_engine blobbench_warnings PostgreSQL::PostgreSQL)
