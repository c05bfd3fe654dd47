#!/usr/bin/env bash
# Runs clang-tidy (checks in .clang-tidy) over gcpstream's own .cc files.
# Usage: scripts/check-tidy.sh [build dir]   (needs a completed build)
#
# A file that passed is remembered under <build>/tidy-cache by a hash of
# .clang-tidy, its compile command and every project file it includes (read
# from ninja's dependency log), so only what a change can affect is
# checked again.
#
# Tests (*_test.cc) get a lighter set: .clang-tidy's Google style and
# ownership checks, identifier naming, use-after-move and unused usings. The full set costs ~40 s per test file (gtest and gRPC
# headers traversed by every matcher) and kept CI over its time limit; the
# bug-finding checks matter most in the code users run.
set -euo pipefail
cd "$(dirname "$0")/.."
build_dir="${1:-build}"
clang_tidy="$(command -v clang-tidy || command -v clang-tidy-14)"
cache="$build_dir/tidy-cache"
mkdir -p "$cache"
mapfile -t keyed < <(git ls-files --cached --others --exclude-standard \
  -- 'src/*.cc' 'examples/*.cc' 'bench/*.cc' | scripts/tidy_cache_keys.py "$build_dir")
# Appended to .clang-tidy's Checks (later globs win), so its exclusions
# stay in one place.
test_checks='-bugprone-*,bugprone-use-after-move,-misc-*,misc-unused-using-decls,misc-unused-alias-decls,-modernize-*,-performance-*,-readability-*,readability-identifier-naming'
# A change of the test set must not reuse stamps of the old one.
test_stamp="$(printf '%s' "$test_checks" | sha256sum | cut -c1-12)"
unchecked=()
for entry in "${keyed[@]}"; do
  file="${entry% *}" key="${entry##* }"
  [[ "$file" == *_test.cc ]] && key="$key-$test_stamp"
  [[ -f "$cache/$key" ]] || unchecked+=("$file:$key")
done
export clang_tidy build_dir cache test_checks
check_one() {
  local file="${1%%:*}" key="${1##*:}" checks=()
  [[ "$file" == *_test.cc ]] && checks=(--checks="$test_checks")
  if "$clang_tidy" -p "$build_dir" --quiet "${checks[@]}" "$file" 2>/dev/null; then
    touch "$cache/$key"
  else
    return 1
  fi
}
export -f check_one
if [[ ${#unchecked[@]} -gt 0 ]]; then
  # Two at a time: the machines this runs on have two cores.
  printf '%s\n' "${unchecked[@]}" | xargs -P 2 -I{} bash -c 'check_one "$1"' _ {}
fi
echo "clang-tidy: ${#keyed[@]} files clean (${#unchecked[@]} checked, the rest cached)"
