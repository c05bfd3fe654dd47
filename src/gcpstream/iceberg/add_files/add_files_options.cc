#include "gcpstream/iceberg/add_files/add_files_options.h"

#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"

namespace gcpstream::iceberg {

IncompatibleSchemaHandling AddFilesOptions::IncompatibleHandling() const {
  if (incompatible_schema_handling.has_value()) {
    return *incompatible_schema_handling;
  }
  return bounded ? IncompatibleSchemaHandling::kFailJob
                 : IncompatibleSchemaHandling::kRouteToErrors;
}

UnverifiableFileHandling AddFilesOptions::UnverifiableHandling() const {
  return unverifiable_file_handling.value_or(UnverifiableFileHandling::kReject);
}

absl::Status ValidateAddFilesOptions(const AddFilesOptions& options) {
  if (options.files_per_manifest < 1) {
    return absl::InvalidArgumentError(
        absl::StrCat("files-per-manifest must be at least 1, not ",
                     options.files_per_manifest));
  }
  for (const std::string& pin : options.evolution.pins) {
    if (pin.empty() || absl::StripAsciiWhitespace(pin) != pin) {
      return absl::InvalidArgumentError(absl::StrCat(
          "required-columns: '", pin,
          "' is blank or has spaces around it; write the column's dotted "
          "path (`address.city`, `items.element.sku`)"));
    }
    if (pin.front() == '.' || pin.back() == '.' ||
        pin.find("..") != std::string::npos) {
      return absl::InvalidArgumentError(
          absl::StrCat("required-columns: '", pin,
                       "' is not a dotted column path (empty segment)"));
    }
  }
  if (options.evolution_enabled()) return absl::OkStatus();
  // Each of these only means something while the schema may evolve.
  const char* needs_evolution = nullptr;
  if (!options.evolution.pins.empty()) {
    needs_evolution = "required-columns";
  } else if (options.incompatible_schema_handling.has_value()) {
    needs_evolution = "incompatible-schema-handling";
  } else if (options.unverifiable_file_handling.has_value()) {
    needs_evolution = "unverifiable-file-handling";
  } else if (options.dry_run) {
    needs_evolution = "dry-run";
  }
  if (needs_evolution != nullptr) {
    return absl::InvalidArgumentError(absl::StrCat(
        needs_evolution,
        " applies only with schema evolution: set schema-evolution-options "
        "(allow-field-addition, allow-field-relaxation, "
        "allow-type-promotion) or remove ",
        needs_evolution));
  }
  return absl::OkStatus();
}

}  // namespace gcpstream::iceberg
