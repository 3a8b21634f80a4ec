#include "engine/drivers/firebird/FirebirdColumns.h"

#include <cstdint>
#include <cstring>
#include <string_view>

namespace blobbench::firebird {
namespace {

using Firebird::ThrowStatusWrapper;

constexpr unsigned kCharsetOctets = 1;
constexpr unsigned kCoercedTextLength = 128;

bool nativeType(unsigned type) {
    switch (type) {
        case SQL_VARYING:
        case SQL_TEXT:
        case SQL_SHORT:
        case SQL_LONG:
        case SQL_INT64:
        case SQL_FLOAT:
        case SQL_DOUBLE:
        case SQL_D_FLOAT:
        case SQL_BOOLEAN:
        case SQL_BLOB:
            return true;
        default:
            return false;
    }
}

double scaled(std::int64_t value, int scale) {
    double v = static_cast<double>(value);
    for (int i = 0; i < -scale; ++i) {
        v /= 10.0;
    }
    return v;
}

}  // namespace

Firebird::IMessageMetadata* readableMetadata(ThrowStatusWrapper& st, Firebird::IMessageMetadata* meta) {
    const unsigned count = meta->getCount(&st);
    bool coerce = false;
    for (unsigned i = 0; i < count; ++i) {
        coerce = coerce || !nativeType(meta->getType(&st, i) & ~kNullableBit);
    }
    if (!coerce) {
        meta->addRef();
        return meta;
    }
    Releaser<Firebird::IMetadataBuilder> builder{meta->getBuilder(&st)};
    for (unsigned i = 0; i < count; ++i) {
        if (!nativeType(meta->getType(&st, i) & ~kNullableBit)) {
            builder.object->setType(&st, i, SQL_VARYING);
            builder.object->setLength(&st, i, kCoercedTextLength);
        }
    }
    return builder.object->getMetadata(&st);
}

std::vector<OutColumn> describe(ThrowStatusWrapper& st, Firebird::IMessageMetadata* meta) {
    std::vector<OutColumn> columns(meta->getCount(&st));
    for (unsigned i = 0; i < columns.size(); ++i) {
        OutColumn& c = columns[i];
        c.type = meta->getType(&st, i) & ~kNullableBit;
        c.subType = meta->getSubType(&st, i);
        c.length = meta->getLength(&st, i);
        c.scale = meta->getScale(&st, i);
        c.offset = meta->getOffset(&st, i);
        c.nullOffset = meta->getNullOffset(&st, i);
        c.info.name = meta->getAlias(&st, i);
        switch (c.type) {
            case SQL_BLOB:
                c.info.isLob = true;
                c.info.kind = c.subType == 1 ? ColumnKind::Text : ColumnKind::Binary;
                break;
            case SQL_VARYING:
            case SQL_TEXT:
                c.info.kind = meta->getCharSet(&st, i) == kCharsetOctets ? ColumnKind::Binary : ColumnKind::Text;
                break;
            case SQL_BOOLEAN:
                c.info.kind = ColumnKind::Boolean;
                break;
            case SQL_SHORT:
            case SQL_LONG:
            case SQL_INT64:
                c.info.kind = c.scale == 0 ? ColumnKind::Integer : ColumnKind::Real;
                break;
            default:
                c.info.kind = ColumnKind::Real;
                break;
        }
    }
    return columns;
}

void emitScalar(const OutColumn& c, const unsigned char* row, std::size_t index, RowSink& sink) {
    const unsigned char* p = row + c.offset;
    switch (c.type) {
        case SQL_VARYING: {
            const auto length = load<std::uint16_t>(p);
            sink.chunk(index, std::string_view(reinterpret_cast<const char*>(p + 2), length));
            sink.valueEnd(index);
            return;
        }
        case SQL_TEXT:
            sink.chunk(index, std::string_view(reinterpret_cast<const char*>(p), c.length));
            sink.valueEnd(index);
            return;
        case SQL_BOOLEAN:
            sink.integer(index, *p ? 1 : 0);
            return;
        case SQL_SHORT:
        case SQL_LONG:
        case SQL_INT64: {
            const std::int64_t v = c.type == SQL_SHORT  ? load<std::int16_t>(p)
                                   : c.type == SQL_LONG ? load<std::int32_t>(p)
                                                        : load<std::int64_t>(p);
            if (c.scale == 0) {
                sink.integer(index, v);
            } else {
                sink.real(index, scaled(v, c.scale));
            }
            return;
        }
        case SQL_FLOAT:
            sink.real(index, load<float>(p));
            return;
        default:
            sink.real(index, load<double>(p));
            return;
    }
}

}  // namespace blobbench::firebird
