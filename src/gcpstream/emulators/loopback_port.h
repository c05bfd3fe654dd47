#ifndef GCPSTREAM_EMULATORS_LOOPBACK_PORT_H_
#define GCPSTREAM_EMULATORS_LOOPBACK_PORT_H_

#include "absl/status/statusor.h"

namespace gcpstream::emulators {

// Asks the kernel for a free TCP port on 127.0.0.1. Another process may take
// it before our child binds it; callers detect that (the child exits) and
// retry with a new port.
absl::StatusOr<int> PickFreeLoopbackPort();

}  // namespace gcpstream::emulators

#endif  // GCPSTREAM_EMULATORS_LOOPBACK_PORT_H_
