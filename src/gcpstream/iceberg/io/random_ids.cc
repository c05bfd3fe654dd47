#include "gcpstream/iceberg/io/random_ids.h"

#include <array>
#include <random>

#include "absl/strings/str_format.h"

namespace gcpstream::iceberg {
namespace {

uint64_t Random64() {
  // Seeded per thread from the OS: ids from concurrent writers (other
  // processes too) must not collide.
  thread_local std::mt19937_64 engine = [] {
    std::random_device device;
    std::seed_seq seed{device(), device(), device(), device()};
    return std::mt19937_64(seed);
  }();
  return engine();
}

}  // namespace

std::string RandomUuid() {
  uint64_t high = Random64();
  uint64_t low = Random64();
  high = (high & ~uint64_t{0xF000}) | uint64_t{0x4000};          // Version 4.
  low = (low & ~(uint64_t{0xC} << 60)) | (uint64_t{0x8} << 60);  // RFC 4122.
  return absl::StrFormat("%08x-%04x-%04x-%04x-%012x", high >> 32,
                         (high >> 16) & 0xFFFF, high & 0xFFFF, low >> 48,
                         low & 0xFFFFFFFFFFFF);
}

int64_t RandomSnapshotId() {
  const auto id = static_cast<int64_t>(Random64() >> 1);
  return id == 0 ? 1 : id;
}

}  // namespace gcpstream::iceberg
