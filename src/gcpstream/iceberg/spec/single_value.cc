#include "gcpstream/iceberg/spec/single_value.h"

#include <cstring>
#include <vector>

namespace gcpstream::iceberg {
namespace {

template <typename T>
std::string LittleEndian(T value) {
  std::string out(sizeof(T), '\0');
  std::memcpy(out.data(), &value, sizeof(T));  // x86-64 and ARM64 are LE.
  return out;
}

// The UTF-8 code points of `value` (which statistics guarantee well
// formed; a stray byte counts as one code point).
std::vector<std::string> CodePoints(absl::string_view value) {
  std::vector<std::string> out;
  for (size_t at = 0; at < value.size();) {
    const auto lead = static_cast<uint8_t>(value[at]);
    size_t length = 1;
    if (lead >= 0xF0) {
      length = 4;
    } else if (lead >= 0xE0) {
      length = 3;
    } else if (lead >= 0xC0) {
      length = 2;
    }
    length = std::min(length, value.size() - at);
    out.emplace_back(value.substr(at, length));
    at += length;
  }
  return out;
}

uint32_t Decode(const std::string& cp) {
  const auto b = [&](size_t i) {
    return static_cast<uint32_t>(static_cast<uint8_t>(cp[i]));
  };
  switch (cp.size()) {
    case 1:
      return b(0);
    case 2:
      return ((b(0) & 0x1F) << 6) | (b(1) & 0x3F);
    case 3:
      return ((b(0) & 0x0F) << 12) | ((b(1) & 0x3F) << 6) | (b(2) & 0x3F);
    default:
      return ((b(0) & 0x07) << 18) | ((b(1) & 0x3F) << 12) |
             ((b(2) & 0x3F) << 6) | (b(3) & 0x3F);
  }
}

std::string Encode(uint32_t cp) {
  std::string out;
  if (cp < 0x80) {
    out.push_back(static_cast<char>(cp));
  } else if (cp < 0x800) {
    out.push_back(static_cast<char>(0xC0 | (cp >> 6)));
    out.push_back(static_cast<char>(0x80 | (cp & 0x3F)));
  } else if (cp < 0x10000) {
    out.push_back(static_cast<char>(0xE0 | (cp >> 12)));
    out.push_back(static_cast<char>(0x80 | ((cp >> 6) & 0x3F)));
    out.push_back(static_cast<char>(0x80 | (cp & 0x3F)));
  } else {
    out.push_back(static_cast<char>(0xF0 | (cp >> 18)));
    out.push_back(static_cast<char>(0x80 | ((cp >> 12) & 0x3F)));
    out.push_back(static_cast<char>(0x80 | ((cp >> 6) & 0x3F)));
    out.push_back(static_cast<char>(0x80 | (cp & 0x3F)));
  }
  return out;
}

}  // namespace

std::string IntValue(int32_t value) { return LittleEndian(value); }
std::string LongValue(int64_t value) { return LittleEndian(value); }
std::string FloatValue(float value) { return LittleEndian(value); }
std::string DoubleValue(double value) { return LittleEndian(value); }
std::string BooleanValue(bool value) { return std::string(1, value ? 1 : 0); }

std::string DecimalValue(absl::int128 unscaled) {
  std::string out(16, '\0');
  auto bits = static_cast<absl::uint128>(unscaled);
  for (int i = 15; i >= 0; --i) {
    out[static_cast<size_t>(i)] =
        static_cast<char>(absl::Uint128Low64(bits) & 0xFF);
    bits >>= 8;
  }
  // Drop leading bytes that only repeat the sign.
  size_t start = 0;
  while (start < 15) {
    const auto byte = static_cast<uint8_t>(out[start]);
    const auto next = static_cast<uint8_t>(out[start + 1]);
    if ((byte == 0x00 && (next & 0x80) == 0) ||
        (byte == 0xFF && (next & 0x80) != 0)) {
      ++start;
    } else {
      break;
    }
  }
  return out.substr(start);
}

std::optional<absl::int128> BigEndianToInt128(absl::string_view bytes) {
  // Sign-extension bytes beyond 16 carry nothing.
  while (bytes.size() > 16) {
    const auto first = static_cast<uint8_t>(bytes[0]);
    const auto next = static_cast<uint8_t>(bytes[1]);
    if (!((first == 0x00 && (next & 0x80) == 0) ||
          (first == 0xFF && (next & 0x80) != 0))) {
      return std::nullopt;
    }
    bytes.remove_prefix(1);
  }
  if (bytes.empty()) return std::nullopt;
  absl::uint128 value =
      (static_cast<uint8_t>(bytes[0]) & 0x80) != 0 ? ~absl::uint128(0) : 0;
  for (char byte : bytes) {
    value = (value << 8) | static_cast<uint8_t>(byte);
  }
  return static_cast<absl::int128>(value);
}

std::string TruncatedLower(absl::string_view value, int32_t length,
                           bool is_string) {
  if (!is_string) {
    return std::string(value.substr(0, static_cast<size_t>(length)));
  }
  std::vector<std::string> points = CodePoints(value);
  std::string out;
  for (size_t i = 0; i < points.size() && i < static_cast<size_t>(length);
       ++i) {
    out += points[i];
  }
  return out;
}

std::optional<std::string> TruncatedUpper(absl::string_view value,
                                          int32_t length, bool is_string) {
  const auto n = static_cast<size_t>(length);
  if (!is_string) {
    if (value.size() <= n) return std::string(value);
    std::string out(value.substr(0, n));
    while (!out.empty()) {
      auto last = static_cast<uint8_t>(out.back());
      if (last != 0xFF) {
        out.back() = static_cast<char>(last + 1);
        return out;
      }
      out.pop_back();
    }
    return std::nullopt;
  }
  std::vector<std::string> points = CodePoints(value);
  if (points.size() <= n) return std::string(value);
  points.resize(n);
  while (!points.empty()) {
    uint32_t next = Decode(points.back()) + 1;
    if (next >= 0xD800 && next <= 0xDFFF) next = 0xE000;  // Not surrogates.
    if (next <= 0x10FFFF) {
      points.back() = Encode(next);
      std::string out;
      for (const std::string& point : points) out += point;
      return out;
    }
    points.pop_back();
  }
  return std::nullopt;
}

}  // namespace gcpstream::iceberg
