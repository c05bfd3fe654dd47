#ifndef GCPSTREAM_BENCH_MEASURE_H_
#define GCPSTREAM_BENCH_MEASURE_H_

// What every benchmark measures: the client's CPU time and peak memory.

#include <sys/resource.h>

#include <fstream>
#include <string>

namespace gcpstream::bench {

// User + system CPU seconds of this process (every thread, gRPC's included).
inline double CpuSeconds() {
  rusage usage{};
  getrusage(RUSAGE_SELF, &usage);
  return static_cast<double>(usage.ru_utime.tv_sec + usage.ru_stime.tv_sec) +
         static_cast<double>(usage.ru_utime.tv_usec + usage.ru_stime.tv_usec) /
             1e6;
}

// Peak resident set, from /proc/self/status, in MiB.
inline double PeakRssMib() {
  std::ifstream status("/proc/self/status");
  for (std::string line; std::getline(status, line);) {
    if (line.rfind("VmHWM:", 0) == 0) {
      return std::stod(line.substr(6)) / 1024.0;
    }
  }
  return 0;
}

}  // namespace gcpstream::bench

#endif  // GCPSTREAM_BENCH_MEASURE_H_
