// A program that, like blobbench-cli and the window, does not link libfbclient: it connects once per
// argument (TARGET|CLIENT_LIBRARY, an empty library meaning the system client) and prints, per
// connection, the client's version, the file the loader opened and the server's engine version.
// test_firebird5 runs it: two client libraries in one process, in both orders, then exit.
#include <iostream>
#include <memory>
#include <vector>

#include "engine/core/Error.h"
#include "engine/drivers/firebird/FirebirdDriver.h"
#include "engine/drivers/firebird/FirebirdSession.h"

using namespace blobbench;

namespace {

class TextSink final : public RowSink {
public:
    void integer(std::size_t, std::int64_t) override {}
    void null(std::size_t) override {}
    void chunk(std::size_t, std::string_view bytes) override { text.append(bytes); }
    void endRow() override {}
    std::string text;
};

}  // namespace

int main(int argc, char** argv) {
    const char* user = std::getenv("BLOBBENCH_FB5_USER");
    const char* password = std::getenv("BLOBBENCH_FB5_PASSWORD");
    FirebirdDriver driver;
    std::vector<std::unique_ptr<Session>> open;  // all kept open to the end
    try {
        for (int i = 1; i < argc; ++i) {
            const std::string arg = argv[i];
            const auto bar = arg.find('|');
            ConnectionSpec spec;
            spec.engine = "firebird";
            spec.target = arg.substr(0, bar);
            spec.clientLibrary = bar == std::string::npos ? "" : arg.substr(bar + 1);
            spec.user = user ? user : "SYSDBA";
            spec.password = password ? password : "";
            open.push_back(driver.connect(spec, resolveParameters(driver.parameters(), {})));
            TextSink sink;
            QuerySpec q;
            q.sql = "SELECT RDB$GET_CONTEXT('SYSTEM', 'ENGINE_VERSION') FROM RDB$DATABASE";
            open.back()->query(q, sink, CancelToken());
            const auto& session = dynamic_cast<const firebird::FirebirdSession&>(*open.back());
            std::cout << session.client().version().toString() << ' ' << session.client().file() << ' ' << sink.text
                      << '\n';
        }
    } catch (const Error& e) {
        std::cerr << "probe: " << oneLine(e.what()) << '\n';
        return 1;
    }
    return 0;
}
