// Shared by the examples that run until stopped: SIGINT or SIGTERM (what
// Kubernetes sends before killing a pod) drains the pipeline gracefully.
#ifndef GCPSTREAM_EXAMPLES_STOP_ON_SIGNAL_H_
#define GCPSTREAM_EXAMPLES_STOP_ON_SIGNAL_H_

#include <pthread.h>
#include <signal.h>

#include <thread>

#include "gcpstream/runtime/pipeline.h"

namespace gcpstream_examples {

// Blocks SIGINT and SIGTERM in every thread (call before the pipeline
// starts any), then waits for one on a thread of its own and asks the
// pipeline for a final checkpoint: sources stop at its barrier, sinks flush,
// sources acknowledge what it covers, so a restart replays nothing. A second
// signal stops at once. Join the returned thread after Run().
inline std::jthread StopOnSignal(gcpstream::runtime::Pipeline& pipeline) {
  sigset_t signals;
  sigemptyset(&signals);
  sigaddset(&signals, SIGINT);
  sigaddset(&signals, SIGTERM);
  pthread_sigmask(SIG_BLOCK, &signals, nullptr);
  return std::jthread([&pipeline, signals](std::stop_token stop) {
    int received = 0;
    while (!stop.stop_requested() && received < 2) {
      timespec poll{.tv_sec = 0, .tv_nsec = 200'000'000};
      if (sigtimedwait(&signals, nullptr, &poll) < 0) continue;
      if (++received == 1) {
        pipeline.StopWithCheckpoint();
      } else {
        pipeline.Stop();
      }
    }
  });
}

}  // namespace gcpstream_examples

#endif  // GCPSTREAM_EXAMPLES_STOP_ON_SIGNAL_H_
