#pragma once

#include <stdexcept>
#include <string>

namespace blobbench {

// What went wrong, for exit codes and for the one-line message a user sees.
enum class ErrorKind {
    Usage,        // bad option, bad value, unknown engine: exit 2
    Connect,      // could not attach / open
    Sql,          // the server refused a statement
    Io,           // files: missing, unreadable, not a directory
    Data,         // a data set that is missing, incomplete or corrupt
    Unsupported,  // the engine or client cannot do what was asked
    Cancelled,
    Internal,
};

// An error with context: which connection, which phase, what the server said. what() is one line.
class Error : public std::runtime_error {
public:
    Error(ErrorKind kind, const std::string& message) : std::runtime_error(message), m_kind(kind) {}
    ErrorKind kind() const { return m_kind; }

    // Prefixes context ("sqlite:/tmp/x.db: prepare: ") while keeping the kind.
    // "context: what", unless what already starts so (a driver's error names its connection).
    Error withContext(const std::string& context) const {
        const std::string said = what();
        return said.starts_with(context + ": ") ? *this : Error(m_kind, context + ": " + said);
    }

private:
    ErrorKind m_kind;
};

// Collapses a multi-line server message into one line for the user.
std::string oneLine(const std::string& text);

}  // namespace blobbench
