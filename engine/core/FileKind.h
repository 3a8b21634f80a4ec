#pragma once

#include <string>

namespace blobbench {

// Why `path` cannot be read as a file, said before opening it: "not a regular file (a FIFO)" (a
// socket, a device: an open would block until a writer came, or read for ever), "is a directory",
// or the reason stat(2) gives (a loop of symbolic links, no permission). Empty for a regular file
// and for a path that does not exist (the open says that in its own words).
std::string whyNotAFile(const std::string& path);

}  // namespace blobbench
