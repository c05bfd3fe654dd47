#ifndef GCPSTREAM_CONFIG_CONNECTOR_REGISTRY_H_
#define GCPSTREAM_CONFIG_CONNECTOR_REGISTRY_H_

#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "gcpstream/config/option_map.h"
#include "gcpstream/emulators/emulator_kind.h"
#include "gcpstream/json/json_record.h"
#include "gcpstream/runtime/sink.h"
#include "gcpstream/runtime/source.h"

namespace gcpstream::config {

// Records of pipelines described in files are JSON values, kept as their
// validated, indexed text (docs/adr/0008-json-records.md).
using Record = json::JsonRecord;

// A record refused before it became a message or a mutation keeps its JSON
// on the error, so its dead-letter entry carries it.
absl::Status WithRecord(const absl::Status& status, const Record& record);

// Reads the required `project`; when it is missing the error says how to
// choose one: a Google Cloud project, or any name for a local run on
// emulators (`gcpstream run --local`).
absl::StatusOr<std::string> RequiredProject(OptionMap& options);

// What a factory may need besides its own options.
struct BuildEnvironment {
  std::string pipeline_name;
  // The connector's own name (a sink's `name:`, or the source's).
  std::string name;
};

// A factory reads the options it understands from `options` (the mapping
// that holds `type:`) and builds the connector, or returns an error with
// the position of the offending option. Keys it did not read are reported
// as unknown after it returns.
using SourceFactory =
    std::function<absl::StatusOr<std::shared_ptr<runtime::Source<Record>>>(
        OptionMap& options, const BuildEnvironment& environment)>;
using SinkFactory =
    std::function<absl::StatusOr<std::shared_ptr<runtime::Sink<Record>>>(
        OptionMap& options, const BuildEnvironment& environment)>;

// What one connector declares under a pipeline file's `local:` section, for
// `gcpstream run --local`: resources to create on its emulator before the
// run, and to count after it.
class LocalResource {
 public:
  virtual ~LocalResource() = default;
  // The emulators the resources live on.
  virtual std::vector<emulators::EmulatorKind> Emulators() const = 0;
  // What is declared, one line per resource, e.g. "topic orders-eu".
  virtual std::vector<std::string> Declared() const = 0;
  // Creates what is missing; existing resources are left as they are.
  virtual absl::Status Provision(const std::string& project) const = 0;
  // One line per resource: what landed in it.
  virtual absl::StatusOr<std::vector<std::string>> DescribeWhatLanded(
      const std::string& project) const = 0;
};

// Reads the connector's own keys of `local:`; null when it declares nothing.
using LocalResourceReader =
    std::function<absl::StatusOr<std::shared_ptr<const LocalResource>>(
        OptionMap& local)>;

// Connector types by their `type:` spelling. Each connector registers itself
// from its own file (a static RegisterSource/RegisterSink object in a
// library linked whole), so adding one never touches the loader.
class ConnectorRegistry {
 public:
  static ConnectorRegistry& Global();

  // `emulators`: what `run --local` must start for a connector of this type.
  void AddSource(const std::string& type, SourceFactory factory,
                 std::vector<emulators::EmulatorKind> emulators = {});
  void AddSink(const std::string& type, SinkFactory factory,
               std::vector<emulators::EmulatorKind> emulators = {});

  // Reads `type` (case-insensitive), runs its factory, then refuses keys
  // nobody read. Errors name the file position and the registered types.
  absl::StatusOr<std::shared_ptr<runtime::Source<Record>>> BuildSource(
      OptionMap& options, const BuildEnvironment& environment) const;
  absl::StatusOr<std::shared_ptr<runtime::Sink<Record>>> BuildSink(
      OptionMap& options, const BuildEnvironment& environment) const;

  std::vector<std::string> SourceTypes() const;
  std::vector<std::string> SinkTypes() const;
  // The emulators a connector of `type` needs (none if unknown).
  std::vector<emulators::EmulatorKind> EmulatorsFor(
      const std::string& type) const;

  // A connector's part of `local:`, read in connector-name order.
  void AddLocalResource(const std::string& connector,
                        LocalResourceReader reader);
  const std::map<std::string, LocalResourceReader>& local_resources() const {
    return local_resources_;
  }

 private:
  std::map<std::string, SourceFactory> sources_;
  std::map<std::string, SinkFactory> sinks_;
  std::map<std::string, std::vector<emulators::EmulatorKind>> emulators_;
  std::map<std::string, LocalResourceReader> local_resources_;
};

struct RegisterSource {
  RegisterSource(const std::string& type, SourceFactory factory,
                 std::vector<emulators::EmulatorKind> emulators = {});
};
struct RegisterSink {
  RegisterSink(const std::string& type, SinkFactory factory,
               std::vector<emulators::EmulatorKind> emulators = {});
};
struct RegisterLocalResource {
  RegisterLocalResource(const std::string& connector,
                        LocalResourceReader reader);
};

}  // namespace gcpstream::config

#endif  // GCPSTREAM_CONFIG_CONNECTOR_REGISTRY_H_
