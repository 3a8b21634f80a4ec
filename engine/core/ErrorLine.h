#pragma once

#include <string>

namespace blobbench {

// "context: message", unless the message already starts with "context: ": a line names its
// connection once, not "firebird:inet://h/db: firebird:inet://h/db: connect: ..." (drivers name
// the connection in their own messages; the layers above add it for those that do not).
std::string prefixedOnce(const std::string& context, const std::string& message);

}  // namespace blobbench
