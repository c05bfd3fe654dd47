#include "bench/forked_server.h"

#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>

#include <grpcpp/grpcpp.h>

#include "absl/strings/str_cat.h"

namespace gcpstream::bench {
namespace {

[[noreturn]] void Serve(
    const std::function<std::vector<std::unique_ptr<grpc::Service>>()>&
        make_services,
    int ready_fd) {
  std::vector<std::unique_ptr<grpc::Service>> services = make_services();
  int port = 0;
  grpc::ServerBuilder builder;
  builder.AddListeningPort("127.0.0.1:0", grpc::InsecureServerCredentials(),
                           &port);
  builder.SetMaxReceiveMessageSize(16 << 20);
  for (auto& service : services) builder.RegisterService(service.get());
  std::unique_ptr<grpc::Server> server = builder.BuildAndStart();
  if (server == nullptr || port == 0) _exit(3);
  if (write(ready_fd, &port, sizeof(port)) != sizeof(port)) _exit(4);
  close(ready_fd);
  server->Wait();
  _exit(0);
}

}  // namespace

ForkedServer StartForkedServer(
    const std::function<std::vector<std::unique_ptr<grpc::Service>>()>&
        make_services) {
  int fds[2];
  if (pipe(fds) != 0) std::abort();
  const pid_t pid = fork();
  if (pid == 0) {
    close(fds[0]);
    Serve(make_services, fds[1]);
  }
  close(fds[1]);
  int port = 0;
  if (read(fds[0], &port, sizeof(port)) != sizeof(port)) {
    std::fprintf(stderr, "the benchmark's null server did not start\n");
    std::abort();
  }
  close(fds[0]);
  return ForkedServer{.pid = pid, .address = absl::StrCat("127.0.0.1:", port)};
}

void StopForkedServer(const ForkedServer& server) {
  kill(server.pid, SIGKILL);
  waitpid(server.pid, nullptr, 0);
}

std::string RunInChild(const std::function<std::string()>& measure) {
  int fds[2];
  if (pipe(fds) != 0) std::abort();
  const pid_t pid = fork();
  if (pid == 0) {
    close(fds[0]);
    const std::string out = measure();
    for (size_t done = 0; done < out.size();) {
      const ssize_t n = write(fds[1], out.data() + done, out.size() - done);
      if (n <= 0) _exit(4);
      done += static_cast<size_t>(n);
    }
    _exit(0);
  }
  close(fds[1]);
  std::string out;
  char buffer[4096];
  for (ssize_t n; (n = read(fds[0], buffer, sizeof(buffer))) > 0;) {
    out.append(buffer, static_cast<size_t>(n));
  }
  close(fds[0]);
  int status = 0;
  waitpid(pid, &status, 0);
  if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
    std::fprintf(stderr, "a benchmark scenario's process failed\n");
    std::abort();
  }
  return out;
}

}  // namespace gcpstream::bench
