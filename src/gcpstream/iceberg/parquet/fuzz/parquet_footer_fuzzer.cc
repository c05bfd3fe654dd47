// libFuzzer target for the Parquet footer decoder: any input must decode to
// a footer or a status, never crash, hang or allocate without bound. Build
// with clang: see docs/development.md ("Fuzzing").

#include <cstddef>
#include <cstdint>

#include "absl/strings/string_view.h"
#include "gcpstream/iceberg/parquet/parquet_footer.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  (void)gcpstream::iceberg::DecodeParquetFooter(
      absl::string_view(reinterpret_cast<const char*>(data), size));
  return 0;
}
