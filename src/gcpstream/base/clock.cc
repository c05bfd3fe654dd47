#include "gcpstream/base/clock.h"

namespace gcpstream {

const RealClock& RealClock::Instance() {
  // Stateless with an empty destructor, so destruction at exit is harmless.
  static const RealClock kInstance;
  return kInstance;
}

absl::Time FakeClock::Now() const {
  absl::MutexLock lock(&mu_);
  return now_;
}

void FakeClock::Advance(absl::Duration delta) {
  absl::MutexLock lock(&mu_);
  now_ += delta;
}

void FakeClock::Set(absl::Time now) {
  absl::MutexLock lock(&mu_);
  now_ = now;
}

}  // namespace gcpstream
