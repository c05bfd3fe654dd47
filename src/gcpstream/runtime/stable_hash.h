#ifndef GCPSTREAM_RUNTIME_STABLE_HASH_H_
#define GCPSTREAM_RUNTIME_STABLE_HASH_H_

#include <concepts>
#include <cstdint>
#include <string>

#include "absl/strings/string_view.h"

namespace gcpstream::runtime {

// Key hashes that are the same in every process and every version (unlike
// absl::Hash, which is seeded per process), so a key is routed to the same
// subtask after a restart and a replay is routed as the original was.

// SplitMix64's finalizer: a full-avalanche mix of 64 bits.
constexpr uint64_t StableHash(uint64_t x) {
  x += 0x9e3779b97f4a7c15ULL;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
  return x ^ (x >> 31);
}

template <std::integral K>
constexpr uint64_t StableHash(K key) {
  return StableHash(static_cast<uint64_t>(key));
}

// FNV-1a over the bytes, then mixed (FNV alone is weak in its low bits,
// which the modulo by the parallelism uses).
inline uint64_t StableHash(absl::string_view key) {
  uint64_t h = 0xcbf29ce484222325ULL;
  for (unsigned char c : key) {
    h ^= c;
    h *= 0x100000001b3ULL;
  }
  return StableHash(h);
}

inline uint64_t StableHash(const std::string& key) {
  return StableHash(absl::string_view(key));
}

inline uint64_t StableHash(const char* key) {
  return StableHash(absl::string_view(key));
}

}  // namespace gcpstream::runtime

#endif  // GCPSTREAM_RUNTIME_STABLE_HASH_H_
