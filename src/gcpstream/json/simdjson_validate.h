#ifndef GCPSTREAM_JSON_SIMDJSON_VALIDATE_H_
#define GCPSTREAM_JSON_SIMDJSON_VALIDATE_H_

#include "absl/status/status.h"
#include "absl/strings/string_view.h"

namespace gcpstream::json {

// Validates `text` as one JSON value with simdjson's DOM parser (and
// nlohmann for whole numbers beyond 64 bits, which simdjson refuses and
// JSON allows). OK, or InvalidArgument in simdjson's words ("not one JSON
// value: ..."). ScanRecord accepts exactly the same texts in one cheaper
// pass; this says why a text is refused, and is the reference the tests
// and the fuzzer hold the scanner to. `text` needs simdjson's padding
// (PaddedBytes).
absl::Status ExplainInvalid(absl::string_view text);

}  // namespace gcpstream::json

#endif  // GCPSTREAM_JSON_SIMDJSON_VALIDATE_H_
