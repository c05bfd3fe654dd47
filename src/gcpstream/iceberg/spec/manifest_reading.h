#ifndef GCPSTREAM_ICEBERG_SPEC_MANIFEST_READING_H_
#define GCPSTREAM_ICEBERG_SPEC_MANIFEST_READING_H_

#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "gcpstream/iceberg/io/file_io.h"
#include "gcpstream/iceberg/spec/manifest.h"

namespace gcpstream::iceberg {

// Every manifest a snapshot's manifest list names, as any Iceberg writer
// wrote it (format v1 lists lack sequence numbers and content: 0, data).
// DataLoss naming the file and the field when it is not a manifest list.
absl::StatusOr<std::vector<ManifestFile>> ReadManifestList(
    FileIO& io, const std::string& path);

// Every entry of `manifest` (as its list names it), with what added
// entries inherit from the list applied: the snapshot id and sequence
// numbers they leave unset. Partition values are not read (add-files
// registers in unpartitioned tables only so far).
absl::StatusOr<std::vector<ManifestEntry>> ReadManifest(
    FileIO& io, const ManifestFile& manifest);

}  // namespace gcpstream::iceberg

#endif  // GCPSTREAM_ICEBERG_SPEC_MANIFEST_READING_H_
