#ifndef GCPSTREAM_EMULATORS_EMULATOR_KIND_H_
#define GCPSTREAM_EMULATORS_EMULATOR_KIND_H_

#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"

namespace gcpstream::emulators {

// The emulators shipped with the Google Cloud CLI packages, Cloud Tasks'
// (PyPI's gcloud-tasks-emulator), Cloud Storage's (fake-gcs-server from the
// Go module proxy) and BigQuery's (PyPI's bqemulator), all three installed by
// scripts/setup.sh.
enum class EmulatorKind {
  kPubSub,
  kSpanner,
  kBigtable,
  kCloudTasks,
  kStorage,
  kBigQuery
};

// Whether `kind`'s (first) port speaks gRPC (readiness is a completed
// HTTP/2 handshake); Cloud Storage's and BigQuery's REST ports speak
// HTTP/1.1 JSON (readiness is a listening port).
bool SpeaksGrpc(EmulatorKind kind);

// Whether `kind` listens on a second port: BigQuery's emulator serves its
// REST API on the first and the Storage Write API (gRPC) on the second.
bool HasSecondPort(EmulatorKind kind);

// Facts about one emulator, as data: where its binary lives in the SDK, how
// it is told its port, and which variable points clients at it.
struct EmulatorSpec {
  EmulatorKind kind;
  absl::string_view name;          // "pubsub", "spanner", ...
  absl::string_view env_variable;  // e.g. "PUBSUB_EMULATOR_HOST"
  // The variable naming the second port's host, if any.
  absl::string_view second_env_variable;
  absl::string_view binary;       // relative to the SDK root, if from it
  absl::string_view provided_by;  // what installs it, for errors
};

const EmulatorSpec& SpecOf(EmulatorKind kind);
const std::vector<EmulatorKind>& AllEmulatorKinds();

// Parses "pubsub" / "spanner" / "bigtable" / "cloudtasks" / "storage" /
// "bigquery" (case-insensitive); the error lists the accepted names.
absl::StatusOr<EmulatorKind> ParseEmulatorKind(absl::string_view name);

// Where an emulator listens and keeps its data.
struct EmulatorListen {
  int port = 0;
  int second_port = 0;  // HasSecondPort kinds only
  // The directory whose subdirectories are Cloud Storage buckets: the
  // storage emulator's filesystem root, and the directory BigQuery's reads
  // gs:// URIs from, so objects uploaded to the one feed load jobs of the
  // other.
  std::string storage_root{};
};

// The command line that starts `kind` listening on 127.0.0.1. Cloud
// Tasks' runs scripts/cloudtasks-emulator.py with .venv-cloudtasks' Python
// of the source tree the binary was built from; GCPSTREAM_CLOUDTASKS_PYTHON
// and GCPSTREAM_CLOUDTASKS_EMULATOR_SCRIPT override them. Cloud Storage's
// runs that tree's .tools/bin/fake-gcs-server (GCPSTREAM_FAKE_GCS_SERVER
// overrides it), plain HTTP, objects in files under `storage_root`.
// BigQuery's runs .venv-bigquery/bin/bqemulator (GCPSTREAM_BIGQUERY_EMULATOR
// overrides it) in memory, with HOME at .venv-bigquery/home where setup.sh
// put DuckDB's extensions, so it starts offline.
std::vector<std::string> EmulatorCommand(EmulatorKind kind,
                                         const std::string& sdk_root,
                                         const EmulatorListen& listen);

}  // namespace gcpstream::emulators

#endif  // GCPSTREAM_EMULATORS_EMULATOR_KIND_H_
