#ifndef GCPSTREAM_TESTING_LOOPBACK_SOCKETS_H_
#define GCPSTREAM_TESTING_LOOPBACK_SOCKETS_H_

#include <cstddef>
#include <string>

#include "absl/status/statusor.h"

// Small POSIX socket helpers for the loopback proxies of tests.
namespace gcpstream::testing {

struct Listener {
  int fd = -1;
  int port = 0;
};
// A listening socket on a free loopback port.
absl::StatusOr<Listener> ListenOnLoopback();
// The port of "host:port".
absl::StatusOr<int> PortOf(const std::string& address);
// A connected socket to 127.0.0.1:port with TCP_NODELAY, or -1.
int ConnectLoopback(int port);
void NoDelay(int fd);
// Sends all of `data`; false if the peer went away.
bool WriteAll(int fd, const char* data, size_t size);
// Closes `fd` with a TCP reset rather than an orderly FIN.
void CloseWithReset(int fd);

}  // namespace gcpstream::testing

#endif  // GCPSTREAM_TESTING_LOOPBACK_SOCKETS_H_
