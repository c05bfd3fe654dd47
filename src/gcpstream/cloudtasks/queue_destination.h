#ifndef GCPSTREAM_CLOUDTASKS_QUEUE_DESTINATION_H_
#define GCPSTREAM_CLOUDTASKS_QUEUE_DESTINATION_H_

#include <string>
#include <tuple>
#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/strings/string_view.h"
#include "gcpstream/base/destination.h"

namespace gcpstream::cloudtasks {

// A Cloud Tasks queue a sink creates tasks in. The sink keeps no state per
// queue, so a resolver may name as many as it likes.
struct QueueDestination : DestinationIdentity<QueueDestination> {
  QueueDestination() = default;
  QueueDestination(std::string project_id, std::string location_id,
                   std::string queue_id)
      : project(std::move(project_id)),
        location(std::move(location_id)),
        queue(std::move(queue_id)) {}

  std::string project;
  std::string location;
  std::string queue;

  // "projects/<p>/locations/<l>/queues/<q>".
  std::string ResourceName() const {
    return absl::StrCat("projects/", project, "/locations/", location,
                        "/queues/", queue);
  }
  std::tuple<absl::string_view, absl::string_view, absl::string_view>
  IdentityFields() const {
    return {project, location, queue};
  }
};

}  // namespace gcpstream::cloudtasks

#endif  // GCPSTREAM_CLOUDTASKS_QUEUE_DESTINATION_H_
