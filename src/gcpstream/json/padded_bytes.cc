#include "gcpstream/json/padded_bytes.h"

#include <cstring>

namespace gcpstream::json {
namespace {

constexpr char kEmpty[PaddedBytes::kPadding] = {};

}  // namespace

PaddedBytes::PaddedBytes() : data_(kEmpty) {}

PaddedBytes PaddedBytes::Copy(absl::string_view bytes) {
  std::shared_ptr<char[]> buffer =
      std::make_shared_for_overwrite<char[]>(bytes.size() + kPadding);
  if (!bytes.empty()) std::memcpy(buffer.get(), bytes.data(), bytes.size());
  std::memset(buffer.get() + bytes.size(), 0, kPadding);
  const char* data = buffer.get();
  return PaddedBytes(std::move(buffer), data, bytes.size());
}

}  // namespace gcpstream::json
