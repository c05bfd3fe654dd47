#ifndef GCPSTREAM_CONNECTOR_CLIENT_OPTIONS_H_
#define GCPSTREAM_CONNECTOR_CLIENT_OPTIONS_H_

#include "gcpstream/auth/channel_factory.h"
#include "gcpstream/base/clock.h"
#include "gcpstream/connector/task_timer.h"

namespace gcpstream::connector {

// How a connector reaches its service and tells time, besides what users
// configure: the base of each connector's options struct. Pipeline files
// set none of it; C++ users set `channel`, tests the rest.
template <typename StubFactory>
struct ClientOptions {
  // Where to connect: by default the service's emulator variable
  // (PUBSUB_EMULATOR_HOST, ...) when set, else production
  // (auth::MakeChannel).
  auth::ChannelOptions channel;
  // Batch ages, idle times and retry deadlines; null means the timer's
  // clock. Must outlive the connector.
  const Clock* clock = nullptr;
  // Each writer's timer (batch delay, retry backoff, progress timeouts);
  // null means real time (tests pass a ManualTimer).
  TimerFactory make_timer;
  // The bottom of each writer's service stub; null means gRPC (tests pass
  // a fake, under the same decorators).
  StubFactory make_stub;
};

}  // namespace gcpstream::connector

#endif  // GCPSTREAM_CONNECTOR_CLIENT_OPTIONS_H_
