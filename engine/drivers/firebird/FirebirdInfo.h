#pragma once
// Reading the answers of Firebird's info calls (IAttachment::getInfo and the like).

#include <firebird/Interface.h>

#include <cstddef>
#include <cstdint>

namespace blobbench::firebird {

// Little-endian ("VAX") integers of info buffers.
inline std::uint64_t vaxInteger(const unsigned char* p, unsigned length) {
    std::uint64_t value = 0;
    for (unsigned i = 0; i < length && i < 8; ++i) {
        value |= static_cast<std::uint64_t>(p[i]) << (8 * i);
    }
    return value;
}

// Walks an info answer: calls visit(item, data, length) for each item until isc_info_end.
template <typename Visit>
void walkInfo(const unsigned char* buffer, std::size_t size, Visit visit) {
    const unsigned char* p = buffer;
    const unsigned char* end = buffer + size;
    while (p < end && *p != isc_info_end) {
        const unsigned char item = *p++;
        if (item == isc_info_truncated || p + 2 > end) {
            break;
        }
        const auto length = static_cast<unsigned>(vaxInteger(p, 2));
        p += 2;
        if (p + length > end) {
            break;
        }
        visit(item, p, length);
        p += length;
    }
}

}  // namespace blobbench::firebird
