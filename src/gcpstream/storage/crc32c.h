#ifndef GCPSTREAM_STORAGE_CRC32C_H_
#define GCPSTREAM_STORAGE_CRC32C_H_

#include <cstdint>
#include <string>

#include "absl/strings/string_view.h"

namespace gcpstream::storage {

// CRC32C (Castagnoli), as Cloud Storage checks object contents with it.
// `crc` continues an earlier checksum (0 to start).
uint32_t Crc32c(absl::string_view data, uint32_t crc = 0);

// The form of the JSON API's `crc32c` field: base64 of the big-endian value.
std::string Crc32cBase64(uint32_t crc);

}  // namespace gcpstream::storage

#endif  // GCPSTREAM_STORAGE_CRC32C_H_
