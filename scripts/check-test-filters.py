#!/usr/bin/env python3
"""Fails unless every test in every test executable runs exactly once.

Test files share an executable per directory, and each file's ctest
test runs it with a --gtest_filter of the suites CMake read from the file
(cmake/GcpstreamTargets.cmake). A TEST the reading missed, or a suite two
filters match, would go unrun or run twice: this lists every executable's
tests and matches them against the filters ctest holds.

    scripts/check-test-filters.py BUILD_DIR
"""
import collections
import fnmatch
import re
import subprocess
import sys

build_dir = sys.argv[1]
listing = subprocess.run(["ctest", "--test-dir", build_dir, "-N", "-V"],
                         capture_output=True, text=True, check=True).stdout
filters = collections.defaultdict(list)
for line in listing.splitlines():
    match = re.search(r'Test command: (\S+) "--gtest_filter=([^"]+)"', line)
    if match:
        filters[match.group(1)].append(match.group(2).split(":"))
if not filters:
    sys.exit("no test runs a filtered executable: is this a configured build?")
problems = 0
tests_seen = 0
for executable, patterns in sorted(filters.items()):
    listed = subprocess.run([executable, "--gtest_list_tests"],
                            capture_output=True, text=True, check=True).stdout
    suite = ""
    for line in listed.splitlines():
        name = line.split("#")[0].strip()
        if not line.startswith(" "):
            suite = name
            continue
        test = suite + name
        tests_seen += 1
        runs = sum(1 for one in patterns
                   if any(fnmatch.fnmatchcase(test, p) for p in one))
        if runs != 1:
            problems += 1
            print(f"{executable}: {test} is run by {runs} ctest tests, not 1")
print(f"test filters: {tests_seen} tests in {len(filters)} executables, "
      f"{problems} not run exactly once")
sys.exit(1 if problems else 0)
