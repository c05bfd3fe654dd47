#ifndef GCPSTREAM_TESTING_TEST_EMULATORS_H_
#define GCPSTREAM_TESTING_TEST_EMULATORS_H_

#include <memory>
#include <string>

#include <grpcpp/channel.h>

#include "absl/status/statusor.h"
#include "gcpstream/emulators/emulator_kind.h"

namespace gcpstream::testing {

// The emulators of one test binary. The first call for a kind starts that
// emulator on a free loopback port and exports its *_EMULATOR_HOST; later
// calls reuse it; the test main stops them all (see test_emulators_main.cc).
// With GCPSTREAM_TEST_USE_EXISTING_EMULATORS=1 the exported variables are
// used as they are, for running tests against emulators started by hand.
absl::StatusOr<std::string> TestEmulatorHost(emulators::EmulatorKind kind);

// A plaintext channel to the test emulator of `kind`.
absl::StatusOr<std::shared_ptr<grpc::Channel>> TestEmulatorChannel(
    emulators::EmulatorKind kind);

// Stops every emulator this binary started; keeps their logs (and says
// where) when `keep_logs`.
void StopTestEmulators(bool keep_logs);

}  // namespace gcpstream::testing

#endif  // GCPSTREAM_TESTING_TEST_EMULATORS_H_
