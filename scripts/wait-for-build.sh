#!/usr/bin/env bash
# The ctest fixture `built` (CMakeLists.txt): scripts/test.sh runs the tests
# that need one at a time while the rest of the tree builds, and the other
# tests wait here for the build to end. test.sh names in
# GCPSTREAM_WAIT_FOR_BUILD the file it writes the build's exit status to;
# without it (ctest run by hand, after a build) this passes at once.
set -euo pipefail
file="${GCPSTREAM_WAIT_FOR_BUILD:-}"
[[ -z $file ]] && exit 0
while [[ ! -s $file ]]; do sleep 2; done
status=$(cat "$file")
if [[ $status != 0 ]]; then
  echo "wait-for-build: the build failed (exit status $status): the tests that need it do not run" >&2
  exit 1
fi
