// libFuzzer target for the connection-string parsers: every registered driver's endpoint() and
// redirected() (Firebird URLs and host:path, libpq URIs and key=value strings, SQLite paths and
// file: URIs) and the Firebird splitter itself. Any text must parse or be refused with an Error,
// never crash; a networked target redirected to the relay must point at the relay and keep its
// database; the Firebird splitter must give back what it split. Secret masking and connection
// labels take the same text. Each input also runs in two long forms of 100 kB (LongInput.h).
#include <strings.h>
#include <cctype>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <string>

#include "LongInput.h"
#include "engine/core/Error.h"
#include "engine/drivers/Registry.h"
#include "engine/drivers/firebird/FirebirdConnectionString.h"

using namespace blobbench;

namespace {

void fuzzOne(const std::string& text) {
    for (const SecretRange& r : secretRanges(text)) {
        if (r.begin > r.end || r.end > text.size()) {
            std::abort();  // a range outside the text
        }
    }
    (void)maskSecrets(text);
    (void)firebird::looksLikeFirebirdTarget(text);
    firebird::FirebirdTarget fb;
    bool parsed = true;
    try {
        fb = firebird::parseFirebirdTarget(text);
    } catch (const Error& e) {
        // Refused with one line (user:password@ in a URL, hostile round 5j W2): a usage error, nothing else.
        if (e.kind() != ErrorKind::Usage) {
            std::abort();
        }
        parsed = false;
    }
    (void)fb.tcpPort();
    auto wellFormed = [](const std::string& s, const char* extra) {
        for (unsigned char c : s) {
            if (!std::isalnum(c) && std::strchr(extra, c) == nullptr) {
                return false;
            }
        }
        return true;
    };
    // A host named "firebird" (in any case: the prefix is read case-insensitively) in host:path form
    // reads back as our engine prefix: toString() is for the client library, which has no prefix,
    // so that one name cannot round-trip.
    if (parsed && fb.networked() && wellFormed(fb.host, "._-:%") && wellFormed(fb.port, "_-") &&
        strcasecmp(fb.host.c_str(), "firebird") != 0) {
        // Splitting what toString() wrote gives the same parts back (a malformed host or port is
        // left for the client library to refuse: it need only not crash, and be redirected below).
        const auto again = firebird::parseFirebirdTarget(fb.toString());
        if (again.host != fb.host || again.path != fb.path || again.port != fb.port) {
            std::abort();
        }
    }
    for (const Driver* driver : allDrivers()) {
        ConnectionSpec spec;
        spec.engine = driver->id();
        spec.target = text;
        try {
            const auto endpoint = driver->endpoint(spec);
            if (!endpoint) {
                continue;
            }
            const ConnectionSpec moved = driver->redirected(spec, Endpoint{"127.0.0.1", 40999});
            const auto now = driver->endpoint(moved);
            if (!now || now->host != "127.0.0.1" || now->port != 40999) {
                std::abort();  // a redirected connection that would bypass the relay
            }
        } catch (const Error&) {
            // refused with a message: fine
        }
        (void)spec.label();
    }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    const std::string text(reinterpret_cast<const char*>(data), size);
    fuzzOne(text);
    for (const std::string& longer : fuzz::longForms(text)) {
        fuzzOne(longer);
    }
    return 0;
}

#include "FuzzMain.h"
