#ifndef GCPSTREAM_ICEBERG_IO_TEST_UTIL_H_
#define GCPSTREAM_ICEBERG_IO_TEST_UTIL_H_

// Test-only: running the independent readers (pyarrow, fastavro,
// pyiceberg, avro-c's tools) the iceberg tests check their output with.

#include <array>
#include <cstdio>
#include <memory>
#include <string>

namespace gcpstream::iceberg::testing {

// What `command` prints on standard output (standard error passes through
// to the test log).
inline std::string CommandOutput(const std::string& command) {
  std::string out;
  std::unique_ptr<FILE, int (*)(FILE*)> pipe(popen(command.c_str(), "r"),
                                             pclose);
  std::array<char, 4096> buffer{};
  while (pipe != nullptr && fgets(buffer.data(), buffer.size(), pipe.get())) {
    out += buffer.data();
  }
  return out;
}

}  // namespace gcpstream::iceberg::testing

#endif  // GCPSTREAM_ICEBERG_IO_TEST_UTIL_H_
