// The main() of a fuzz target built without libFuzzer (gcc, or clang without -fsanitize=fuzzer):
// it replays every file named on its command line, and every file in a named folder, through
// LLVMFuzzerTestOneInput. CTest runs it over tests/fuzz/corpus/<target>, so each input a fuzzer
// once crashed on stays a regression test in every build.
#pragma once

#ifndef BLOBBENCH_LIBFUZZER
#include <QCoreApplication>
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size);

int main(int argc, char** argv) {
    QCoreApplication app(argc, argv);
    std::vector<std::filesystem::path> files;
    for (int i = 1; i < argc; ++i) {
        const std::filesystem::path p(argv[i]);
        if (std::filesystem::is_directory(p)) {
            for (const auto& e : std::filesystem::directory_iterator(p)) {
                if (e.is_regular_file()) {
                    files.push_back(e.path());
                }
            }
        } else {
            files.push_back(p);
        }
    }
    if (files.empty()) {
        std::fprintf(stderr, "%s: no input files (name files or folders of the corpus)\n", argv[0]);
        return 2;
    }
    for (const auto& f : files) {
        std::ifstream in(f, std::ios::binary);
        const std::string data((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
        LLVMFuzzerTestOneInput(reinterpret_cast<const std::uint8_t*>(data.data()), data.size());
    }
    std::printf("%zu inputs replayed without a failure\n", files.size());
    return 0;
}
#endif
