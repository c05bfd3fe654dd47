#ifndef GCPSTREAM_EMULATORS_SDK_ROOT_H_
#define GCPSTREAM_EMULATORS_SDK_ROOT_H_

#include <string>

#include "absl/status/statusor.h"

namespace gcpstream::emulators {

// Finds the Google Cloud SDK installation that carries the emulators:
// $GCPSTREAM_GCLOUD_SDK_ROOT if set, else the SDK that the `gcloud` on PATH
// belongs to, else the Debian package's /usr/lib/google-cloud-sdk.
absl::StatusOr<std::string> FindGcloudSdkRoot();

}  // namespace gcpstream::emulators

#endif  // GCPSTREAM_EMULATORS_SDK_ROOT_H_
