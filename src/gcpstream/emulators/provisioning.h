#ifndef GCPSTREAM_EMULATORS_PROVISIONING_H_
#define GCPSTREAM_EMULATORS_PROVISIONING_H_

#include <memory>
#include <string>
#include <vector>

#include <grpcpp/channel.h>

#include "absl/status/status.h"
#include "absl/time/time.h"

namespace gcpstream::emulators {

// Creates the resources a local run declares, through the services' own
// admin APIs, so the same calls work against emulators and (with rights)
// against Google Cloud. Each call succeeds if the resource already exists,
// so provisioning can be repeated.

absl::Status EnsurePubSubTopic(const std::shared_ptr<grpc::Channel>& channel,
                               const std::string& project,
                               const std::string& topic);

absl::Status EnsurePubSubSubscription(
    const std::shared_ptr<grpc::Channel>& channel, const std::string& project,
    const std::string& subscription, const std::string& topic,
    bool enable_message_ordering = false);

// Creates the instance (emulator config) and the database with `ddl`, in
// the GoogleSQL dialect or, with `postgresql`, the PostgreSQL one.
absl::Status EnsureSpannerDatabase(
    const std::shared_ptr<grpc::Channel>& channel, const std::string& project,
    const std::string& instance, const std::string& database,
    const std::vector<std::string>& ddl,
    absl::Duration timeout = absl::Seconds(60), bool postgresql = false);

// Applies DDL statements to an existing database and waits for them.
absl::Status UpdateSpannerDdl(const std::shared_ptr<grpc::Channel>& channel,
                              const std::string& database_name,
                              const std::vector<std::string>& statements,
                              absl::Duration timeout = absl::Seconds(60));

absl::Status EnsureBigtableTable(
    const std::shared_ptr<grpc::Channel>& channel, const std::string& project,
    const std::string& instance, const std::string& table,
    const std::vector<std::string>& column_families);

// Creates the queue if it is missing (the emulator answers OK to a
// duplicate, the service ALREADY_EXISTS: both are success).
absl::Status EnsureCloudTasksQueue(
    const std::shared_ptr<grpc::Channel>& channel, const std::string& project,
    const std::string& location, const std::string& queue);

}  // namespace gcpstream::emulators

#endif  // GCPSTREAM_EMULATORS_PROVISIONING_H_
