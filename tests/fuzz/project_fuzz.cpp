// libFuzzer target for the project loader: any bytes must either load or be refused with
// Error(Data) -- never crash, hang or leak. A loaded project must save, and load again to the same
// bytes (the canonical form is a fixed point). Build: cmake -DBLOBBENCH_BUILD_FUZZ=ON with clang
// (see tests/fuzz/CMakeLists.txt); run: build/fuzz/tests/fuzz/project_fuzz -max_total_time=60
// resources/presets. With another compiler the same file builds as a replayer of files named
// on the command line (FuzzMain.h). Each input also runs in two long forms of 100 kB, as the
// file and as the text of a project's name, target and SQL (LongInput.h).
#include <QByteArray>
#include <QCoreApplication>
#include <cstdint>
#include <cstdio>
#include <cstdlib>

#include "LongInput.h"
#include "engine/core/Error.h"
#include "model/ProjectFile.h"

namespace {

void fuzzOne(const QByteArray& bytes) {
    blobbench::Project project;
    try {
        project = blobbench::projectFromJson(bytes);
    } catch (const blobbench::Error& e) {
        if (e.kind() != blobbench::ErrorKind::Data) {
            std::abort();  // the loader refuses bad input as Data only
        }
        return;
    }
    QByteArray saved;
    try {
        saved = blobbench::projectToJson(project);
    } catch (const blobbench::Error&) {
        return;  // e.g. a seed that cannot be written back: refused, not crashed
    }
    if (blobbench::projectToJson(blobbench::projectFromJson(saved)) != saved) {
        std::abort();
    }
}

// The text as the body of a JSON string: every byte below 0x20, '"' and '\\' escaped.
std::string jsonBody(const std::string& text) {
    std::string out;
    for (const unsigned char c : text) {
        if (c < 0x20 || c == '"' || c == '\\') {
            static const char hex[] = "0123456789abcdef";
            out += "\\u00";
            out += hex[c >> 4];
            out += hex[c & 15];
        } else {
            out += static_cast<char>(c);
        }
    }
    return out;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    const std::string text(reinterpret_cast<const char*>(data), size);
    fuzzOne(QByteArray::fromStdString(text));
    for (const std::string& longer : blobbench::fuzz::longForms(text)) {
        fuzzOne(QByteArray::fromStdString(longer));
        const std::string s = jsonBody(longer);
        const std::string project = R"({"formatVersion": 1, "name": ")" + s + R"(", "connections": [{"name": "c", )" +
                                    R"("engine": "postgres", "target": ")" + s + R"("}], "scenarios": [{"id": "s", )" +
                                    R"("title": "t", "kind": "query", "fetch": "content", "sql": ")" + s + R"("}]})";
        fuzzOne(QByteArray::fromStdString(project));
        const std::string sqlOnly =
            R"({"formatVersion": 1, "name": "n", "connections": [{"name": "c", )" +
            std::string(R"("engine": "postgres", "target": "host=h"}], "scenarios": [{"id": "s", )") +
            R"("title": "t", "kind": "query", "fetch": "content", "sql": ")" + s + R"("}]})";
        fuzzOne(QByteArray::fromStdString(sqlOnly));
    }
    return 0;
}

#include "FuzzMain.h"
