#pragma once

#include "engine/drivers/Driver.h"

namespace blobbench {

// PostgreSQL through libpq. The connection string is libpq's own (conninfo or URI) and goes to libpq
// untouched, so PG* variables, .pgpass and service files work exactly as they do for psql.
class PostgresDriver final : public Driver {
public:
    std::string id() const override { return "postgres"; }
    std::string displayName() const override { return "PostgreSQL (libpq)"; }
    bool networked() const override { return true; }
    Dialect dialect() const override { return Dialect::PostgreSQL; }
    const std::vector<ParameterSpec>& parameters() const override;
    bool accepts(std::string_view target) const override;
    std::unique_ptr<Session> connect(const ConnectionSpec& spec, const ParameterValues& values) const override;
    std::optional<Endpoint> endpoint(const ConnectionSpec& spec) const override;
    ConnectionSpec redirected(const ConnectionSpec& spec, const Endpoint& to) const override;
};

}  // namespace blobbench
