#!/usr/bin/env python3
"""Prints "<file> <key>" for each source file given on stdin.

The key hashes what clang-tidy's verdict on the file depends on: .clang-tidy,
the file's compile command, and the content of every project file the
compiler read for it (from ninja's dependency log). An unchanged key
means the file passed before and need not be checked again.
"""
import hashlib
import json
import os
import sys

build_dir = sys.argv[1]
root = os.getcwd()
with open(os.path.join(build_dir, "compile_commands.json")) as f:
    commands = {os.path.normpath(e["file"]): e for e in json.load(f)}
with open(".clang-tidy", "rb") as f:
    tidy_config = f.read()


def output_of(entry):
    if entry.get("output"):
        return entry["output"]
    words = entry.get("arguments") or entry.get("command", "").split()
    for flag, value in zip(words, words[1:]):
        if flag == "-o":
            return value
    return None


def load_ninja_deps():
    """Output file -> the files the compiler read for it (ninja's log)."""
    import subprocess
    text = subprocess.run(["ninja", "-C", build_dir, "-t", "deps"],
                          capture_output=True, text=True, check=False).stdout
    deps, current = {}, None
    for line in text.splitlines():
        if not line.strip():
            current = None
        elif not line.startswith(" "):
            current = line.split(":", 1)[0]
            deps[current] = []
        elif current is not None:
            deps[current].append(line.strip())
    return deps


NINJA_DEPS = load_ninja_deps()


def project_deps(entry):
    output = output_of(entry)
    if not output or output not in NINJA_DEPS:
        return None
    src = os.path.join(root, "src")
    return sorted({os.path.normpath(os.path.join(entry["directory"], d))
                   for d in NINJA_DEPS[output]
                   if os.path.normpath(os.path.join(entry["directory"], d)).startswith(src)})


for line in sys.stdin:
    path = line.strip()
    if not path:
        continue
    entry = commands.get(os.path.normpath(os.path.join(root, path)))
    digest = hashlib.sha256(tidy_config)
    if entry is None:
        print(path, "uncompiled-" + os.urandom(8).hex())  # Always checked.
        continue
    digest.update(entry.get("command", " ".join(entry.get("arguments", []))).encode())
    deps = project_deps(entry)
    if deps is None:
        print(path, "nodeps-" + os.urandom(8).hex())
        continue
    for dep in [os.path.join(root, path)] + deps:
        digest.update(dep.encode())
        try:
            with open(dep, "rb") as f:
                digest.update(f.read())
        except OSError:
            digest.update(b"missing")
    print(path, digest.hexdigest())
