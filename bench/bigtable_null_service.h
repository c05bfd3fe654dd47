#ifndef GCPSTREAM_BENCH_BIGTABLE_NULL_SERVICE_H_
#define GCPSTREAM_BENCH_BIGTABLE_NULL_SERVICE_H_

#include "bench/forked_server.h"

namespace gcpstream::bench {

// A Bigtable that accepts every MutateRows entry and stores nothing, except
// that every `fail_every`-th entry it sees (0: none) is answered with a
// per-entry UNAVAILABLE; a resent entry then most likely succeeds.
ForkedServer StartNullBigtable(int fail_every);

}  // namespace gcpstream::bench

#endif  // GCPSTREAM_BENCH_BIGTABLE_NULL_SERVICE_H_
