# MariaDB fetch benchmark (issue #26): our driver against a bare libmariadb loop over the same table,
# text and binary protocol, same run. Included from tests/bench/CMakeLists.txt.
# Run: BLOBBENCH_MARIADB_URL=mariadb://... mariadb_bench [--rows N] [--reps N]
find_package(PkgConfig REQUIRED)
pkg_check_modules(BENCH_MARIADB REQUIRED IMPORTED_TARGET libmariadb)
add_executable(mariadb_bench ${CMAKE_CURRENT_LIST_DIR}/mariadb_bench.cpp)
target_link_libraries(mariadb_bench PRIVATE blobbench_engine blobbench_warnings PkgConfig::BENCH_MARIADB)
