#ifndef GCPSTREAM_JSON_JSON_SCAN_H_
#define GCPSTREAM_JSON_JSON_SCAN_H_

// Moving through JSON text that a validating parser has already accepted:
// no error is possible, so each step is a few comparisons. Positions are
// indexes into `text`; each function stays inside it.

#include <cstddef>

#include "absl/strings/string_view.h"

namespace gcpstream::json::scan {

inline bool IsWhitespace(char c) {
  return c == ' ' || c == '\n' || c == '\r' || c == '\t';
}

inline size_t SkipWhitespace(absl::string_view text, size_t at) {
  while (at < text.size() && IsWhitespace(text[at])) ++at;
  return at;
}

// The index of the quote closing the string whose opening quote is at
// `open`.
size_t StringEnd(absl::string_view text, size_t open);

// The index just after the value starting at `at`.
size_t ValueEnd(absl::string_view text, size_t at);

// The deepest nesting of arrays and objects.
size_t MaxDepth(absl::string_view text);

}  // namespace gcpstream::json::scan

#endif  // GCPSTREAM_JSON_JSON_SCAN_H_
