#ifndef GCPSTREAM_EMULATORS_EMULATORS_COMMAND_H_
#define GCPSTREAM_EMULATORS_EMULATORS_COMMAND_H_

#include <string>
#include <vector>

#include "CLI/CLI.hpp"

namespace gcpstream::emulators {

// The emulator commands, shared by `gcpstream-emulators` and
// `gcpstream emulators`:
//   exec [-e pubsub,spanner] -- COMMAND [ARGS...]
//   start [-e ...]        daemons; prints the exports
//   env | status | stop
class EmulatorsCommand {
 public:
  // Adds the commands as subcommands of `app`, which must outlive this.
  explicit EmulatorsCommand(CLI::App& app);
  EmulatorsCommand(const EmulatorsCommand&) = delete;
  EmulatorsCommand& operator=(const EmulatorsCommand&) = delete;

  // After `app` parsed: runs the chosen command; its exit code.
  int Run() const;

 private:
  std::vector<std::string> names_;
  std::string log_dir_;
  std::string state_dir_;
  std::vector<std::string> command_;
  CLI::App* exec_ = nullptr;
  CLI::App* start_ = nullptr;
  CLI::App* env_ = nullptr;
  CLI::App* status_ = nullptr;
  CLI::App* stop_ = nullptr;
};

}  // namespace gcpstream::emulators

#endif  // GCPSTREAM_EMULATORS_EMULATORS_COMMAND_H_
