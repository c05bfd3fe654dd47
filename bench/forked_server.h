#ifndef GCPSTREAM_BENCH_FORKED_SERVER_H_
#define GCPSTREAM_BENCH_FORKED_SERVER_H_

#include <sys/types.h>

#include <functional>
#include <memory>
#include <string>
#include <vector>

#include <grpcpp/impl/service_type.h>

namespace gcpstream::bench {

// A gRPC server in a child process, so that the benchmark's getrusage()
// counts only the client.
struct ForkedServer {
  pid_t pid = -1;
  std::string address;  // "127.0.0.1:<port>"
};

// Forks a child that builds its services with `make_services` and serves
// them on a free loopback port until stopped; returns once it listens.
// Call before any gRPC use in this process. Aborts on failure.
ForkedServer StartForkedServer(
    const std::function<std::vector<std::unique_ptr<grpc::Service>>()>&
        make_services);
void StopForkedServer(const ForkedServer& server);

// Runs `measure` in a forked child and returns what it returned. Each
// scenario then starts from a fresh process: its peak RSS is its own, and
// no scenario inherits another's heap or gRPC threads. Call before any gRPC
// use in this process. Aborts if the child fails.
std::string RunInChild(const std::function<std::string()>& measure);

}  // namespace gcpstream::bench

#endif  // GCPSTREAM_BENCH_FORKED_SERVER_H_
