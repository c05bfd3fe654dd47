#!/usr/bin/env bash
# Runs clang-tidy 22 (checks in .clang-tidy) over gcpstream's own .cc files.
# Usage: scripts/check-tidy.sh [build dir] [clang-tidy binary]
#   (needs a completed build)
#
# A file that passed is remembered under <build>/tidy-cache by a hash of
# .clang-tidy, its compile command and every project file it includes (read
# from ninja's dependency log), and of the clang-tidy version, so only what a
# change can affect is checked again. The keys of the files that passed are
# also written to scripts/tidy-clean.txt, which is committed: keys do not
# depend on the checkout's path, so a fresh clone (CI) checks only the files
# whose key the committed list lacks, i.e. what the commit changed since the
# last full pass. GCPSTREAM_TIDY_FULL=1 ignores both caches.
#
# clang-tidy 22 rather than Debian's default 14: unlike 14 it does not run
# the checks on declarations in system headers, which cut a fresh check of
# this tree (gRPC, protobuf and gtest headers in every file) from ~25 to
# ~7 min on two cores, tests included.
#
# Tests (*_test.cc, and *_test_support.cc shared by tests) drop two checks that forbid what they do on purpose:
# run commands through a shell (python fixtures, the CLI) and seed random
# generators with constants (a failing run must be reproducible).
set -euo pipefail
cd "$(dirname "$0")/.."
build_dir="${1:-build}"
clang_tidy="${2:-$(command -v clang-tidy-22)}"
cache="$build_dir/tidy-cache"
clean_list=scripts/tidy-clean.txt
mkdir -p "$cache"
if [[ "${GCPSTREAM_TIDY_FULL:-0}" == 1 ]]; then
  rm -rf "$cache" && mkdir -p "$cache"
  clean_list=/dev/null
fi
declare -A committed=()
if [[ -f $clean_list ]]; then
  while read -r key; do committed[$key]=1; done < "$clean_list"
fi
version="$("$clang_tidy" --version | sha256sum | cut -c1-12)"
mapfile -t keyed < <(git ls-files --cached --others --exclude-standard \
  -- 'src/*.cc' 'examples/*.cc' 'bench/*.cc' | scripts/tidy_cache_keys.py "$build_dir")
unchecked=()
for entry in "${keyed[@]}"; do
  file="${entry% *}" key="${entry##* }-$version"
  [[ -f "$cache/$key" || -n "${committed[$key]:-}" ]] || unchecked+=("$file:$key")
done
test_checks='-bugprone-command-processor,-bugprone-random-generator-seed'
export clang_tidy build_dir cache test_checks
check_one() {
  local file="${1%%:*}" key="${1##*:}" checks=()
  [[ "$file" == *_test.cc || "$file" == *_test_support.cc ]] &&
    checks=(--checks="$test_checks")
  # GCC's own warning flags (-Wno-restrict) are unknown to clang.
  if "$clang_tidy" -p "$build_dir/tidy-db" --quiet "${checks[@]}" \
       --extra-arg=-Wno-unknown-warning-option "$file" 2>/dev/null; then
    touch "$cache/$key"
  else
    echo "clang-tidy: $file has findings (above)" >&2
    return 1
  fi
}
export -f check_one
if [[ ${#unchecked[@]} -gt 0 ]]; then
  # Two at a time: the machines this runs on have two cores.
  printf '%s\n' "${unchecked[@]}" | xargs -P 2 -I{} bash -c 'check_one "$1"' _ {}
fi
# Every file is clean here (xargs failed otherwise): record their keys, to be
# committed with the change.
for entry in "${keyed[@]}"; do echo "${entry##* }-$version"; done |
  grep -Ev '^(uncompiled|nodeps)-' | sort -u > scripts/tidy-clean.txt
echo "clang-tidy: ${#keyed[@]} files clean (${#unchecked[@]} checked, the rest cached)"
