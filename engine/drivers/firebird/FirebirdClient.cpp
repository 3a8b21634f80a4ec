#include "engine/drivers/firebird/FirebirdClient.h"

#include <dlfcn.h>
#include <firebird/Interface.h>
#include <link.h>

#include <cstdlib>
#include <map>
#include <mutex>
#include <string>
#include <vector>

#include "engine/core/Error.h"
#include "engine/core/FileKind.h"
#include "engine/wire/ImportHook.h"
#include "engine/wire/SocketCounter.h"

namespace blobbench::firebird {

std::string FbVersion::toString() const {
    return std::to_string(major) + "." + std::to_string(minor) + "." + std::to_string(patch);
}

namespace {

// Digits at `at` as a number of at most 9 digits (a longer run is no version part); moves `at` past them.
bool readNumber(const std::string& text, std::size_t& at, int& value) {
    const std::size_t begin = at;
    value = 0;
    while (at < text.size() && text[at] >= '0' && text[at] <= '9') {
        if (at - begin >= 9) {
            return false;
        }
        value = value * 10 + (text[at] - '0');
        ++at;
    }
    return at > begin;
}

bool readDot(const std::string& text, std::size_t& at) {
    if (at < text.size() && text[at] == '.') {
        ++at;
        return true;
    }
    return false;
}

// The first "V<major>.<minor>.<patch>" (parts = 3) or "V<major>.<minor>." (parts = 2, the InterBase
// prefix): where it starts and ends and its numbers. A hand-written scan, not std::regex, which
// recursed once per character of the text.
struct VersionMatch {
    std::size_t begin = std::string::npos;
    std::size_t end = 0;
    int numbers[3] = {0, 0, 0};
};

VersionMatch findVersion(const std::string& text, const std::string& lead, int parts, bool trailingDot) {
    VersionMatch m;
    for (std::size_t at = text.find(lead); at != std::string::npos; at = text.find(lead, at + 1)) {
        std::size_t i = at + lead.size();
        bool ok = true;
        for (int part = 0; ok && part < parts; ++part) {
            ok = readNumber(text, i, m.numbers[part]) &&
                 (part + 1 == parts ? !trailingDot || readDot(text, i) : readDot(text, i));
        }
        if (ok) {
            m.begin = at;
            m.end = i;
            return m;
        }
    }
    return m;
}

// The file a dlopen handle was loaded from.
std::string fileOf(void* handle) {
    link_map* map = nullptr;
    if (dlinfo(handle, RTLD_DI_LINKMAP, &map) == 0 && map && map->l_name) {
        return map->l_name;
    }
    return {};
}

}  // namespace

FbVersion parseFbVersion(const std::string& text) {
    // "LI-V3.0.11.33637 Firebird 3.0"; clients answer isc_get_client_version with the InterBase
    // compatible "LI-V6.3.11.33637 Firebird 3.0", where only the trailing name tells major.minor.
    FbVersion v;
    if (const auto numbers = findVersion(text, "V", 3, false); numbers.begin != std::string::npos) {
        v.major = numbers.numbers[0];
        v.minor = numbers.numbers[1];
        v.patch = numbers.numbers[2];
    }
    if (const auto name = findVersion(text, "Firebird ", 2, false); name.begin != std::string::npos) {
        v.major = name.numbers[0];
        v.minor = name.numbers[1];
    }
    return v;
}

FirebirdClient::FirebirdClient(std::string path, void* handle, Firebird::IMaster* master)
    : m_path(std::move(path)),
      m_file(fileOf(handle)),
      m_handle(handle),
      m_master(master),
      m_util(master->getUtilInterface()) {
    // The legacy entry point carries the patch level, which decides 5.0.2 vs 5.0.3 features;
    // IUtil::getClientVersion only knows major.minor.
    using GetClientVersion = void (*)(char*);
    if (auto fn = reinterpret_cast<GetClientVersion>(dlsym(m_handle, "isc_get_client_version"))) {
        char buffer[256] = {};
        fn(buffer);
        m_version = parseFbVersion(buffer);
        // Shown like the server's version string, not in the InterBase numbering.
        m_versionText = buffer;
        if (const auto interbase = findVersion(m_versionText, "V", 2, true); interbase.begin != std::string::npos) {
            m_versionText.replace(interbase.begin, interbase.end - interbase.begin,
                                  "V" + std::to_string(m_version.major) + "." + std::to_string(m_version.minor) + ".");
        }
    }
    if (m_version.major == 0) {
        const unsigned v = m_util->getClientVersion();
        m_version.major = static_cast<int>(v >> 8);
        m_version.minor = static_cast<int>(v & 0xFF);
        m_versionText = std::to_string(m_version.major) + "." + std::to_string(m_version.minor);
    }
}

Firebird::IProvider* FirebirdClient::dispatcher() const {
    return m_master->getDispatcher();
}

namespace {

std::mutex& loadMutex() {
    static std::mutex mutex;
    return mutex;
}

// Never destroyed: the exit handler below still reads it after static destructors may have run.
std::map<std::string, void*>& loadedHandles() {
    static auto* handles = new std::map<std::string, void*>();
    return *handles;
}

// At exit, before anything that was set up earlier (LeakSanitizer's exit-time check, atexit is
// last-in first-out): shut every loaded client down, so its threads (the remote client's
// listeners and timers) have ended and nothing still runs while the process tears down. fbclient
// does the same from its own exit handler, later; a second fb_shutdown is a no-op.
// Keeps every Firebird plugin module (libChaCha.so and the like, which a client loads for wire
// encryption and unloads at fb_shutdown) mapped to the end of the process: the 5.0 tarball's
// modules carry their own static libstdc++, whose emergency exception pool would otherwise be
// left behind by an unloaded module, where LeakSanitizer can neither follow nor name it.
void pinPlugins() {
    dl_iterate_phdr(
        [](dl_phdr_info* info, std::size_t, void*) {
            const std::string name = info->dlpi_name ? info->dlpi_name : "";
            if (name.find("/plugins/lib") != std::string::npos) {
                dlopen(name.c_str(), RTLD_LAZY | RTLD_NOLOAD | RTLD_NODELETE);
            }
            return 0;
        },
        nullptr);
}

// Registered again after each library is loaded, so that it runs before the exit handlers of the
// last one too; only its first run (the latest registration) does anything: after it the libraries'
// own handlers have torn them down, and a client shut down once more then crashes (seen with a
// 3.0 and a 5.0 client in one process).
void shutdownClients() {
    std::lock_guard lock(loadMutex());
    static bool done = false;
    if (done) {
        return;
    }
    done = true;
    pinPlugins();
    for (const auto& [path, handle] : loadedHandles()) {
        using Shutdown = int (*)(unsigned int, const int);
        if (auto fn = reinterpret_cast<Shutdown>(dlsym(handle, "fb_shutdown"))) {
            constexpr int kAppStopped = -3;  // fb_shutrsn_app_stopped
            fn(0, kAppStopped);
        }
    }
}

constexpr const char* kSystemClient = "libfbclient.so.2";

// Where the system's libfbclient.so.2 lives: beside libc (Debian: /lib/x86_64-linux-gnu) or in
// the /usr of that folder, then the generic folders.
std::vector<std::string> systemClientCandidates() {
    std::vector<std::string> out;
    Dl_info info{};
    if (dladdr(reinterpret_cast<void*>(&dlerror), &info) != 0 && info.dli_fname) {
        std::string dir = info.dli_fname;
        dir = dir.substr(0, dir.find_last_of('/'));
        if (!dir.starts_with("/usr/")) {
            out.push_back("/usr" + dir + "/" + kSystemClient);
        }
        out.push_back(dir + "/" + kSystemClient);
    }
    for (const char* dir : {"/usr/lib64", "/usr/lib", "/lib64", "/lib"}) {
        out.push_back(std::string(dir) + "/" + kSystemClient);
    }
    return out;
}

// Every Firebird client has the soname libfbclient.so.2, and dlopen("libfbclient.so.2") answers
// with any library of that soname already loaded: after a 5.0 client loaded by its path, the
// system client would silently be that 5.0 client. Opens the system one by its own path then, or
// refuses in one line.
void* openSystemClient() {
    void* handle = dlopen(kSystemClient, RTLD_NOW | RTLD_LOCAL);
    if (!handle) {
        return nullptr;
    }
    std::string taken;
    for (const auto& [path, other] : loadedHandles()) {
        if (other == handle && path != kSystemClient) {
            taken = path;
        }
    }
    if (taken.empty()) {
        return handle;
    }
    dlclose(handle);  // only drops the reference this call took
    for (const auto& candidate : systemClientCandidates()) {
        void* h = dlopen(candidate.c_str(), RTLD_NOW | RTLD_LOCAL);
        if (!h) {
            continue;
        }
        bool distinct = true;
        for (const auto& [path, other] : loadedHandles()) {
            distinct = distinct && other != h;
        }
        if (distinct) {
            return h;
        }
        dlclose(h);
    }
    dlerror();
    throw Error(ErrorKind::Connect, std::string("the system Firebird client (") + kSystemClient +
                                        ") cannot be told apart from '" + taken + "', loaded before in this process " +
                                        "(the same soname): name the system client's full path as client library");
}

}  // namespace

void FirebirdClient::keepPluginsLoaded() {
    pinPlugins();
}

std::shared_ptr<FirebirdClient> FirebirdClient::load(const std::string& requested) {
    std::mutex& mutex = loadMutex();
    static std::map<std::string, std::shared_ptr<FirebirdClient>> loaded;
    const std::string path = requested.empty() ? kSystemClient : requested;
    std::lock_guard lock(mutex);
    if (auto it = loaded.find(path); it != loaded.end()) {
        return it->second;
    }
    // dlopen of a FIFO waits in open(2) for a writer for ever, before any connect timeout applies.
    if (const std::string why = whyNotALibraryFile(requested); !why.empty()) {
        throw Error(ErrorKind::Connect, "cannot load the Firebird client library '" + path + "': " + why);
    }
    dlerror();
    // No GOT is patched while the loader relocates the client (another session's connect, counted
    // in-process, hooks the client libraries it finds loaded).
    std::lock_guard hooks(importHookMutex());
    void* handle = requested.empty() ? openSystemClient() : dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
    if (!handle) {
        const char* why = dlerror();
        throw Error(ErrorKind::Connect,
                    "cannot load the Firebird client library '" + path + "': " + oneLine(why ? why : "unknown error"));
    }
    if (SocketCounter::adoptingOnThisThread()) {
        SocketCounter::hookClientLibraries();  // loaded inside a connect counted in-process
    }
    using GetMaster = Firebird::IMaster* (*)();
    auto getMaster = reinterpret_cast<GetMaster>(dlsym(handle, "fb_get_master_interface"));
    if (!getMaster) {
        dlclose(handle);
        throw Error(ErrorKind::Connect, "'" + path +
                                            "' is not a Firebird 3.0 or later client library (no "
                                            "fb_get_master_interface)");
    }
    Firebird::IMaster* master = getMaster();
    if (!master) {
        throw Error(ErrorKind::Connect, "'" + path + "': fb_get_master_interface returned nothing");
    }
    auto client = std::make_shared<FirebirdClient>(path, handle, master);
    // A process that links a Firebird client itself (blobbench-cli and the workbench do not) puts
    // that client's symbols first: another client dlopen'ed there calls into the linked one (seen:
    // a 5.0 client that reports 5.0.4 but connects with the 3.0 client's protocol 15). Refused,
    // never used as the wrong client.
    if (auto* global = dlsym(RTLD_DEFAULT, "fb_get_master_interface");
        global && global != reinterpret_cast<void*>(getMaster)) {
        Dl_info linked{};
        const std::string other = dladdr(global, &linked) != 0 && linked.dli_fname ? linked.dli_fname : "?";
        throw Error(ErrorKind::Connect, "'" + path + "' (Firebird " + client->version().toString() +
                                            ") cannot be used in this process: it links the Firebird client " + other +
                                            ", whose symbols would take over; use blobbench-cli or the workbench");
    }
    loaded.emplace(path, client);
    loadedHandles().emplace(path, handle);
    std::atexit(shutdownClients);  // after this library's own handlers: runs before them
    return client;
}

}  // namespace blobbench::firebird
