#include "engine/drivers/firebird/FirebirdClient.h"

#include <dlfcn.h>
#include <firebird/Interface.h>

#include <cstdlib>
#include <map>
#include <mutex>
#include <regex>

#include "engine/core/Error.h"
#include "engine/wire/SocketCounter.h"

namespace blobbench::firebird {

std::string FbVersion::toString() const {
    return std::to_string(major) + "." + std::to_string(minor) + "." + std::to_string(patch);
}

FbVersion parseFbVersion(const std::string& text) {
    // "LI-V3.0.11.33637 Firebird 3.0"; clients answer isc_get_client_version with the InterBase
    // compatible "LI-V6.3.11.33637 Firebird 3.0", where only the trailing name tells major.minor.
    static const std::regex numbers(R"(V(\d+)\.(\d+)\.(\d+))");
    static const std::regex name(R"(Firebird (\d+)\.(\d+))");
    std::smatch match;
    FbVersion v;
    if (std::regex_search(text, match, numbers)) {
        v.major = std::stoi(match[1].str());
        v.minor = std::stoi(match[2].str());
        v.patch = std::stoi(match[3].str());
    }
    if (std::regex_search(text, match, name)) {
        v.major = std::stoi(match[1].str());
        v.minor = std::stoi(match[2].str());
    }
    return v;
}

FirebirdClient::FirebirdClient(std::string path, void* handle, Firebird::IMaster* master)
    : m_path(std::move(path)), m_handle(handle), m_master(master), m_util(master->getUtilInterface()) {
    // The legacy entry point carries the patch level, which decides 5.0.2 vs 5.0.3 features;
    // IUtil::getClientVersion only knows major.minor.
    using GetClientVersion = void (*)(char*);
    if (auto fn = reinterpret_cast<GetClientVersion>(dlsym(m_handle, "isc_get_client_version"))) {
        char buffer[256] = {};
        fn(buffer);
        m_version = parseFbVersion(buffer);
        // Shown like the server's version string, not in the InterBase numbering.
        static const std::regex interbase(R"(V\d+\.\d+\.)");
        m_versionText =
            std::regex_replace(std::string(buffer), interbase,
                               "V" + std::to_string(m_version.major) + "." + std::to_string(m_version.minor) + ".",
                               std::regex_constants::format_first_only);
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
void shutdownClients() {
    std::lock_guard lock(loadMutex());
    for (const auto& [path, handle] : loadedHandles()) {
        using Shutdown = int (*)(unsigned int, const int);
        if (auto fn = reinterpret_cast<Shutdown>(dlsym(handle, "fb_shutdown"))) {
            constexpr int kAppStopped = -3;  // fb_shutrsn_app_stopped
            fn(0, kAppStopped);
        }
    }
}

}  // namespace

std::shared_ptr<FirebirdClient> FirebirdClient::load(const std::string& requested) {
    std::mutex& mutex = loadMutex();
    static std::map<std::string, std::shared_ptr<FirebirdClient>> loaded;
    const std::string path = requested.empty() ? "libfbclient.so.2" : requested;
    std::lock_guard lock(mutex);
    if (auto it = loaded.find(path); it != loaded.end()) {
        return it->second;
    }
    dlerror();
    void* handle = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
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
    loaded.emplace(path, client);
    if (loadedHandles().empty()) {
        std::atexit(shutdownClients);  // after the library's own handlers: runs before them
    }
    loadedHandles().emplace(path, handle);
    return client;
}

}  // namespace blobbench::firebird
