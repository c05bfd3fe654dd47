#ifndef GCPSTREAM_AUTH_USER_AGENT_H_
#define GCPSTREAM_AUTH_USER_AGENT_H_

#include <string>

namespace gcpstream::auth {

// "gcpstream/<version>": what every request (gRPC and REST) says it comes
// from, so the services' request logs tell gcpstream's traffic apart.
std::string UserAgent();

}  // namespace gcpstream::auth

#endif  // GCPSTREAM_AUTH_USER_AGENT_H_
