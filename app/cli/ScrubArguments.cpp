#include "app/cli/ScrubArguments.h"

#include <cstring>
#include <string_view>

#include "engine/drivers/Driver.h"

namespace blobbench::cli {
namespace {

void blank(char* text, std::size_t begin, std::size_t end) {
    for (std::size_t i = begin; i < end; ++i) {
        text[i] = 'x';
    }
}

}  // namespace

void scrubArguments(int argc, char** argv) {
    for (int i = 1; i < argc; ++i) {
        char* arg = argv[i];
        const std::string_view text(arg);
        if ((text == "-p" || text == "--password" || text == "-password") && i + 1 < argc) {
            blank(argv[i + 1], 0, std::strlen(argv[i + 1]));
            ++i;
            continue;
        }
        if (text.starts_with("--password=")) {
            blank(arg, std::strlen("--password="), text.size());
            continue;
        }
        if (text.size() > 2 && text.starts_with("-p") && text[2] != '-') {  // "-pSECRET", as mysql takes it
            blank(arg, 2, text.size());
            continue;
        }
        for (const SecretRange& r : targetSecretRanges(text)) {
            blank(arg, r.begin, std::min(r.end, text.size()));
        }
    }
}

}  // namespace blobbench::cli
