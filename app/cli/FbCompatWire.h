#pragma once

#include <chrono>
#include <functional>
#include <string>

#include "engine/wire/LinkProfile.h"

namespace blobbench::cli {

// The wire extensions of the fb-blob-test compatible mode, all off by default so that its output
// stays the reference tool's: --tap counts the wire (in-process, at fbclient's own socket calls,
// unless a link is emulated or --relay asks for the relay), --latency/--bandwidth (and their -up/
// -down forms, --up, --down) emulate a link through the relay.
struct CompatWireOptions {
    bool tap = false;
    bool relay = false;
    bool tapGiven = false;  // --tap itself (in-process counting), which --relay contradicts
    LinkProfile link;
    std::chrono::seconds stallTimeout{30};  // --stall-timeout (StallGuard.h), counted or not
};

// True when `arg` is one of the options above (its value, if any, read through `take`).
bool parseCompatWireOption(const std::string& arg, const std::function<std::string()>& take, CompatWireOptions& o);
bool isCompatWireValueOption(const std::string& arg);  // options that take a value
std::string compatWireUsage();

}  // namespace blobbench::cli
