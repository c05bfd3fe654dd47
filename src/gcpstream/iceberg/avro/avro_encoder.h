#ifndef GCPSTREAM_ICEBERG_AVRO_AVRO_ENCODER_H_
#define GCPSTREAM_ICEBERG_AVRO_AVRO_ENCODER_H_

#include <cstdint>
#include <string>
#include <utility>

#include "absl/strings/string_view.h"

namespace gcpstream::iceberg {

// Avro's binary encoding of one datum, written field by field in schema
// order by the caller (who knows the schema): zig-zag varints for int and
// long, little-endian IEEE floats, length-prefixed strings and bytes, a
// union's branch index before its value, arrays and maps as one block of
// items followed by an empty block.
class AvroEncoder {
 public:
  void Null() {}
  void Boolean(bool value) { out_.push_back(value ? '\1' : '\0'); }
  void Int(int32_t value) { Long(value); }
  void Long(int64_t value);
  void Float(float value);
  void Double(double value);
  void Bytes(absl::string_view value);
  void String(absl::string_view value) { Bytes(value); }
  // The bytes of a fixed type, exactly as long as the schema says.
  void Fixed(absl::string_view value) {
    out_.append(value.data(), value.size());
  }
  void UnionBranch(int32_t index) { Long(index); }
  // Before the items of a non-empty array or map; then EndBlocks().
  void BlockCount(int64_t items) { Long(items); }
  void EndBlocks() { Long(0); }

  const std::string& bytes() const { return out_; }
  std::string Take() { return std::move(out_); }

 private:
  std::string out_;
};

}  // namespace gcpstream::iceberg

#endif  // GCPSTREAM_ICEBERG_AVRO_AVRO_ENCODER_H_
