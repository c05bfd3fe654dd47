// libFuzzer target for the Avro container reader (manifests and manifest
// lists written by other writers): any input must decode to records or a
// status, never crash, hang or allocate without bound. Build with clang:
// see docs/development.md ("Fuzzing").

#include <cstddef>
#include <cstdint>

#include "absl/strings/string_view.h"
#include "gcpstream/iceberg/avro/avro_reader.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  (void)gcpstream::iceberg::ReadAvroFile(
      absl::string_view(reinterpret_cast<const char*>(data), size));
  return 0;
}
