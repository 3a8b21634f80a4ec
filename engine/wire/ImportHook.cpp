#include "engine/wire/ImportHook.h"

#include <dlfcn.h>
#include <elf.h>
#include <link.h>
#include <sys/mman.h>
#include <unistd.h>

#include <cstdint>
#include <cstring>
#include <mutex>

namespace blobbench {
namespace {

#if defined(__x86_64__)
constexpr std::uint32_t kJumpSlot = R_X86_64_JUMP_SLOT;
constexpr std::uint32_t kGlobDat = R_X86_64_GLOB_DAT;
constexpr bool kSupported = true;
#elif defined(__aarch64__)
constexpr std::uint32_t kJumpSlot = R_AARCH64_JUMP_SLOT;
constexpr std::uint32_t kGlobDat = R_AARCH64_GLOB_DAT;
constexpr bool kSupported = true;
#else
constexpr std::uint32_t kJumpSlot = 0;
constexpr std::uint32_t kGlobDat = 0;
constexpr bool kSupported = false;
#endif

struct Request {
    std::string_view library;
    std::span<const ImportRedirect> redirects;
    std::size_t patched = 0;
};

// glibc relocates the d_ptr values of the dynamic section in place on most targets; on the others
// they are still file addresses.
ElfW(Addr) absolute(ElfW(Addr) value, ElfW(Addr) base) {
    return value < base ? value + base : value;
}

bool writeSlot(void** slot, void* value, const dl_phdr_info* info) {
    const long pageSize = sysconf(_SC_PAGESIZE);
    auto* page =
        reinterpret_cast<void*>(reinterpret_cast<std::uintptr_t>(slot) & ~static_cast<std::uintptr_t>(pageSize - 1));
    // Full RELRO (BIND_NOW, as Debian builds libpq and fbclient): the slot is read-only until now.
    if (mprotect(page, static_cast<std::size_t>(pageSize), PROT_READ | PROT_WRITE) != 0) {
        return false;
    }
    __atomic_store_n(slot, value, __ATOMIC_RELEASE);
    for (int i = 0; i < info->dlpi_phnum; ++i) {
        const ElfW(Phdr)& ph = info->dlpi_phdr[i];
        if (ph.p_type != PT_GNU_RELRO) {
            continue;
        }
        const auto start = info->dlpi_addr + ph.p_vaddr;
        const auto at = reinterpret_cast<ElfW(Addr)>(slot);
        if (at >= start && at < start + ph.p_memsz) {
            mprotect(page, static_cast<std::size_t>(pageSize), PROT_READ);
        }
    }
    return true;
}

// A slot that still points into its own object has not been bound yet (lazy binding: the PLT
// stub that calls the resolver, e.g. the Firebird 5 tarball's client, built without BIND_NOW).
bool insideObject(const void* address, const dl_phdr_info* info) {
    const auto at = reinterpret_cast<ElfW(Addr)>(address);
    for (int i = 0; i < info->dlpi_phnum; ++i) {
        const ElfW(Phdr)& ph = info->dlpi_phdr[i];
        if (ph.p_type == PT_LOAD && at >= info->dlpi_addr + ph.p_vaddr &&
            at < info->dlpi_addr + ph.p_vaddr + ph.p_memsz) {
            return true;
        }
    }
    return false;
}

void patchObject(dl_phdr_info* info, Request& request) {
    const ElfW(Dyn)* dynamic = nullptr;
    for (int i = 0; i < info->dlpi_phnum; ++i) {
        if (info->dlpi_phdr[i].p_type == PT_DYNAMIC) {
            dynamic = reinterpret_cast<const ElfW(Dyn)*>(info->dlpi_addr + info->dlpi_phdr[i].p_vaddr);
        }
    }
    if (dynamic == nullptr) {
        return;
    }
    const ElfW(Addr) base = info->dlpi_addr;
    const ElfW(Sym)* symbols = nullptr;
    const char* strings = nullptr;
    const ElfW(Rela)* jumpRel = nullptr;
    std::size_t jumpRelSize = 0;
    const ElfW(Rela)* rela = nullptr;
    std::size_t relaSize = 0;
    bool pltIsRela = true;
    for (const ElfW(Dyn)* d = dynamic; d->d_tag != DT_NULL; ++d) {
        switch (d->d_tag) {
            case DT_SYMTAB:
                symbols = reinterpret_cast<const ElfW(Sym)*>(absolute(d->d_un.d_ptr, base));
                break;
            case DT_STRTAB:
                strings = reinterpret_cast<const char*>(absolute(d->d_un.d_ptr, base));
                break;
            case DT_JMPREL:
                jumpRel = reinterpret_cast<const ElfW(Rela)*>(absolute(d->d_un.d_ptr, base));
                break;
            case DT_PLTRELSZ:
                jumpRelSize = d->d_un.d_val;
                break;
            case DT_RELA:
                rela = reinterpret_cast<const ElfW(Rela)*>(absolute(d->d_un.d_ptr, base));
                break;
            case DT_RELASZ:
                relaSize = d->d_un.d_val;
                break;
            case DT_PLTREL:
                pltIsRela = d->d_un.d_val == DT_RELA;
                break;
            default:
                break;
        }
    }
    if (symbols == nullptr || strings == nullptr || !pltIsRela) {
        return;
    }
    auto patchTable = [&](const ElfW(Rela) * table, std::size_t size) {
        if (table == nullptr) {
            return;
        }
        for (std::size_t i = 0; i < size / sizeof(ElfW(Rela)); ++i) {
            const ElfW(Rela)& r = table[i];
            const auto type = static_cast<std::uint32_t>(ELF64_R_TYPE(r.r_info));
            if (type != kJumpSlot && type != kGlobDat) {
                continue;
            }
            const char* name = strings + symbols[ELF64_R_SYM(r.r_info)].st_name;
            for (const ImportRedirect& redirect : request.redirects) {
                if (std::strcmp(name, redirect.name) != 0) {
                    continue;
                }
                auto** slot = reinterpret_cast<void**>(base + r.r_offset);
                void* current = __atomic_load_n(slot, __ATOMIC_ACQUIRE);
                if (current == redirect.replacement) {
                    ++request.patched;
                } else if (current != nullptr) {
                    if (insideObject(current, info)) {
                        // What the resolver would bind: the global definition (a sanitizer's
                        // interceptor in the executable, else libc's). Calling the stub instead
                        // would bind the slot and undo the redirection.
                        current = dlsym(RTLD_DEFAULT, redirect.name);
                        if (current == nullptr) {
                            continue;
                        }
                    }
                    void* none = nullptr;
                    redirect.original->compare_exchange_strong(none, current, std::memory_order_acq_rel);
                    if (writeSlot(slot, redirect.replacement, info)) {
                        ++request.patched;
                    }
                }
            }
        }
    };
    patchTable(jumpRel, jumpRelSize);
    patchTable(rela, relaSize);
}

}  // namespace

std::recursive_mutex& importHookMutex() {
    static std::recursive_mutex mutex;
    return mutex;
}

std::size_t redirectImports(std::string_view library, std::span<const ImportRedirect> redirects) {
    if (!kSupported) {
        return 0;
    }
    // dl_iterate_phdr holds the loader's lock; ours orders concurrent callers' writes of `original`,
    // and keeps out of a library that a dlopen() under it is still relocating.
    std::lock_guard lock(importHookMutex());
    Request request{library, redirects};
    dl_iterate_phdr(
        [](dl_phdr_info* info, std::size_t, void* data) {
            auto& r = *static_cast<Request*>(data);
            if (info->dlpi_name != nullptr &&
                std::string_view(info->dlpi_name).find(r.library) != std::string_view::npos) {
                patchObject(info, r);
            }
            return 0;
        },
        &request);
    return request.patched;
}

}  // namespace blobbench
