// The precompiled header of the unit and integration tests is built with this file's target
// (tests/CMakeLists.txt, blobbench_testpch); every test executable reuses it.
