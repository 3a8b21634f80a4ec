#include "engine/core/Error.h"
#include "engine/core/ErrorLine.h"

namespace blobbench {

std::string prefixedOnce(const std::string& context, const std::string& message) {
    if (context.empty() || (message.size() > context.size() + 1 && message.starts_with(context) &&
                            message.compare(context.size(), 2, ": ") == 0)) {
        return message;
    }
    return context + ": " + message;
}

std::string oneLine(const std::string& text) {
    std::string out;
    out.reserve(text.size());
    bool pendingSpace = false;
    for (char c : text) {
        if (c == '\n' || c == '\r' || c == '\t' || c == ' ') {
            pendingSpace = !out.empty();
            continue;
        }
        if (pendingSpace) {
            out.push_back(' ');
            pendingSpace = false;
        }
        out.push_back(c);
    }
    return out;
}

}  // namespace blobbench
