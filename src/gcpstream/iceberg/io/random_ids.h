#ifndef GCPSTREAM_ICEBERG_IO_RANDOM_IDS_H_
#define GCPSTREAM_ICEBERG_IO_RANDOM_IDS_H_

#include <cstdint>
#include <string>

namespace gcpstream::iceberg {

// A random (version 4) UUID in its canonical text form: table uuids and
// the names of the files a commit writes, which must never collide with
// another writer's.
std::string RandomUuid();

// A random positive 63-bit snapshot id, as Iceberg's writers pick them.
int64_t RandomSnapshotId();

}  // namespace gcpstream::iceberg

#endif  // GCPSTREAM_ICEBERG_IO_RANDOM_IDS_H_
