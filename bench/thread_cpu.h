#ifndef GCPSTREAM_BENCH_THREAD_CPU_H_
#define GCPSTREAM_BENCH_THREAD_CPU_H_

// CPU time per thread of this process, sampled while a job runs, so a
// benchmark can say which threads (subtasks, gRPC) spent it. Threads that
// end are kept at their last sample.

#include <dirent.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <atomic>
#include <cstdint>
#include <fstream>
#include <map>
#include <mutex>
#include <string>
#include <thread>

namespace gcpstream::bench {

class ThreadCpuMonitor {
 public:
  struct Thread {
    std::string name;
    double cpu_seconds = 0;
  };

  // Samples every `period_ms` until Stop().
  explicit ThreadCpuMonitor(int period_ms = 5)
      : sampler_([this, period_ms] { Sample(period_ms); }) {}
  ~ThreadCpuMonitor() { Stop(); }

  // Ends sampling; returns the threads seen, by thread id, without the
  // sampler itself.
  std::map<int, Thread> Stop() {
    stop_.store(true);
    if (sampler_.joinable()) sampler_.join();
    std::lock_guard<std::mutex> lock(mu_);
    return threads_;
  }

  // CPU seconds the sampler itself used, to subtract from the process's.
  double own_cpu_seconds() const { return own_cpu_seconds_.load(); }

 private:
  void Sample(int period_ms) {
    const int self = static_cast<int>(syscall(SYS_gettid));
    while (!stop_.load()) {
      SampleOnce(self);
      std::this_thread::sleep_for(std::chrono::milliseconds(period_ms));
    }
    SampleOnce(self);
    rusage usage{};
    getrusage(RUSAGE_THREAD, &usage);
    own_cpu_seconds_.store(
        static_cast<double>(usage.ru_utime.tv_sec + usage.ru_stime.tv_sec) +
        static_cast<double>(usage.ru_utime.tv_usec + usage.ru_stime.tv_usec) /
            1e6);
  }

  void SampleOnce(int self) {
    DIR* dir = opendir("/proc/self/task");
    if (dir == nullptr) return;
    while (dirent* entry = readdir(dir)) {
      const int tid = std::atoi(entry->d_name);
      if (tid <= 0 || tid == self) continue;
      const std::string base = std::string("/proc/self/task/") + entry->d_name;
      std::ifstream schedstat(base + "/schedstat");
      int64_t nanos = 0;
      if (!(schedstat >> nanos)) continue;
      std::ifstream comm(base + "/comm");
      std::string name;
      std::getline(comm, name);
      std::lock_guard<std::mutex> lock(mu_);
      Thread& thread = threads_[tid];
      thread.name = name;
      thread.cpu_seconds = static_cast<double>(nanos) / 1e9;
    }
    closedir(dir);
  }

  std::atomic<bool> stop_{false};
  std::atomic<double> own_cpu_seconds_{0};
  std::mutex mu_;
  std::map<int, Thread> threads_;
  std::thread sampler_;
};

}  // namespace gcpstream::bench

#endif  // GCPSTREAM_BENCH_THREAD_CPU_H_
