#ifndef GCPSTREAM_JSON_PADDED_BYTES_H_
#define GCPSTREAM_JSON_PADDED_BYTES_H_

#include <cstddef>
#include <memory>

#include "absl/strings/string_view.h"

namespace gcpstream::json {

// A run of bytes followed by at least kPadding readable bytes, sharing
// ownership of the buffer it was cut from: a reader cuts many lines out of
// one read block without copying each, and a SIMD parser may read past the
// end of any of them.
class PaddedBytes {
 public:
  static constexpr size_t kPadding = 64;

  // Empty (padded by a static block).
  PaddedBytes();
  // `data` .. `data + size + kPadding` lies inside `owner`'s allocation.
  PaddedBytes(std::shared_ptr<const char[]> owner, const char* data,
              size_t size)
      : owner_(std::move(owner)), data_(data), size_(size) {}

  // A padded copy of `bytes` in its own buffer.
  static PaddedBytes Copy(absl::string_view bytes);

  const char* data() const { return data_; }
  size_t size() const { return size_; }
  absl::string_view view() const { return {data_, size_}; }

 private:
  std::shared_ptr<const char[]> owner_;
  const char* data_;
  size_t size_ = 0;
};

}  // namespace gcpstream::json

#endif  // GCPSTREAM_JSON_PADDED_BYTES_H_
