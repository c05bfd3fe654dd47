#ifndef GCPSTREAM_BENCH_BIGQUERY_NULL_SERVICE_H_
#define GCPSTREAM_BENCH_BIGQUERY_NULL_SERVICE_H_

#include "bench/forked_server.h"

namespace gcpstream::bench {

// A Storage Write API that answers every AppendRows request with success
// and stores nothing.
ForkedServer StartNullBigQueryWrite();

}  // namespace gcpstream::bench

#endif  // GCPSTREAM_BENCH_BIGQUERY_NULL_SERVICE_H_
