#pragma once

#include "engine/drivers/Driver.h"

namespace blobbench {

// Firebird through the OO API of a libfbclient loaded at run time (ConnectionSpec::clientLibrary),
// so one build can compare a 3.0 and a 5.x client against the same server.
class FirebirdDriver final : public Driver {
public:
    std::string id() const override { return "firebird"; }
    std::string displayName() const override { return "Firebird"; }
    bool networked() const override { return true; }
    Dialect dialect() const override { return Dialect::Firebird; }
    const std::vector<ParameterSpec>& parameters() const override;
    bool accepts(std::string_view target) const override;
    std::unique_ptr<Session> connect(const ConnectionSpec& spec, const ParameterValues& values) const override;
    std::optional<Endpoint> endpoint(const ConnectionSpec& spec) const override;
    ConnectionSpec redirected(const ConnectionSpec& spec, const Endpoint& to) const override;
};

}  // namespace blobbench
