#include "gcpstream/auth/user_agent.h"

namespace gcpstream::auth {

std::string UserAgent() { return "gcpstream/" GCPSTREAM_VERSION; }

}  // namespace gcpstream::auth
