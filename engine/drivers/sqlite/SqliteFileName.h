#pragma once

#include <optional>
#include <string>
#include <string_view>

namespace blobbench {

// The file SQLite opens for `name` (what follows "sqlite:"). A URI file name ("file:/x/s.db?mode=ro",
// "file:///x/s.db", "file:s%20b.db") is read as SQLite reads it: the path before '?' or '#', an
// authority of "" or "localhost" dropped, %XX decoded. Any other name is the path itself.
// std::nullopt for an in-memory database (":memory:", "file::memory:", "file:x?mode=memory"), which
// has no file. For a URI whose authority SQLite refuses the name is returned as it is (the open says why).
std::optional<std::string> sqliteFileOf(std::string_view name);

// Whether `name` is a URI file name ("file:..."), which SQLite opens with SQLITE_OPEN_URI.
bool isSqliteUri(std::string_view name);

// The value of a URI file name's query parameter ("file:x.db?mode=rwc", "mode" -> "rwc"), or empty.
std::string sqliteUriParameter(std::string_view name, std::string_view key);

}  // namespace blobbench
