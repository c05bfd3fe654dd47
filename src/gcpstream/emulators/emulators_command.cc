#include "gcpstream/emulators/emulators_command.h"

#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <string>
#include <vector>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "gcpstream/emulators/child_process.h"
#include "gcpstream/emulators/emulator_set.h"

namespace gcpstream::emulators {
namespace {

namespace fs = std::filesystem;

absl::StatusOr<std::vector<EmulatorKind>> ParseKinds(
    const std::vector<std::string>& names) {
  if (names.empty()) return AllEmulatorKinds();
  std::vector<EmulatorKind> kinds;
  for (const std::string& name : names) {
    auto kind = ParseEmulatorKind(name);
    if (!kind.ok()) return kind.status();
    kinds.push_back(*kind);
  }
  return kinds;
}

std::string DefaultStateDir() {
  const char* runtime = std::getenv("XDG_RUNTIME_DIR");
  return absl::StrCat(runtime != nullptr && *runtime != '\0' ? runtime : "/tmp",
                      "/gcpstream-emulators-", getuid());
}

std::string StateFile(const std::string& state_dir) {
  return state_dir + "/state";
}

// One line per daemon: "<name> <pid> <host>[,<second host>] <log path>".
struct StateLine {
  std::string name;
  pid_t pid = 0;
  std::string host;
  std::string log_path;
};

std::vector<StateLine> ReadState(const std::string& state_dir) {
  std::vector<StateLine> lines;
  std::ifstream in(StateFile(state_dir));
  for (std::string line; std::getline(in, line);) {
    std::vector<std::string> parts =
        absl::StrSplit(line, absl::MaxSplits(' ', 3));
    StateLine state;
    if (parts.size() != 4 || !absl::SimpleAtoi(parts[1], &state.pid)) continue;
    state.name = parts[0];
    state.host = parts[2];
    state.log_path = parts[3];
    lines.push_back(state);
  }
  return lines;
}

bool Alive(pid_t pid) { return !ProcessEnded(pid); }

int Fail(const absl::Status& status) {
  std::cerr << "gcpstream-emulators: " << status.message() << "\n";
  return 2;
}

int RunCommand(const std::vector<std::string>& command) {
  std::vector<std::string> args = command;
  std::vector<char*> argv;
  argv.reserve(args.size() + 1);
  for (std::string& arg : args) argv.push_back(arg.data());
  argv.push_back(nullptr);
  pid_t pid = 0;
  if (const int error =
          posix_spawnp(&pid, argv[0], nullptr, nullptr, argv.data(), environ);
      error != 0) {
    std::cerr << "gcpstream-emulators: cannot run '" << command[0]
              << "': " << std::strerror(error) << "\n";
    return 127;
  }
  int wait_status = 0;
  while (waitpid(pid, &wait_status, 0) < 0 && errno == EINTR) {
  }
  if (WIFEXITED(wait_status)) return WEXITSTATUS(wait_status);
  return 128 + (WIFSIGNALED(wait_status) ? WTERMSIG(wait_status) : 0);
}

int Exec(const std::vector<std::string>& names, const std::string& log_dir,
         const std::vector<std::string>& command) {
  if (command.empty()) {
    return Fail(absl::InvalidArgumentError("exec needs a command after --"));
  }
  auto kinds = ParseKinds(names);
  if (!kinds.ok()) return Fail(kinds.status());
  auto set = EmulatorSet::Start({.kinds = *kinds, .log_dir = log_dir});
  if (!set.ok()) return Fail(set.status());
  (*set)->ExportEnvironment();
  std::cerr << (*set)->ShellExports();
  const int exit_code = RunCommand(command);
  const bool keep_logs = exit_code != 0;
  (*set)->Stop(keep_logs);
  if (keep_logs) {
    std::cerr << "gcpstream-emulators: command failed (exit " << exit_code
              << "); emulator logs kept in " << (*set)->log_dir() << "\n";
  }
  return exit_code;
}

int Start(const std::vector<std::string>& names, const std::string& state_dir) {
  for (const StateLine& line : ReadState(state_dir)) {
    if (Alive(line.pid)) {
      return Fail(absl::FailedPreconditionError(
          absl::StrCat("emulators already running (", line.name, " pid ",
                       line.pid, "); run `gcpstream-emulators stop` first")));
    }
  }
  auto kinds = ParseKinds(names);
  if (!kinds.ok()) return Fail(kinds.status());
  std::error_code ignored;
  fs::create_directories(state_dir, ignored);
  auto set = EmulatorSet::Start(
      {.kinds = *kinds, .log_dir = state_dir + "/logs", .daemon = true});
  if (!set.ok()) return Fail(set.status());
  std::ofstream out(StateFile(state_dir), std::ios::trunc);
  for (const RunningEmulator& emulator : (*set)->emulators()) {
    out << SpecOf(emulator.kind).name << " " << emulator.pid << " "
        << emulator.host << (emulator.second_host.empty() ? "" : ",")
        << emulator.second_host << " " << emulator.log_path << "\n";
  }
  out.close();
  std::cout << (*set)->ShellExports();
  (*set)->Detach();
  return 0;
}

int Env(const std::string& state_dir) {
  const std::vector<StateLine> lines = ReadState(state_dir);
  if (lines.empty()) {
    return Fail(absl::NotFoundError(
        "no emulators started; run `gcpstream-emulators start`"));
  }
  for (const StateLine& line : lines) {
    auto kind = ParseEmulatorKind(line.name);
    if (!kind.ok()) continue;
    const std::vector<std::string> hosts = absl::StrSplit(line.host, ',');
    RunningEmulator emulator{
        .kind = *kind, .host = hosts[0], .pid = line.pid, .log_path = ""};
    if (hosts.size() > 1) emulator.second_host = hosts[1];
    for (const auto& [name, value] : emulator.Environment()) {
      std::cout << "export " << name << "=" << value << "\n";
    }
  }
  return 0;
}

int Status(const std::string& state_dir) {
  const std::vector<StateLine> lines = ReadState(state_dir);
  int dead = 0;
  for (const StateLine& line : lines) {
    const bool alive = Alive(line.pid);
    dead += alive ? 0 : 1;
    std::cout << line.name << "\t" << line.host << "\tpid " << line.pid << "\t"
              << (alive ? "running" : "stopped") << "\tlog " << line.log_path
              << "\n";
  }
  if (lines.empty()) std::cout << "no emulators started\n";
  return dead == 0 ? 0 : 1;
}

int Stop(const std::string& state_dir) {
  for (const StateLine& line : ReadState(state_dir)) {
    StopProcessGroup(line.pid, absl::Seconds(5));
    std::cout << "stopped " << line.name << " (pid " << line.pid << ")\n";
  }
  std::error_code ignored;
  fs::remove(StateFile(state_dir), ignored);
  return 0;
}

}  // namespace

EmulatorsCommand::EmulatorsCommand(CLI::App& app)
    : state_dir_(DefaultStateDir()) {
  exec_ = app.add_subcommand(
      "exec",
      "start emulators, run COMMAND with *_EMULATOR_HOST set, stop them");
  exec_
      ->add_option("-e,--emulators", names_,
                   "pubsub, spanner, bigtable, cloudtasks, storage, bigquery "
                   "(default: all six)")
      ->delimiter(',');
  exec_->add_option("--log-dir", log_dir_, "keep emulator logs here");
  exec_->add_option("command", command_, "command to run")->required();
  exec_->positionals_at_end();
  start_ = app.add_subcommand("start", "start emulators in the background");
  start_
      ->add_option("-e,--emulators", names_,
                   "pubsub, spanner, bigtable, cloudtasks, storage, bigquery "
                   "(default: all six)")
      ->delimiter(',');
  env_ = app.add_subcommand("env", "print the *_EMULATOR_HOST exports");
  status_ = app.add_subcommand("status", "show what runs");
  stop_ = app.add_subcommand("stop", "stop background emulators");
  for (CLI::App* sub : {start_, env_, status_, stop_}) {
    sub->add_option("--state-dir", state_dir_,
                    "where `start` records its emulators");
  }
}

int EmulatorsCommand::Run() const {
  if (exec_->parsed()) return Exec(names_, log_dir_, command_);
  if (start_->parsed()) return Start(names_, state_dir_);
  if (env_->parsed()) return Env(state_dir_);
  if (status_->parsed()) return Status(state_dir_);
  return Stop(state_dir_);
}

}  // namespace gcpstream::emulators
