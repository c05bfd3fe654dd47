#ifndef GCPSTREAM_CONNECTOR_CREATE_DISPOSITION_H_
#define GCPSTREAM_CONNECTOR_CREATE_DISPOSITION_H_

#include "gcpstream/base/options.h"

namespace gcpstream::connector {

// What a sink does when a destination it writes (topic, table) is missing,
// spelled alike by every connector (`create-disposition`); each connector's
// page says what it creates and from which options.
enum class CreateDisposition {
  // Create the destination from the sink's options, then write.
  kCreateIfNeeded,
  // Fail the job naming the destination: it is provisioned elsewhere.
  kCreateNever,
};
inline constexpr EnumSpelling<CreateDisposition> kCreateDispositionSpellings[] =
    {{"create-if-needed", CreateDisposition::kCreateIfNeeded},
     {"create-never", CreateDisposition::kCreateNever}};
inline constexpr EnumOption<CreateDisposition> kCreateDispositionOption(
    "create-disposition", kCreateDispositionSpellings);

}  // namespace gcpstream::connector

#endif  // GCPSTREAM_CONNECTOR_CREATE_DISPOSITION_H_
