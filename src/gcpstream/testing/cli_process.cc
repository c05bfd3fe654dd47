#include "gcpstream/testing/cli_process.h"

#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <iostream>
#include <iterator>
#include <sstream>
#include <vector>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "absl/time/clock.h"
#include "gcpstream/testing/loopback_sockets.h"

namespace gcpstream::testing {
namespace {

constexpr char kMetricsAt[] = "metrics on http://127.0.0.1:";

// Fields 14 and 15 of /proc/<pid>/stat (utime, stime) in seconds, and the
// process group (field 5); nullopt when the process is gone.
struct ProcStat {
  double cpu_seconds = 0;
  pid_t group = 0;
};

std::optional<ProcStat> ReadProcStat(pid_t pid) {
  std::ifstream in(absl::StrCat("/proc/", pid, "/stat"));
  std::string text((std::istreambuf_iterator<char>(in)),
                   std::istreambuf_iterator<char>());
  // The command name (field 2) may hold spaces: fields start after ')'.
  const size_t close = text.rfind(')');
  if (close == std::string::npos) return std::nullopt;
  std::vector<std::string> fields = absl::StrSplit(text.substr(close + 2), ' ');
  // fields[0] is field 3 (state).
  if (fields.size() < 13) return std::nullopt;
  double utime = 0;
  double stime = 0;
  int group = 0;
  if (!absl::SimpleAtod(fields[11], &utime) ||
      !absl::SimpleAtod(fields[12], &stime) ||
      !absl::SimpleAtoi(fields[2], &group)) {
    return std::nullopt;
  }
  const auto ticks = static_cast<double>(sysconf(_SC_CLK_TCK));
  return ProcStat{(utime + stime) / ticks, group};
}

}  // namespace

std::string HttpGet(int port, const std::string& path) {
  const int fd = ConnectLoopback(port);
  if (fd < 0) return "";
  const std::string request =
      absl::StrCat("GET ", path, " HTTP/1.1\r\nHost: localhost\r\n\r\n");
  std::string response;
  if (WriteAll(fd, request.data(), request.size())) {
    char buffer[4096];
    for (ssize_t n = 0; (n = read(fd, buffer, sizeof(buffer))) > 0;) {
      response.append(buffer, static_cast<size_t>(n));
    }
  }
  close(fd);
  return response;
}

CliProcess::CliProcess(const std::string& cli, const std::string& arguments,
                       const std::string& environment, std::string log)
    : log_(std::move(log)) {
  const std::string command = absl::StrCat("exec env ", environment, " ", cli,
                                           " ", arguments, " >", log_, " 2>&1");
  std::cout.flush();  // Or the child would print our buffer again.
  pid_ = fork();
  if (pid_ == 0) {
    execl("/bin/sh", "sh", "-c", command.c_str(), nullptr);
    _exit(127);
  }
}

CliProcess::~CliProcess() { Kill(); }

std::string CliProcess::Log() const {
  std::ifstream in(log_);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

std::optional<int> CliProcess::MetricsPort() const {
  const std::string log = Log();
  const size_t at = log.find(kMetricsAt);
  if (at == std::string::npos) return std::nullopt;
  const size_t start = at + sizeof(kMetricsAt) - 1;
  int port = 0;
  if (!absl::SimpleAtoi(log.substr(start, log.find('/', start) - start),
                        &port)) {
    return std::nullopt;
  }
  return port;
}

std::string CliProcess::Get(const std::string& path) const {
  const std::optional<int> port = MetricsPort();
  return port.has_value() ? HttpGet(*port, path) : "";
}

bool CliProcess::Ended() {
  if (pid_ <= 0) return true;
  int status = 0;
  if (waitpid(pid_, &status, WNOHANG) != pid_) return false;
  exit_status_ = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  pid_ = -1;
  return true;
}

bool CliProcess::AwaitReady(absl::Duration timeout) {
  const absl::Time deadline = absl::Now() + timeout;
  while (absl::Now() < deadline && !Ended()) {
    if (Get("/readyz").starts_with("HTTP/1.1 200")) return true;
    absl::SleepFor(absl::Milliseconds(100));
  }
  return false;
}

void CliProcess::Kill() {
  if (pid_ <= 0) return;
  kill(pid_, SIGKILL);
  waitpid(pid_, nullptr, 0);
  pid_ = -1;
}

int CliProcess::Stop() {
  if (pid_ <= 0) return exit_status_;
  kill(pid_, SIGTERM);
  int status = 0;
  waitpid(pid_, &status, 0);
  pid_ = -1;
  return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

double ProcessCpuSeconds(pid_t pid) {
  const std::optional<ProcStat> stat = ReadProcStat(pid);
  return stat.has_value() ? stat->cpu_seconds : 0;
}

double ProcessGroupCpuSeconds(pid_t group) {
  double total = 0;
  for (const auto& entry : std::filesystem::directory_iterator("/proc")) {
    int pid = 0;
    if (!absl::SimpleAtoi(entry.path().filename().string(), &pid)) continue;
    const std::optional<ProcStat> stat = ReadProcStat(pid);
    if (stat.has_value() && stat->group == group) total += stat->cpu_seconds;
  }
  return total;
}

}  // namespace gcpstream::testing
