#include "gcpstream/emulators/emulator_kind.h"

#include <cstdlib>
#include <utility>

#include "absl/status/status.h"
#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"

namespace gcpstream::emulators {
namespace {

constexpr EmulatorSpec kSpecs[] = {
    {EmulatorKind::kPubSub, "pubsub", "PUBSUB_EMULATOR_HOST", "",
     "platform/pubsub-emulator/bin/cloud-pubsub-emulator",
     "the Debian package google-cloud-cli-pubsub-emulator"},
    {EmulatorKind::kSpanner, "spanner", "SPANNER_EMULATOR_HOST", "",
     "bin/cloud_spanner_emulator/emulator_main",
     "the Debian package google-cloud-cli-spanner-emulator"},
    {EmulatorKind::kBigtable, "bigtable", "BIGTABLE_EMULATOR_HOST", "",
     "platform/bigtable-emulator/cbtemulator",
     "the Debian package google-cloud-cli-bigtable-emulator"},
    {EmulatorKind::kCloudTasks, "cloudtasks", "CLOUD_TASKS_EMULATOR_HOST", "",
     "", "gcloud-tasks-emulator in .venv-cloudtasks (scripts/setup.sh)"},
    {EmulatorKind::kStorage, "storage", "STORAGE_EMULATOR_HOST", "", "",
     "fake-gcs-server in .tools/bin (scripts/setup.sh)"},
    // Google's clients honour no BigQuery emulator variables; these two are
    // gcpstream's (docs/bigquery.md).
    {EmulatorKind::kBigQuery, "bigquery", "BIGQUERY_EMULATOR_HOST",
     "BIGQUERY_STORAGE_EMULATOR_HOST", "",
     "bqemulator in .venv-bigquery (scripts/setup.sh)"},
};

std::string FromEnvOr(const char* variable, std::string fallback) {
  const char* value = std::getenv(variable);
  return value != nullptr && *value != '\0' ? std::string(value)
                                            : std::move(fallback);
}

}  // namespace

bool SpeaksGrpc(EmulatorKind kind) {
  return kind != EmulatorKind::kStorage && kind != EmulatorKind::kBigQuery;
}

bool HasSecondPort(EmulatorKind kind) {
  return !SpecOf(kind).second_env_variable.empty();
}

const EmulatorSpec& SpecOf(EmulatorKind kind) {
  for (const EmulatorSpec& spec : kSpecs) {
    if (spec.kind == kind) return spec;
  }
  return kSpecs[0];  // Unreachable: kSpecs lists every kind.
}

const std::vector<EmulatorKind>& AllEmulatorKinds() {
  static const std::vector<EmulatorKind> kAll = {
      EmulatorKind::kPubSub,   EmulatorKind::kSpanner,
      EmulatorKind::kBigtable, EmulatorKind::kCloudTasks,
      EmulatorKind::kStorage,  EmulatorKind::kBigQuery};
  return kAll;
}

absl::StatusOr<EmulatorKind> ParseEmulatorKind(absl::string_view name) {
  const std::string lower = absl::AsciiStrToLower(name);
  for (const EmulatorSpec& spec : kSpecs) {
    if (spec.name == lower) return spec.kind;
  }
  return absl::InvalidArgumentError(absl::StrCat(
      "unknown emulator '", name,
      "'; accepted: pubsub, spanner, bigtable, cloudtasks, storage, "
      "bigquery"));
}

std::vector<std::string> EmulatorCommand(EmulatorKind kind,
                                         const std::string& sdk_root,
                                         const EmulatorListen& listen) {
  const std::string binary = absl::StrCat(sdk_root, "/", SpecOf(kind).binary);
  const std::string port_text = absl::StrCat(listen.port);
  switch (kind) {
    case EmulatorKind::kPubSub:
      return {binary, "--host=127.0.0.1", absl::StrCat("--port=", port_text)};
    case EmulatorKind::kSpanner:
      return {binary, absl::StrCat("--host_port=127.0.0.1:", port_text)};
    case EmulatorKind::kBigtable:
      return {binary, "-host=127.0.0.1", absl::StrCat("-port=", port_text)};
    case EmulatorKind::kCloudTasks:
      return {FromEnvOr("GCPSTREAM_CLOUDTASKS_PYTHON",
                        GCPSTREAM_SOURCE_DIR "/.venv-cloudtasks/bin/python"),
              FromEnvOr("GCPSTREAM_CLOUDTASKS_EMULATOR_SCRIPT",
                        GCPSTREAM_SOURCE_DIR "/scripts/cloudtasks-emulator.py"),
              absl::StrCat("--port=", port_text)};
    case EmulatorKind::kStorage:
      return {FromEnvOr("GCPSTREAM_FAKE_GCS_SERVER",
                        GCPSTREAM_SOURCE_DIR "/.tools/bin/fake-gcs-server"),
              "-scheme", "http", "-host", "127.0.0.1", "-port", port_text,
              "-backend", "filesystem", "-filesystem-root", listen.storage_root,
              "-external-url", absl::StrCat("http://127.0.0.1:", port_text),
              // Serves the XML API's path-style URLs (/bucket/object) on
              // this address too: how DuckDB's httpfs reads gs://.
              "-public-host", absl::StrCat("127.0.0.1:", port_text)};
    case EmulatorKind::kBigQuery:
      return {
          "/usr/bin/env",
          absl::StrCat("HOME=",
                       FromEnvOr("GCPSTREAM_BIGQUERY_EMULATOR_HOME",
                                 GCPSTREAM_SOURCE_DIR "/.venv-bigquery/home")),
          absl::StrCat("BQEMU_GCS_LOCAL_ROOT=", listen.storage_root),
          // Enough worker threads for every AppendRows connection, live or
          // left behind by a killed client (sitecustomize.py there).
          absl::StrCat("PYTHONPATH=", GCPSTREAM_SOURCE_DIR,
                       "/scripts/bigquery-emulator-site"),
          FromEnvOr("GCPSTREAM_BIGQUERY_EMULATOR",
                    GCPSTREAM_SOURCE_DIR "/.venv-bigquery/bin/bqemulator"),
          "start", "--rest-host", "127.0.0.1", "--rest-port", port_text,
          "--grpc-host", "127.0.0.1", "--grpc-port",
          absl::StrCat(listen.second_port), "--log-level", "warning"};
  }
  return {};
}

}  // namespace gcpstream::emulators
