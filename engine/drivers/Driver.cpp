#include "engine/drivers/Driver.h"

#include <regex>

namespace blobbench {

std::string maskSecrets(std::string_view text) {
    std::string out(text);
    if (out.find("://") == std::string::npos) {
        // conninfo: password=secret or password='se cret'
        static const std::regex conninfo(R"((password\s*=\s*)('([^'\\]|\\.)*'|\S+))", std::regex::icase);
        return std::regex_replace(out, conninfo, "$1***");
    }
    // URI: scheme://user:secret@host
    static const std::regex uri(R"(([a-zA-Z][a-zA-Z0-9+.-]*://[^/:@\s]*):[^@/\s]*@)");
    out = std::regex_replace(out, uri, "$1:***@");
    // URI query: ?password=secret&...
    static const std::regex query(R"(([?&]password=)[^&\s]*)", std::regex::icase);
    out = std::regex_replace(out, query, "$1***");
    return out;
}

std::string ConnectionSpec::label() const {
    // "sqlite:/x.db" already names its engine; "inet://h/db" and "/x.fdb" do not.
    const bool named = target.starts_with(engine + ":");
    return (named ? "" : engine + ":") + maskSecrets(target);
}

}  // namespace blobbench
