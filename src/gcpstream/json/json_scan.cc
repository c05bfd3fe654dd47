#include "gcpstream/json/json_scan.h"

#include <algorithm>
#include <cstring>

namespace gcpstream::json::scan {

size_t StringEnd(absl::string_view text, size_t open) {
  size_t at = open + 1;
  while (true) {
    const void* found = std::memchr(text.data() + at, '"', text.size() - at);
    // Validated text always closes its strings.
    if (found == nullptr) return text.size();
    const size_t quote = static_cast<const char*>(found) - text.data();
    // A quote preceded by an odd run of backslashes is escaped.
    size_t backslashes = 0;
    while (quote - backslashes > open + 1 &&
           text[quote - backslashes - 1] == '\\') {
      ++backslashes;
    }
    if (backslashes % 2 == 0) return quote;
    at = quote + 1;
  }
}

size_t ValueEnd(absl::string_view text, size_t at) {
  switch (text[at]) {
    case '"':
      return StringEnd(text, at) + 1;
    case '{':
    case '[': {
      int depth = 0;
      while (at < text.size()) {
        const char c = text[at];
        if (c == '"') {
          at = StringEnd(text, at) + 1;
          continue;
        }
        if (c == '{' || c == '[') ++depth;
        if (c == '}' || c == ']') {
          if (--depth == 0) return at + 1;
        }
        ++at;
      }
      return at;
    }
    default:
      // A number or a literal: up to the next delimiter.
      while (at < text.size() && !IsWhitespace(text[at]) && text[at] != ',' &&
             text[at] != '}' && text[at] != ']') {
        ++at;
      }
      return at;
  }
}

size_t MaxDepth(absl::string_view text) {
  size_t depth = 0;
  size_t deepest = 0;
  for (size_t at = 0; at < text.size(); ++at) {
    const char c = text[at];
    if (c == '"') {
      at = StringEnd(text, at);
    } else if (c == '{' || c == '[') {
      deepest = std::max(deepest, ++depth);
    } else if (c == '}' || c == ']') {
      --depth;
    }
  }
  return deepest;
}

}  // namespace gcpstream::json::scan
