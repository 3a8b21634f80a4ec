#pragma once
// Result columns of the OO API: the message layout of a row, read without copying, and the
// guard that releases an interface (internal to the Firebird driver).

#include <firebird/Interface.h>

#include <cstddef>
#include <cstring>
#include <type_traits>
#include <vector>

#include "engine/drivers/Driver.h"

namespace blobbench::firebird {

constexpr unsigned kNullableBit = 1;

// A value of a message buffer, which need not be aligned for T.
template <typename T>
T load(const unsigned char* p) {
    T value;
    std::memcpy(&value, p, sizeof value);
    return value;
}

// Releases an interface unless it was handed on (close/free/commit release on success themselves).
// With `master`, a statement or cursor left behind by an error is freed or closed on the server
// too: a bare release would leave it allocated there until the attachment ends.
template <typename T>
struct Releaser {
    T* object = nullptr;
    Firebird::IMaster* master = nullptr;
    ~Releaser() {
        if (!object) {
            return;
        }
        if constexpr (std::is_base_of_v<Firebird::IDisposable, T>) {
            object->dispose();
        } else if constexpr (std::is_same_v<T, Firebird::IStatement> || std::is_same_v<T, Firebird::IResultSet>) {
            if (master) {
                Firebird::IStatus* raw = master->getStatus();
                Firebird::CheckStatusWrapper st(raw);
                if constexpr (std::is_same_v<T, Firebird::IStatement>) {
                    object->free(&st);
                } else {
                    object->close(&st);
                }
                const bool failed = st.hasData();
                raw->dispose();
                if (!failed) {
                    return;  // free/close released it
                }
            }
            object->release();
        } else {
            object->release();
        }
    }
    T* take() {
        T* o = object;
        object = nullptr;
        return o;
    }
};

struct OutColumn {
    unsigned type = 0;
    int subType = 0;
    unsigned length = 0;
    int scale = 0;
    unsigned offset = 0;
    unsigned nullOffset = 0;
    ColumnInfo info;
};

// Output metadata we can read directly: every other type (dates, newer numeric types of a 4.0+
// server) is coerced to text by the server.
Firebird::IMessageMetadata* readableMetadata(Firebird::ThrowStatusWrapper& st, Firebird::IMessageMetadata* meta);
std::vector<OutColumn> describe(Firebird::ThrowStatusWrapper& st, Firebird::IMessageMetadata* meta);
// Sends the non-BLOB value of one column of a row to the sink.
void emitScalar(const OutColumn& c, const unsigned char* row, std::size_t index, RowSink& sink);

}  // namespace blobbench::firebird
