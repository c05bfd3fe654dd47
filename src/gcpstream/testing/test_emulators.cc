#include "gcpstream/testing/test_emulators.h"

#include <cerrno>
#include <cstdlib>
#include <iostream>
#include <map>

#include <grpcpp/create_channel.h>
#include <grpcpp/security/credentials.h>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "gcpstream/auth/channel_factory.h"
#include "gcpstream/emulators/emulator_set.h"

namespace gcpstream::testing {
namespace {

using emulators::EmulatorKind;
using emulators::EmulatorSet;

// Owned by the test binary's main thread: tests run there, and the
// parent-death signal that guards against leaks follows the starting thread.
// If main() never stops them, static destruction still does.
std::map<EmulatorKind, std::unique_ptr<EmulatorSet>>& Running() {
  static std::map<EmulatorKind, std::unique_ptr<EmulatorSet>> running;
  return running;
}

bool UseExisting() {
  const char* value = std::getenv("GCPSTREAM_TEST_USE_EXISTING_EMULATORS");
  return value != nullptr && std::string(value) == "1";
}

// Per test binary, under $GCPSTREAM_EMULATOR_LOG_DIR (else $TMPDIR):
// "<binary>-<pid>-<what>".
std::string DirFor(absl::string_view what) {
  const char* base = std::getenv("GCPSTREAM_EMULATOR_LOG_DIR");
  const char* tmp = std::getenv("TMPDIR");
  return absl::StrCat(base != nullptr && *base != '\0'
                          ? base
                          : (tmp != nullptr && *tmp != '\0' ? tmp : "/tmp"),
                      "/", program_invocation_short_name, "-", getpid(), "-",
                      what);
}

}  // namespace

absl::StatusOr<std::string> TestEmulatorHost(EmulatorKind kind) {
  const std::string variable(emulators::SpecOf(kind).env_variable);
  if (UseExisting()) {
    const char* host = std::getenv(variable.c_str());
    if (host == nullptr || *host == '\0') {
      return absl::FailedPreconditionError(
          absl::StrCat("GCPSTREAM_TEST_USE_EXISTING_EMULATORS=1 but ", variable,
                       " is not set"));
    }
    return std::string(host);
  }
  auto& running = Running();
  if (auto it = running.find(kind); it != running.end()) {
    return *it->second->HostOf(kind);
  }
  // One storage root for the binary: the Cloud Storage emulator's objects
  // are what the BigQuery emulator's load jobs read.
  auto set =
      EmulatorSet::Start({.kinds = {kind},
                          .log_dir = DirFor(emulators::SpecOf(kind).name),
                          .storage_root = DirFor("storage")});
  if (!set.ok()) return set.status();
  (*set)->ExportEnvironment();
  std::string host = *(*set)->HostOf(kind);
  running.emplace(kind, *std::move(set));
  return host;
}

absl::StatusOr<std::shared_ptr<grpc::Channel>> TestEmulatorChannel(
    EmulatorKind kind) {
  auto host = TestEmulatorHost(kind);
  if (!host.ok()) return host.status();
  auth::KeepGrpcInitialized();
  return grpc::CreateChannel(*host, grpc::InsecureChannelCredentials());
}

void StopTestEmulators(bool keep_logs) {
  for (auto& [kind, set] : Running()) {
    if (keep_logs) {
      std::cerr << "emulator logs kept in " << set->log_dir() << "\n";
    }
    set->Stop(keep_logs);
  }
  Running().clear();
}

}  // namespace gcpstream::testing
