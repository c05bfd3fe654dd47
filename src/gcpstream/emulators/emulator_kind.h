#ifndef GCPSTREAM_EMULATORS_EMULATOR_KIND_H_
#define GCPSTREAM_EMULATORS_EMULATOR_KIND_H_

#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"

namespace gcpstream::emulators {

// The emulators shipped with the Google Cloud CLI packages, Cloud Tasks'
// (PyPI's gcloud-tasks-emulator) and Cloud Storage's (fake-gcs-server from
// the Go module proxy), both installed by scripts/setup.sh.
enum class EmulatorKind { kPubSub, kSpanner, kBigtable, kCloudTasks, kStorage };

// Whether `kind` speaks gRPC (readiness is a completed HTTP/2 handshake);
// Cloud Storage's emulator speaks HTTP/1.1 JSON (readiness is a listening
// port).
bool SpeaksGrpc(EmulatorKind kind);

// Facts about one emulator, as data: where its binary lives in the SDK, how
// it is told its port, and which variable points clients at it.
struct EmulatorSpec {
  EmulatorKind kind;
  absl::string_view name;          // "pubsub", "spanner", ...
  absl::string_view env_variable;  // e.g. "PUBSUB_EMULATOR_HOST"
  absl::string_view binary;        // relative to the SDK root, if from it
  absl::string_view provided_by;   // what installs it, for errors
};

const EmulatorSpec& SpecOf(EmulatorKind kind);
const std::vector<EmulatorKind>& AllEmulatorKinds();

// Parses "pubsub" / "spanner" / "bigtable" / "cloudtasks" / "storage"
// (case-insensitive); the error
// lists the accepted names.
absl::StatusOr<EmulatorKind> ParseEmulatorKind(absl::string_view name);

// The command line that starts `kind` listening on 127.0.0.1:`port`. Cloud
// Tasks' runs scripts/cloudtasks-emulator.py with .venv-cloudtasks' Python
// of the source tree the binary was built from; GCPSTREAM_CLOUDTASKS_PYTHON
// and GCPSTREAM_CLOUDTASKS_EMULATOR_SCRIPT override them. Cloud Storage's
// runs that tree's .tools/bin/fake-gcs-server (GCPSTREAM_FAKE_GCS_SERVER
// overrides it), in memory, plain HTTP.
std::vector<std::string> EmulatorCommand(EmulatorKind kind,
                                         const std::string& sdk_root, int port);

}  // namespace gcpstream::emulators

#endif  // GCPSTREAM_EMULATORS_EMULATOR_KIND_H_
