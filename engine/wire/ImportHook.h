#pragma once

#include <atomic>
#include <cstddef>
#include <mutex>
#include <span>
#include <string_view>

namespace blobbench {

// One imported function of a shared library to redirect: `replacement` is written into the
// library's GOT slot for `name`; `original` receives what the slot held (the function the library
// would have called: libc's, or a sanitizer's interceptor), once, from the first slot patched.
struct ImportRedirect {
    const char* name;
    void* replacement;
    std::atomic<void*>* original;  // atomic: read by the wrappers on any thread
};

// Rewrites the GOT slots (JUMP_SLOT and GLOB_DAT relocations) of every loaded object whose file
// name contains `library` ("libpq.so", "libfbclient.so") so that its own calls to the named
// functions go to the replacements. Only that library's calls change: the rest of the process
// (the executable, the relay, Qt's X11 and D-Bus sockets) keeps calling libc directly.
// Idempotent (a slot that already holds its replacement is left alone) and safe to call again
// after a dlopen(). Returns the number of slots that now hold a replacement; 0 when the library is
// not loaded or the platform is not supported (x86-64 and AArch64 ELF only).
std::size_t redirectImports(std::string_view library, std::span<const ImportRedirect> redirects);

// Held by redirectImports(), and to be held around a dlopen() of a library it may patch: the loader
// lists an object (dl_iterate_phdr) as soon as it is mapped, before it is relocated, and a GOT patched
// then (its page set back to read-only) made the loader's own relocation of it fault (hostile round 5h
// C1: three sessions connecting to Firebird 3 at once crashed the process one run in four).
std::recursive_mutex& importHookMutex();

}  // namespace blobbench
