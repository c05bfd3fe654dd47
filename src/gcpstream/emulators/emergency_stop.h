#ifndef GCPSTREAM_EMULATORS_EMERGENCY_STOP_H_
#define GCPSTREAM_EMULATORS_EMERGENCY_STOP_H_

#include <sys/types.h>

namespace gcpstream::emulators {

// Process groups to kill if this process is interrupted (SIGINT, SIGTERM,
// SIGHUP). The handler kills every registered group, then lets the signal
// take its default course, so Ctrl-C on a test run never leaves an emulator
// behind. SIGKILL of this process is covered separately by the children's
// parent-death signal (see ChildProcessOptions::die_with_parent).
void RegisterForEmergencyStop(pid_t pgid);
void UnregisterForEmergencyStop(pid_t pgid);

// Installs the handlers once; later calls do nothing.
void InstallEmergencyStopHandlers();

}  // namespace gcpstream::emulators

#endif  // GCPSTREAM_EMULATORS_EMERGENCY_STOP_H_
