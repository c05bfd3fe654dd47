#ifndef GCPSTREAM_PUBSUB_TOPIC_DESTINATION_H_
#define GCPSTREAM_PUBSUB_TOPIC_DESTINATION_H_

#include <string>
#include <tuple>
#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/strings/string_view.h"
#include "gcpstream/base/destination.h"

namespace gcpstream::pubsub {

// A Pub/Sub topic a sink publishes to; one publisher per active topic.
struct TopicDestination : DestinationIdentity<TopicDestination> {
  TopicDestination() = default;
  TopicDestination(std::string project_id, std::string topic_id)
      : project(std::move(project_id)), topic(std::move(topic_id)) {}

  std::string project;
  std::string topic;

  // "projects/<project>/topics/<topic>".
  std::string ResourceName() const {
    return absl::StrCat("projects/", project, "/topics/", topic);
  }
  std::tuple<absl::string_view, absl::string_view> IdentityFields() const {
    return {project, topic};
  }
};

}  // namespace gcpstream::pubsub

#endif  // GCPSTREAM_PUBSUB_TOPIC_DESTINATION_H_
