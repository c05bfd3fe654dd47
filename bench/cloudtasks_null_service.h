#ifndef GCPSTREAM_BENCH_CLOUDTASKS_NULL_SERVICE_H_
#define GCPSTREAM_BENCH_CLOUDTASKS_NULL_SERVICE_H_

#include "bench/forked_server.h"

namespace gcpstream::bench {

// A Cloud Tasks service that answers every CreateTask with the task's name
// and stores nothing.
ForkedServer StartNullCloudTasks();

}  // namespace gcpstream::bench

#endif  // GCPSTREAM_BENCH_CLOUDTASKS_NULL_SERVICE_H_
