// gcpstream-emulators: start, inspect and stop the local Google Cloud
// emulators that tests and local pipelines run against (also available as
// `gcpstream emulators`).
//
//   gcpstream-emulators exec [-e pubsub,spanner] -- COMMAND [ARGS...]
//   gcpstream-emulators start [-e ...]     # daemons; prints exports
//   gcpstream-emulators env | status | stop

#include "CLI/CLI.hpp"
#include "gcpstream/emulators/emulators_command.h"

int main(int argc, char** argv) {
  CLI::App app{"Start and stop the local Google Cloud emulators"};
  app.require_subcommand(1);
  gcpstream::emulators::EmulatorsCommand command(app);
  CLI11_PARSE(app, argc, argv);
  return command.Run();
}
