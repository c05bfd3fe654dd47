#ifndef GCPSTREAM_BENCH_SPANNER_NULL_SERVICE_H_
#define GCPSTREAM_BENCH_SPANNER_NULL_SERVICE_H_

#include "bench/forked_server.h"

namespace gcpstream::bench {

// A Spanner that accepts everything and stores nothing. It serves
// sessions, GetDatabase (GoogleSQL), the INFORMATION_SCHEMA queries for one
// table, `Rows`, with `columns` columns (Id INT64 key, then C1.. alternating
// INT64, FLOAT64, STRING, BOOL, TIMESTAMP; no secondary index), Commit (OK)
// and BatchWrite (one response reporting every group OK).
ForkedServer StartNullSpanner(int columns);

}  // namespace gcpstream::bench

#endif  // GCPSTREAM_BENCH_SPANNER_NULL_SERVICE_H_
