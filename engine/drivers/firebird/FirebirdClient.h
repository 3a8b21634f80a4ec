#pragma once

#include <memory>
#include <string>

namespace Firebird {
class IMaster;
class IUtil;
class IProvider;
}  // namespace Firebird

namespace blobbench::firebird {

// A three-part version (5.0.3) compared as a tuple; 0.0.0 when unknown.
struct FbVersion {
    int major = 0;
    int minor = 0;
    int patch = 0;
    // NOLINTNEXTLINE(modernize-use-nullptr): a false positive of clang-tidy 14 on a defaulted <=>.
    auto operator<=>(const FbVersion&) const = default;
    std::string toString() const;
};

// Finds the first "V<major>.<minor>.<patch>" in a Firebird version string ("LI-V3.0.11.33703 Firebird 3.0").
FbVersion parseFbVersion(const std::string& text);

// libfbclient loaded at run time, so a user can compare clients (3.0 from Debian, a 5.x tarball)
// against the same server without rebuilding.
class FirebirdClient {
public:
    // Loads `path` (empty: the system libfbclient.so.2) once per process and keeps it loaded:
    // fbclient starts threads and registers exit handlers that do not survive dlclose.
    // Throws Error(Connect) naming the path and dlerror() when it cannot be loaded.
    static std::shared_ptr<FirebirdClient> load(const std::string& path);

    const std::string& path() const { return m_path; }
    // The file the dynamic loader really opened (the system client: its full path).
    const std::string& file() const { return m_file; }
    Firebird::IMaster* master() const { return m_master; }
    Firebird::IUtil* util() const { return m_util; }
    // "LI-V3.0.11.33703 Firebird 3.0" (isc_get_client_version) or "3.0" from IUtil when absent.
    const std::string& versionText() const { return m_versionText; }
    const FbVersion& version() const { return m_version; }

    // Keeps the plugin modules the clients have loaded so far (wire encryption) mapped for the life
    // of the process; called after each attachment.
    static void keepPluginsLoaded();

    // The y-valve dispatcher; the caller releases it.
    Firebird::IProvider* dispatcher() const;

    FirebirdClient(std::string path, void* handle, Firebird::IMaster* master);

private:
    std::string m_path;
    std::string m_file;
    void* m_handle = nullptr;
    Firebird::IMaster* m_master = nullptr;
    Firebird::IUtil* m_util = nullptr;
    std::string m_versionText;
    FbVersion m_version;
};

}  // namespace blobbench::firebird
