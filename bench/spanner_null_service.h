#ifndef GCPSTREAM_BENCH_SPANNER_NULL_SERVICE_H_
#define GCPSTREAM_BENCH_SPANNER_NULL_SERVICE_H_

#include <sys/types.h>

#include <string>

namespace gcpstream::bench {

// A Spanner that accepts everything and stores nothing, in a child process
// so that the benchmark's getrusage() counts only the client. It serves
// sessions, GetDatabase (GoogleSQL), the INFORMATION_SCHEMA queries for one
// table, `Rows`, with `columns` columns (Id INT64 key, then C1.. alternating
// INT64, FLOAT64, STRING, BOOL, TIMESTAMP; no secondary index), Commit (OK)
// and BatchWrite (one response reporting every group OK).
struct NullSpanner {
  pid_t pid = -1;
  std::string address;  // "127.0.0.1:<port>"
};

// Forks the server; returns once it listens. Aborts on failure.
NullSpanner StartNullSpanner(int columns);
void StopNullSpanner(const NullSpanner& server);

}  // namespace gcpstream::bench

#endif  // GCPSTREAM_BENCH_SPANNER_NULL_SERVICE_H_
