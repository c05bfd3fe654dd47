#ifndef GCPSTREAM_CLOUDTASKS_TASK_CHECK_H_
#define GCPSTREAM_CLOUDTASKS_TASK_CHECK_H_

#include <cstdint>
#include <string>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "google/cloud/tasks/v2/task.pb.h"

namespace gcpstream::cloudtasks {

using Task = ::google::cloud::tasks::v2::Task;

// The service's limits the sink checks before sending.
inline constexpr int64_t kMaxTaskBytes = int64_t{1} << 20;
inline constexpr size_t kMaxUrlLength = 2083;

// InvalidArgument naming the field when the service would refuse `task`
// (a per-record failure): no target, an HTTP URL that is not http(s) with
// a host, a body on a method other than POST, PUT or PATCH, a header the
// service reserves (Host, Content-Length, User-Agent, X-CloudTasks-*,
// X-Google-*, X-AppEngine-*), an OIDC or OAuth token without a service
// account, an App Engine URI not starting with '/', a task over 1 MiB.
// A task the serializer named is not checked here: the sink names tasks
// itself and fails the job on it.
absl::Status CheckTask(const Task& task);

// The task id for a deduplication key: the lowercase hex SHA-256 of the
// key, so the same record always names the same task.
std::string TaskIdOf(absl::string_view key);

}  // namespace gcpstream::cloudtasks

#endif  // GCPSTREAM_CLOUDTASKS_TASK_CHECK_H_
