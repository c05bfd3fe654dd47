#ifndef GCPSTREAM_JSON_RECORD_SCANNER_H_
#define GCPSTREAM_JSON_RECORD_SCANNER_H_

#include <cstdint>
#include <string>

#include "absl/container/inlined_vector.h"
#include "absl/strings/string_view.h"

namespace gcpstream::json {

// One member of an object reachable from the root through objects.
struct IndexedMember {
  uint32_t key_offset = 0;  // In the text, or in the escaped keys.
  uint32_t key_size = 0;
  uint32_t value_offset = 0;
  uint32_t value_size = 0;
  uint32_t next = 0;  // The index after this member's own members.
  bool key_escaped = false;
};

// Inline room for the members of a typical record: indexing one then
// allocates nothing (four allocations per 5-member record otherwise, about
// 7% of a json-lines -> Pub/Sub record's cost).
using MemberIndex = absl::InlinedVector<IndexedMember, 8>;

// Non-empty objects and arrays a value may sit in, as simdjson counts them
// (an empty one is no level).
inline constexpr int kMaxNesting = 1023;

// Validates `text` as exactly one JSON value (RFC 8259, UTF-8; whitespace
// around it allowed) in one pass, and indexes it on the way: every
// member of every object reachable from the root through objects, in
// order, with keys that have escapes decoded into `escaped_keys`. False
// when the text is not JSON, nests deeper than kMaxNesting, holds a lone
// surrogate escape, or holds a number whose value is beyond a double's
// range: exactly what simdjson refuses, except that whole numbers beyond 64
// bits are accepted (docs/adr/0008-json-records.md). Reads up to 16 bytes
// past the end of `text`, which must be readable (PaddedBytes' padding).
bool ScanRecord(absl::string_view text, MemberIndex& members,
                std::string& escaped_keys);

}  // namespace gcpstream::json

#endif  // GCPSTREAM_JSON_RECORD_SCANNER_H_
