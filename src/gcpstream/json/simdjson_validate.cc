#include "gcpstream/json/simdjson_validate.h"

#include <nlohmann/json.hpp>

#include "absl/strings/str_cat.h"
#include "gcpstream/json/json_scan.h"
#include "simdjson.h"

namespace gcpstream::json {
namespace {

// simdjson's default (record_scanner.h's kMaxNesting counts the same
// levels its way).
constexpr size_t kMaxDepth = simdjson::DEFAULT_MAX_DEPTH;

// One validating parser per thread, reused: it keeps its buffers sized to
// the largest record seen.
simdjson::dom::parser& ThreadParser() {
  thread_local simdjson::dom::parser parser;
  return parser;
}

}  // namespace

absl::Status ExplainInvalid(absl::string_view text) {
  simdjson::dom::element ignored;
  const simdjson::error_code error =
      ThreadParser()
          .parse(text.data(), text.size(), /*realloc_if_needed=*/false)
          .get(ignored);
  if (error == simdjson::SUCCESS) return absl::OkStatus();
  // simdjson refuses whole numbers beyond 64 bits; JSON allows them, and a
  // record holding one is valid (its value reads as a double). Numbers
  // beyond a double's range stay refused. nlohmann stops reading at a NUL
  // byte, which valid JSON never holds.
  if (error == simdjson::NUMBER_ERROR &&
      text.find('\0') == absl::string_view::npos &&
      nlohmann::json::accept(text.begin(), text.end())) {
    if (scan::MaxDepth(text) <= kMaxDepth) return absl::OkStatus();
    return absl::InvalidArgumentError(
        "not one JSON value: nested deeper than 1024 levels");
  }
  return absl::InvalidArgumentError(
      absl::StrCat("not one JSON value: ", simdjson::error_message(error)));
}

}  // namespace gcpstream::json
