#!/usr/bin/env bash
# Measures the README's two commands from a cold state, as a new machine
# sees them: a fresh clone of HEAD, an empty build directory and empty
# ccache, pip, npm and Go caches. Debian packages cannot be uninstalled
# here without harm, so apt-get's share is what setup.sh reports (about
# 30 s on a new machine of this kind, docs/development.md).
#
#   scripts/measure-cold.sh [main-job|test|both] [WORK_DIR]    (default: both)
#
# Prints each phase's time: for the main job, the set-up, the build of the
# gcpstream command and the first record (the first progress line that
# counts a record); for the test command, the phases test.sh reports. Logs
# stay in WORK_DIR (default: a new directory under /tmp).
set -euo pipefail
cd "$(dirname "$0")/.."
which="${1:-both}"
# A new directory per run, named by the time it started.
work="${2:-/tmp/gcpstream-cold-$(date -u +%Y%m%dT%H%M%S)}"
mkdir -p "$work"
source_dir=$(pwd)

cold_clone() {  # NAME: a fresh clone with caches of its own
  local dir="$work/$1"
  rm -rf "$dir"
  git clone --quiet --no-local "$source_dir" "$dir/checkout"
  mkdir -p "$dir/ccache" "$dir/pip" "$dir/npm" "$dir/go-build" "$dir/go-mod"
  echo "$dir"
}

cold_env() {  # DIR COMMAND...: COMMAND with the caches a cold machine has
  local dir="$1"
  shift
  env CCACHE_DIR="$dir/ccache" PIP_CACHE_DIR="$dir/pip" npm_config_cache="$dir/npm" \
    GOCACHE="$dir/go-build" GOMODCACHE="$dir/go-mod" GOFLAGS=-modcacherw "$@"
}

report() { printf '%-44s %6d s  (%s)\n' "$1" "$2" "$(date -u +%H:%M:%S)"; }

if [[ $which == main-job || $which == both ]]; then
  dir=$(cold_clone main-job)
  log="$dir/main-job.log"
  echo "main job: scripts/run-main-job.sh in $dir/checkout (log: $log)"
  start=$SECONDS
  first_record=""
  built=""
  # Lines are timed as they arrive: the build's end is ninja's line linking
  # the gcpstream command; the first record is the first line counting
  # records (a progress line, or the summary of a run shorter than one
  # progress interval: then an upper bound).
  while IFS= read -r line; do
    echo "$line" >> "$log"
    if [[ -z $built && $line == *"Linking CXX executable src/gcpstream/cli/gcpstream" ]]; then
      built=$((SECONDS - start))
    fi
    if [[ -z $first_record && $line =~ [1-9][0-9]*\ (in|read)(,|\ |$) ]]; then
      first_record=$((SECONDS - start))
    fi
  done < <(cd "$dir/checkout" && cold_env "$dir" scripts/run-main-job.sh 2>&1; echo "exit status $?")
  total=$((SECONDS - start))
  grep -E "^setup: ready" "$log" | head -1 || true
  report "main job: gcpstream built" "${built:-0}"
  report "main job: first record" "${first_record:-0}"
  report "main job: finished" "$total"
  tail -1 "$log"
fi

if [[ $which == test || $which == both ]]; then
  dir=$(cold_clone test)
  log="$dir/test.log"
  echo "test command: scripts/test.sh in $dir/checkout (log: $log)"
  start=$SECONDS
  status=0
  (cd "$dir/checkout" && cold_env "$dir" scripts/test.sh) > "$log" 2>&1 || status=$?
  grep -E "^test.sh: " "$log" || true
  grep -E "tests passed|tests failed" "$log" || true
  report "test command: finished (exit status $status)" $((SECONDS - start))
  exit "$status"
fi
