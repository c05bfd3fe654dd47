#include "gcpstream/config/connector_registry.h"

#include <utility>

#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "gcpstream/base/failed_element.h"

namespace gcpstream::config {
namespace {

template <typename Factory>
std::vector<std::string> Keys(const std::map<std::string, Factory>& map) {
  std::vector<std::string> keys;
  keys.reserve(map.size());
  for (const auto& [key, factory] : map) keys.push_back(key);
  return keys;
}

// Finds the factory of `options`' type and runs it; then unknown keys.
template <typename Built, typename Factory>
absl::StatusOr<Built> Build(const std::map<std::string, Factory>& factories,
                            const char* kind, OptionMap& options,
                            const BuildEnvironment& environment) {
  absl::StatusOr<std::string> type = options.RequiredString("type");
  if (!type.ok()) {
    return absl::Status(
        type.status().code(),
        absl::StrCat(type.status().message(), "; ", kind,
                     " types: ", absl::StrJoin(Keys(factories), ", ")));
  }
  auto it = factories.find(absl::AsciiStrToLower(*type));
  if (it == factories.end()) {
    return ConfigError(options.PositionOf("type"),
                       absl::StrCat(options.what(), ": unknown ", kind,
                                    " type '", *type, "'; ", kind, " types: ",
                                    absl::StrJoin(Keys(factories), ", ")));
  }
  absl::StatusOr<Built> built = it->second(options, environment);
  if (!built.ok()) return built.status();
  if (absl::Status unknown = options.CheckNoUnknownKeys(); !unknown.ok()) {
    return unknown;
  }
  return built;
}

}  // namespace

absl::Status WithRecord(const absl::Status& status, const Record& record) {
  return WithRecordPayload(status, record.CompactText());
}

absl::StatusOr<std::string> RequiredProject(OptionMap& options) {
  absl::StatusOr<std::string> project = options.RequiredString("project");
  if (project.ok()) return project;
  return absl::Status(
      project.status().code(),
      absl::StrCat(project.status().message(),
                   ": the Google Cloud project to use; to run on local "
                   "emulators instead, give any name and run with "
                   "`gcpstream run --local`"));
}

ConnectorRegistry& ConnectorRegistry::Global() {
  static ConnectorRegistry registry;
  return registry;
}

void ConnectorRegistry::AddSource(
    const std::string& type, SourceFactory factory,
    std::vector<emulators::EmulatorKind> emulators) {
  sources_[absl::AsciiStrToLower(type)] = std::move(factory);
  auto& needed = emulators_[absl::AsciiStrToLower(type)];
  needed.insert(needed.end(), emulators.begin(), emulators.end());
}

void ConnectorRegistry::AddSink(
    const std::string& type, SinkFactory factory,
    std::vector<emulators::EmulatorKind> emulators) {
  sinks_[absl::AsciiStrToLower(type)] = std::move(factory);
  auto& needed = emulators_[absl::AsciiStrToLower(type)];
  needed.insert(needed.end(), emulators.begin(), emulators.end());
}

void ConnectorRegistry::AddLocalResource(const std::string& connector,
                                         LocalResourceReader reader) {
  local_resources_[connector] = std::move(reader);
}

std::vector<emulators::EmulatorKind> ConnectorRegistry::EmulatorsFor(
    const std::string& type) const {
  auto it = emulators_.find(absl::AsciiStrToLower(type));
  return it == emulators_.end() ? std::vector<emulators::EmulatorKind>()
                                : it->second;
}

absl::StatusOr<std::shared_ptr<runtime::Source<Record>>>
ConnectorRegistry::BuildSource(OptionMap& options,
                               const BuildEnvironment& environment) const {
  return Build<std::shared_ptr<runtime::Source<Record>>>(sources_, "source",
                                                         options, environment);
}

absl::StatusOr<std::shared_ptr<runtime::Sink<Record>>>
ConnectorRegistry::BuildSink(OptionMap& options,
                             const BuildEnvironment& environment) const {
  return Build<std::shared_ptr<runtime::Sink<Record>>>(sinks_, "sink", options,
                                                       environment);
}

std::vector<std::string> ConnectorRegistry::SourceTypes() const {
  return Keys(sources_);
}

std::vector<std::string> ConnectorRegistry::SinkTypes() const {
  return Keys(sinks_);
}

RegisterSource::RegisterSource(const std::string& type, SourceFactory factory,
                               std::vector<emulators::EmulatorKind> emulators) {
  ConnectorRegistry::Global().AddSource(type, std::move(factory),
                                        std::move(emulators));
}

RegisterSink::RegisterSink(const std::string& type, SinkFactory factory,
                           std::vector<emulators::EmulatorKind> emulators) {
  ConnectorRegistry::Global().AddSink(type, std::move(factory),
                                      std::move(emulators));
}

RegisterLocalResource::RegisterLocalResource(const std::string& connector,
                                             LocalResourceReader reader) {
  ConnectorRegistry::Global().AddLocalResource(connector, std::move(reader));
}

}  // namespace gcpstream::config
