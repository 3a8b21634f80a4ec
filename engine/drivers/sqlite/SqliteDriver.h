#pragma once

#include "engine/drivers/Driver.h"

namespace blobbench {

// SQLite, embedded: the default engine that works with no server.
// Targets: "sqlite:PATH", "sqlite:///abs/path", or a plain path ending in .sqlite, .sqlite3 or .db.
class SqliteDriver final : public Driver {
public:
    std::string id() const override { return "sqlite"; }
    std::string displayName() const override { return "SQLite"; }
    bool networked() const override { return false; }
    Dialect dialect() const override { return Dialect::SQLite; }
    const std::vector<ParameterSpec>& parameters() const override;
    bool accepts(std::string_view target) const override;
    std::unique_ptr<Session> connect(const ConnectionSpec& spec, const ParameterValues& values) const override;

    // The file path of a target ("sqlite:/x.db" -> "/x.db").
    static std::string pathOf(std::string_view target);
};

}  // namespace blobbench
