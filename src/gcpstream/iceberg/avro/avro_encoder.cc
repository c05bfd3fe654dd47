#include "gcpstream/iceberg/avro/avro_encoder.h"

#include <cstring>

namespace gcpstream::iceberg {

void AvroEncoder::Long(int64_t value) {
  // Zig-zag, so small negative numbers stay short.
  uint64_t n =
      (static_cast<uint64_t>(value) << 1) ^ static_cast<uint64_t>(value >> 63);
  while (n >= 0x80) {
    out_.push_back(static_cast<char>((n & 0x7f) | 0x80));
    n >>= 7;
  }
  out_.push_back(static_cast<char>(n));
}

void AvroEncoder::Float(float value) {
  char bytes[sizeof(value)];
  std::memcpy(bytes, &value, sizeof(value));  // x86-64 is little-endian.
  out_.append(bytes, sizeof(bytes));
}

void AvroEncoder::Double(double value) {
  char bytes[sizeof(value)];
  std::memcpy(bytes, &value, sizeof(value));
  out_.append(bytes, sizeof(bytes));
}

void AvroEncoder::Bytes(absl::string_view value) {
  Long(static_cast<int64_t>(value.size()));
  out_.append(value.data(), value.size());
}

}  // namespace gcpstream::iceberg
