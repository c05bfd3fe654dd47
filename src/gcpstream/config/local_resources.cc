#include "gcpstream/config/local_resources.h"

#include <utility>

namespace gcpstream::config {

std::set<emulators::EmulatorKind> LocalResources::Emulators() const {
  std::set<emulators::EmulatorKind> kinds;
  for (const auto& part : parts) {
    for (emulators::EmulatorKind kind : part->Emulators()) kinds.insert(kind);
  }
  return kinds;
}

std::vector<std::string> LocalResources::Declared() const {
  std::vector<std::string> lines;
  for (const auto& part : parts) {
    for (std::string& line : part->Declared()) lines.push_back(std::move(line));
  }
  return lines;
}

absl::StatusOr<LocalResources> ReadLocalResources(
    OptionMap& local, const ConnectorRegistry& registry) {
  LocalResources resources;
  if (absl::Status status =
          AssignIfSet(local.String("project"), resources.project);
      !status.ok()) {
    return status;
  }
  for (const auto& [connector, read] : registry.local_resources()) {
    absl::StatusOr<std::shared_ptr<const LocalResource>> part = read(local);
    if (!part.ok()) return part.status();
    if (*part != nullptr) resources.parts.push_back(*std::move(part));
  }
  if (absl::Status unknown = local.CheckNoUnknownKeys(); !unknown.ok()) {
    return unknown;
  }
  return resources;
}

absl::Status Provision(const LocalResources& resources) {
  for (const auto& part : resources.parts) {
    if (absl::Status status = part->Provision(resources.project);
        !status.ok()) {
      return status;
    }
  }
  return absl::OkStatus();
}

absl::StatusOr<std::vector<std::string>> DescribeWhatLanded(
    const LocalResources& resources) {
  std::vector<std::string> lines;
  for (const auto& part : resources.parts) {
    absl::StatusOr<std::vector<std::string>> landed =
        part->DescribeWhatLanded(resources.project);
    if (!landed.ok()) return landed.status();
    for (std::string& line : *landed) lines.push_back(std::move(line));
  }
  return lines;
}

}  // namespace gcpstream::config
