// libFuzzer target for the project loader: any bytes must either load or be refused with
// Error(Data) -- never crash, hang or leak. A loaded project must save, and load again to the same
// bytes (the canonical form is a fixed point). Build: cmake -DBLOBBENCH_BUILD_FUZZ=ON with clang
// (see tests/fuzz/CMakeLists.txt); run: build/fuzz/tests/fuzz/project_fuzz -max_total_time=60
// resources/presets. With another compiler the same file builds as a replayer of files named
// on the command line (FuzzMain.h).
#include <QByteArray>
#include <QCoreApplication>
#include <cstdint>
#include <cstdio>
#include <cstdlib>

#include "engine/core/Error.h"
#include "model/ProjectFile.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    const QByteArray bytes(reinterpret_cast<const char*>(data), static_cast<qsizetype>(size));
    blobbench::Project project;
    try {
        project = blobbench::projectFromJson(bytes);
    } catch (const blobbench::Error& e) {
        if (e.kind() != blobbench::ErrorKind::Data) {
            std::abort();  // the loader refuses bad input as Data only
        }
        return 0;
    }
    QByteArray saved;
    try {
        saved = blobbench::projectToJson(project);
    } catch (const blobbench::Error&) {
        return 0;  // e.g. a seed that cannot be written back: refused, not crashed
    }
    if (blobbench::projectToJson(blobbench::projectFromJson(saved)) != saved) {
        std::abort();
    }
    return 0;
}

#include "FuzzMain.h"
