#include "gcpstream/emulators/emulator_set.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cstdlib>
#include <deque>
#include <filesystem>
#include <fstream>
#include <system_error>

#include <grpcpp/create_channel.h>
#include <grpcpp/security/credentials.h>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/time/clock.h"
#include "gcpstream/emulators/loopback_port.h"
#include "gcpstream/emulators/sdk_root.h"

namespace gcpstream::emulators {
namespace {

namespace fs = std::filesystem;

absl::StatusOr<std::string> PrepareLogDir(const std::string& requested,
                                          bool* created) {
  std::string dir = requested;
  if (dir.empty()) {
    if (const char* env = std::getenv("GCPSTREAM_EMULATOR_LOG_DIR");
        env != nullptr && *env != '\0') {
      dir = env;
    } else {
      const char* tmp = std::getenv("TMPDIR");
      dir = absl::StrCat(tmp != nullptr && *tmp != '\0' ? tmp : "/tmp",
                         "/gcpstream-emulators-", getpid());
    }
  }
  std::error_code error;
  *created = fs::create_directories(dir, error);
  if (error) {
    return absl::InternalError(absl::StrCat(
        "cannot create emulator log directory '", dir, "': ", error.message()));
  }
  return dir;
}

bool AnswersGrpc(int port, absl::Duration wait) {
  auto channel = grpc::CreateChannel(absl::StrCat("127.0.0.1:", port),
                                     grpc::InsecureChannelCredentials());
  return channel->WaitForConnected(absl::ToChronoTime(absl::Now() + wait));
}

bool Accepts(int port, absl::Duration wait) {
  const int fd = socket(AF_INET, SOCK_STREAM, 0);
  if (fd < 0) return false;
  sockaddr_in address{};
  address.sin_family = AF_INET;
  address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  address.sin_port = htons(static_cast<uint16_t>(port));
  const bool connected =
      connect(fd, reinterpret_cast<sockaddr*>(&address), sizeof(address)) == 0;
  close(fd);
  if (!connected) absl::SleepFor(wait);
  return connected;
}

// A gRPC server that completes the HTTP/2 handshake is ready to serve; an
// HTTP/1.1 emulator once it accepts connections; one with two ports once
// both are ready (its second speaks gRPC).
bool Answers(EmulatorKind kind, int port, int second_port,
             absl::Duration wait) {
  const bool first =
      SpeaksGrpc(kind) ? AnswersGrpc(port, wait) : Accepts(port, wait);
  return first && (second_port == 0 || AnswersGrpc(second_port, wait));
}

struct Launch {
  EmulatorKind kind = EmulatorKind::kPubSub;
  EmulatorListen listen;
  std::string log_path;
  std::unique_ptr<ChildProcess> process;
};

absl::Status LaunchOne(const std::string& sdk_root, const std::string& log_dir,
                       bool daemon, int attempt, Launch& launch) {
  const EmulatorSpec& spec = SpecOf(launch.kind);
  auto port = PickFreeLoopbackPort();
  if (!port.ok()) return port.status();
  launch.listen.port = *port;
  if (HasSecondPort(launch.kind)) {
    do {
      port = PickFreeLoopbackPort();
      if (!port.ok()) return port.status();
    } while (*port == launch.listen.port);
    launch.listen.second_port = *port;
  }
  launch.log_path =
      absl::StrCat(log_dir, "/", spec.name,
                   attempt == 0 ? "" : absl::StrCat("-", attempt), ".log");
  ChildProcessOptions options;
  options.argv = EmulatorCommand(launch.kind, sdk_root, launch.listen);
  options.log_path = launch.log_path;
  options.die_with_parent = !daemon;
  auto process = ChildProcess::Start(options);
  if (!process.ok()) {
    return absl::Status(
        process.status().code(),
        absl::StrCat(spec.name, " emulator: ", process.status().message(),
                     " (is ", spec.provided_by, " installed?)"));
  }
  launch.process = *std::move(process);
  return absl::OkStatus();
}

}  // namespace

std::vector<std::pair<std::string, std::string>> RunningEmulator::Environment()
    const {
  const EmulatorSpec& spec = SpecOf(kind);
  std::vector<std::pair<std::string, std::string>> variables = {
      {std::string(spec.env_variable), host}};
  if (!second_host.empty()) {
    variables.emplace_back(std::string(spec.second_env_variable), second_host);
  }
  return variables;
}

std::string TailOfFile(const std::string& path, int lines) {
  std::ifstream in(path);
  std::deque<std::string> tail;
  for (std::string line; std::getline(in, line);) {
    tail.push_back(line);
    if (static_cast<int>(tail.size()) > lines) tail.pop_front();
  }
  return absl::StrJoin(tail, "\n");
}

absl::StatusOr<std::unique_ptr<EmulatorSet>> EmulatorSet::Start(
    const EmulatorSetOptions& options) {
  auto sdk_root = FindGcloudSdkRoot();
  if (!sdk_root.ok()) return sdk_root.status();
  std::unique_ptr<EmulatorSet> set(new EmulatorSet());
  auto log_dir = PrepareLogDir(options.log_dir, &set->created_log_dir_);
  if (!log_dir.ok()) return log_dir.status();
  set->log_dir_ = *log_dir;
  set->storage_root_ = options.storage_root.empty()
                           ? absl::StrCat(set->log_dir_, "/storage")
                           : options.storage_root;
  std::error_code error;
  set->created_storage_root_ =
      fs::create_directories(set->storage_root_, error);
  if (error) {
    return absl::InternalError(
        absl::StrCat("cannot create the storage emulators' root '",
                     set->storage_root_, "': ", error.message()));
  }

  // Launch everything first so the slow JVM start overlaps the others.
  std::vector<Launch> launches;
  for (EmulatorKind kind : options.kinds) {
    Launch launch;
    launch.kind = kind;
    launch.listen.storage_root = set->storage_root_;
    absl::Status started =
        LaunchOne(*sdk_root, set->log_dir_, options.daemon, 0, launch);
    if (!started.ok()) return started;  // `set` stops the earlier ones.
    launches.push_back(std::move(launch));
  }

  const absl::Time deadline = absl::Now() + options.startup_timeout;
  for (Launch& launch : launches) {
    const EmulatorSpec& spec = SpecOf(launch.kind);
    int attempt = 0;
    while (true) {
      const std::string host = absl::StrCat("127.0.0.1:", launch.listen.port);
      if (Answers(launch.kind, launch.listen.port, launch.listen.second_port,
                  absl::Milliseconds(250))) {
        set->running_.push_back(RunningEmulator{
            .kind = launch.kind,
            .host = host,
            .pid = launch.process->pid(),
            .log_path = launch.log_path,
            .second_host =
                launch.listen.second_port == 0
                    ? ""
                    : absl::StrCat("127.0.0.1:", launch.listen.second_port)});
        set->processes_.push_back(std::move(launch.process));
        break;
      }
      if (auto ended = launch.process->Poll(); ended.has_value()) {
        if (++attempt >= options.port_attempts) {
          return absl::UnavailableError(absl::StrCat(
              spec.name, " emulator ", *ended, " before answering on ", host,
              " (attempt ", attempt, "); log ", launch.log_path, ":\n",
              TailOfFile(launch.log_path, 20)));
        }
        absl::Status relaunched = LaunchOne(*sdk_root, set->log_dir_,
                                            options.daemon, attempt, launch);
        if (!relaunched.ok()) return relaunched;
        continue;
      }
      if (absl::Now() >= deadline) {
        const std::string log_path = launch.log_path;
        launch.process->Stop();
        return absl::DeadlineExceededError(absl::StrCat(
            spec.name, " emulator did not answer on ", host, " within ",
            absl::FormatDuration(options.startup_timeout), "; log ", log_path,
            ":\n", TailOfFile(log_path, 20)));
      }
    }
  }
  return set;
}

EmulatorSet::~EmulatorSet() { Stop(/*keep_logs=*/true); }

std::optional<std::string> EmulatorSet::HostOf(EmulatorKind kind) const {
  for (const RunningEmulator& emulator : running_) {
    if (emulator.kind == kind) return emulator.host;
  }
  return std::nullopt;
}

void EmulatorSet::ExportEnvironment() const {
  for (const RunningEmulator& emulator : running_) {
    for (const auto& [name, value] : emulator.Environment()) {
      setenv(name.c_str(), value.c_str(), 1);
    }
  }
}

std::string EmulatorSet::ShellExports() const {
  std::string out;
  for (const RunningEmulator& emulator : running_) {
    for (const auto& [name, value] : emulator.Environment()) {
      absl::StrAppend(&out, "export ", name, "=", value, "\n");
    }
  }
  return out;
}

void EmulatorSet::Stop(bool keep_logs) {
  for (auto& process : processes_) {
    process->Stop();
  }
  processes_.clear();
  if (!keep_logs) {
    std::error_code ignored;
    for (const RunningEmulator& emulator : running_) {
      fs::remove(emulator.log_path, ignored);
    }
    if (created_storage_root_) fs::remove_all(storage_root_, ignored);
    if (created_log_dir_) fs::remove(log_dir_, ignored);  // Only if empty.
  }
  running_.clear();
}

void EmulatorSet::Detach() {
  for (auto& process : processes_) process->Detach();
  processes_.clear();
}

}  // namespace gcpstream::emulators
