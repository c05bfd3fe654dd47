#!/usr/bin/env python3
"""Prints "<file> <key>" for each source file given on stdin.

The key hashes what clang-tidy's verdict on the file depends on: .clang-tidy,
the file's compile command, and the content of every project file the
compiler read for it (from ninja's dependency log). An unchanged key means
the file passed before and need not be checked again. Paths in the key are
relative to the checkout and the build directory, so a key computed in one
checkout holds in another (scripts/tidy-clean.txt carries them in git).

Sources compile in batches (a batch file #includes several .cc files, see
gcpstream_compile_in_batches), so compile_commands.json names batch files.
This writes <build>/tidy-db/compile_commands.json with one entry per source,
the batch's command with the source in its place, for clang-tidy -p; a
source's dependencies are those of its whole batch (a superset).
"""
import hashlib
import json
import os
import re
import subprocess
import sys

build_dir = os.path.abspath(sys.argv[1])
root = os.getcwd()
INCLUDE_ROOTS = [os.path.join(root, "src"), os.path.join(build_dir, "generated")]


def output_of(entry):
    if entry.get("output"):
        return entry["output"]
    words = entry.get("arguments") or entry.get("command", "").split()
    for flag, value in zip(words, words[1:]):
        if flag == "-o":
            return value
    return None


def batch_members(batch_path):
    """The sources a batch file includes, as absolute paths."""
    members = []
    with open(batch_path) as f:
        for line in f:
            match = re.match(r'#include "([^"]+)"', line)
            if not match:
                continue
            for include_root in INCLUDE_ROOTS + [os.path.dirname(batch_path)]:
                candidate = os.path.join(include_root, match.group(1))
                if os.path.exists(candidate):
                    members.append(os.path.normpath(candidate))
                    break
    return members


def per_source_commands():
    """Source path -> compile command entry, batches expanded."""
    with open(os.path.join(build_dir, "compile_commands.json")) as f:
        entries = json.load(f)
    commands = {}
    for entry in entries:
        path = os.path.normpath(os.path.join(entry["directory"], entry["file"]))
        if "_batches" + os.sep not in path:
            commands[path] = dict(entry, file=path)
            continue
        for member in batch_members(path):
            derived = dict(entry, file=member)
            derived["command"] = entry["command"].replace(entry["file"], member)
            commands[member] = derived
    return commands


def load_ninja_deps():
    """Output file -> the files the compiler read for it (ninja's log)."""
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


def project_deps(entry, ninja_deps):
    output = output_of(entry)
    if not output or output not in ninja_deps:
        return None
    src = os.path.join(root, "src")
    paths = {os.path.normpath(os.path.join(entry["directory"], d))
             for d in ninja_deps[output]}
    return sorted(p for p in paths if p.startswith(src + os.sep))


def checkout_independent(text):
    return text.replace(build_dir, "<build>").replace(root, "<source>")


def main():
    commands = per_source_commands()
    tidy_db = os.path.join(build_dir, "tidy-db")
    os.makedirs(tidy_db, exist_ok=True)
    with open(os.path.join(tidy_db, "compile_commands.json.new"), "w") as f:
        json.dump(list(commands.values()), f, indent=1)
    os.replace(os.path.join(tidy_db, "compile_commands.json.new"),
               os.path.join(tidy_db, "compile_commands.json"))
    ninja_deps = load_ninja_deps()
    with open(".clang-tidy", "rb") as f:
        tidy_config = f.read()
    for line in sys.stdin:
        path = line.strip()
        if not path:
            continue
        entry = commands.get(os.path.normpath(os.path.join(root, path)))
        digest = hashlib.sha256(tidy_config)
        if entry is None:
            print(path, "uncompiled-" + os.urandom(8).hex())  # Always checked.
            continue
        command = entry.get("command", " ".join(entry.get("arguments", [])))
        digest.update(checkout_independent(command).encode())
        deps = project_deps(entry, ninja_deps)
        if deps is None:
            print(path, "nodeps-" + os.urandom(8).hex())
            continue
        for dep in [os.path.join(root, path)] + deps:
            digest.update(os.path.relpath(dep, root).encode())
            try:
                with open(dep, "rb") as f:
                    digest.update(f.read())
            except OSError:
                digest.update(b"missing")
        print(path, digest.hexdigest())


main()
