#include "gcpstream/storage/crc32c.h"

#include <array>

#include "absl/strings/escaping.h"

namespace gcpstream::storage {
namespace {

constexpr uint32_t kPolynomial = 0x82F63B78;  // Castagnoli, reflected.

constexpr std::array<uint32_t, 256> MakeTable() {
  std::array<uint32_t, 256> table{};
  for (uint32_t i = 0; i < 256; ++i) {
    uint32_t crc = i;
    for (int bit = 0; bit < 8; ++bit) {
      crc = (crc & 1) != 0 ? (crc >> 1) ^ kPolynomial : crc >> 1;
    }
    table[i] = crc;
  }
  return table;
}

constexpr std::array<uint32_t, 256> kTable = MakeTable();

}  // namespace

uint32_t Crc32c(absl::string_view data, uint32_t crc) {
  crc = ~crc;
  for (const char c : data) {
    crc = kTable[(crc ^ static_cast<uint8_t>(c)) & 0xFF] ^ (crc >> 8);
  }
  return ~crc;
}

std::string Crc32cBase64(uint32_t crc) {
  const char big_endian[4] = {
      static_cast<char>(crc >> 24), static_cast<char>(crc >> 16),
      static_cast<char>(crc >> 8), static_cast<char>(crc)};
  return absl::Base64Escape(absl::string_view(big_endian, 4));
}

}  // namespace gcpstream::storage
