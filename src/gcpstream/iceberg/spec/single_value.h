#ifndef GCPSTREAM_ICEBERG_SPEC_SINGLE_VALUE_H_
#define GCPSTREAM_ICEBERG_SPEC_SINGLE_VALUE_H_

#include <cstdint>
#include <optional>
#include <string>

#include "absl/numeric/int128.h"
#include "absl/strings/string_view.h"

namespace gcpstream::iceberg {

// Iceberg's binary single-value serialization (spec appendix D), used for
// the bounds manifests record.
std::string IntValue(int32_t value);    // int, date: 4 bytes LE.
std::string LongValue(int64_t value);   // long, time, timestamps: 8 bytes LE.
std::string FloatValue(float value);    // 4 bytes LE.
std::string DoubleValue(double value);  // 8 bytes LE.
std::string BooleanValue(bool value);   // 1 byte.
// Unscaled, big-endian two's complement, in the fewest bytes.
std::string DecimalValue(absl::int128 unscaled);

// A big-endian two's complement integer of up to 16 bytes; nullopt when
// longer (beyond decimal(38)) or empty.
std::optional<absl::int128> BigEndianToInt128(absl::string_view bytes);

// truncate(N) bounds: the lower bound is a prefix (N code points of a UTF-8
// string, N bytes of binary); the upper bound is the prefix with its last
// code point (byte) incremented, so it still sorts after every value;
// nullopt when no such bound exists (every code point or byte is the
// largest). Values no longer than N are returned as they are.
std::string TruncatedLower(absl::string_view value, int32_t length,
                           bool is_string);
std::optional<std::string> TruncatedUpper(absl::string_view value,
                                          int32_t length, bool is_string);

}  // namespace gcpstream::iceberg

#endif  // GCPSTREAM_ICEBERG_SPEC_SINGLE_VALUE_H_
