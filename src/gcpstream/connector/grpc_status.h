#ifndef GCPSTREAM_CONNECTOR_GRPC_STATUS_H_
#define GCPSTREAM_CONNECTOR_GRPC_STATUS_H_

#include <grpcpp/support/status.h>

#include "absl/status/status.h"

namespace gcpstream::connector {

// gRPC and Abseil number their status codes alike (both follow
// google.rpc.Code), so the code carries over unchanged.
inline absl::Status FromGrpc(const grpc::Status& status) {
  if (status.ok()) return absl::OkStatus();
  return {static_cast<absl::StatusCode>(status.error_code()),
          status.error_message()};
}

}  // namespace gcpstream::connector

#endif  // GCPSTREAM_CONNECTOR_GRPC_STATUS_H_
