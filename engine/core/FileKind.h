#pragma once

#include <string>

namespace blobbench {

// Why `path` cannot be read as a file, said before opening it: "not a regular file (a FIFO)" (a
// socket, a device: an open would block until a writer came, or read for ever), "is a directory",
// or the reason stat(2) gives (a loop of symbolic links, no permission). Empty for a regular file
// and for a path that does not exist (the open says that in its own words).
std::string whyNotAFile(const std::string& path);

// The same for a shared library dlopen() would load: `name` with a '/' is that path; a bare name is
// looked up as the loader does in LD_LIBRARY_PATH (an empty entry is the working directory), and the
// first file of that name found there decides ("/opt/lib/x.so: not a regular file (a FIFO)"). A
// FIFO's open blocks dlopen() for ever; a truncated ELF file ("truncated: not a whole shared library
// ...") kills the process with SIGBUS inside it. Empty when the first one found is a whole regular
// file, or none is.
std::string whyNotALibraryFile(const std::string& name);

}  // namespace blobbench
