"""Checks deploy/ without a cluster or a Docker engine (docs/deploy.md).

- Every Kubernetes manifest validates, strictly (no unknown field), against
  the API's JSON schemas of the oldest and newest Kubernetes versions we
  support (bundled with kubernetes-validate: nothing is fetched).
- The manifests agree with each other, with the container recipe and with
  the pipeline file they carry: probes on /healthz and /readyz at the
  metrics port the CLI is told to serve, scrape annotations on it, the
  graceful drain shorter than the grace period, the non-root user, the
  ConfigMap's pipeline file valid for `gcpstream validate`.
- The container recipe: a Debian 12 build stage whose packages are ones the
  test machine installs (deps/apt-packages.txt), a slim runtime stage that
  installs the CLI's .deb and runs as that user; and its CMake configure
  command configures this tree.

Usage: check_deploy.py REPO_ROOT GCPSTREAM_CLI [--configure] [--self-test]
Exit status 0 when every check passes; otherwise each problem is printed.
"""

import copy
import io
import os
import pathlib
import re
import shlex
import shutil
import subprocess
import sys
import tempfile

import kubernetes_validate
import yaml
from dockerfile_parse import DockerfileParser

KUBERNETES_VERSIONS = ("1.29.0", "1.37.0")
# Packages the build stage may install beyond deps/apt-packages.txt.
BASE_PACKAGES = {"ca-certificates"}
GRACE_MARGIN_SECONDS = 10


def parse_duration_seconds(text):
    """Seconds in a pipeline-file duration such as 45s, 2m, 1h30m."""
    total = 0.0
    for number, unit in re.findall(r"(\d+(?:\.\d+)?)(ms|s|m|h)", str(text)):
        total += float(number) * {"ms": 0.001, "s": 1, "m": 60, "h": 3600}[unit]
    return total


class Deploy:
    """deploy/ as read from disk (or mutated by the self-test)."""

    def __init__(self, root):
        self.root = pathlib.Path(root)
        kube = self.root / "deploy" / "kubernetes"
        self.manifests = {}
        for path in sorted(kube.glob("*.yaml")):
            self.manifests[path.name] = list(yaml.safe_load_all(path.read_text()))
        self.dockerfile = (self.root / "deploy" / "Dockerfile").read_text()
        self.apt_packages = {
            line.strip()
            for line in (self.root / "deps" / "apt-packages.txt").read_text().splitlines()
            if line.strip() and not line.strip().startswith("#")
        }
        self.dockerignore = (self.root / ".dockerignore").read_text().split()

    def kind(self, kind):
        found = [doc for docs in self.manifests.values() for doc in docs
                 if doc and doc.get("kind") == kind]
        return found[0] if len(found) == 1 else None


def check_schemas(deploy, problems):
    for name, docs in deploy.manifests.items():
        for doc in docs:
            if doc.get("kind") == "Kustomization":
                continue
            for version in KUBERNETES_VERSIONS:
                try:
                    kubernetes_validate.validate(doc, version, strict=True)
                except Exception as error:  # pylint: disable=broad-except
                    first_line = str(error).splitlines()[0]
                    problems.append(f"{name}: not a valid {doc.get('kind')} for "
                                    f"Kubernetes {version}: {first_line}")


def check_kustomization(deploy, problems):
    kustomization = deploy.kind("Kustomization")
    if kustomization is None:
        problems.append("kustomization.yaml: missing")
        return
    listed = set(kustomization.get("resources", []))
    # The key Secret is created from the user's key file, never applied
    # from the repository (it would overwrite the real one with a blank).
    expected = set(deploy.manifests) - {"kustomization.yaml", "secret.yaml"}
    if listed != expected:
        problems.append(f"kustomization.yaml: resources {sorted(listed)} should "
                        f"be {sorted(expected)}")


def dockerfile_stages(text):
    """[(from_line, [(instruction, value), ...]), ...] per stage."""
    # A parser given content writes it to its path; a file object keeps it
    # in memory.
    parser = DockerfileParser(fileobj=io.BytesIO(text.encode()))
    stages = []
    for item in parser.structure:
        instruction, value = item["instruction"], item["value"]
        if instruction == "FROM":
            stages.append((value, []))
        elif instruction != "COMMENT" and stages:
            stages[-1][1].append((instruction, value))
    return stages


def apt_installed(instructions):
    packages = set()
    for instruction, value in instructions:
        if instruction != "RUN":
            continue
        for command in value.split("&&"):
            words = shlex.split(command.replace("\\\n", " "))
            if "apt-get" in words and "install" in words:
                packages.update(w for w in words[words.index("install") + 1:]
                                if not w.startswith("-"))
    return packages


def check_dockerfile(deploy, problems, metrics_port, run_as_user):
    stages = dockerfile_stages(deploy.dockerfile)
    if len(stages) < 2:
        problems.append("Dockerfile: want a build stage and a runtime stage")
        return
    (build_from, build), (runtime_from, runtime) = stages[0], stages[-1]
    if not re.fullmatch(r"debian:12 AS build", build_from):
        problems.append(f"Dockerfile: the build stage is FROM {build_from}, "
                        "want debian:12 AS build")
    if not runtime_from.startswith("debian:12-slim"):
        problems.append(f"Dockerfile: the runtime stage is FROM {runtime_from}, "
                        "want debian:12-slim")
    unknown = apt_installed(build) - deploy.apt_packages - BASE_PACKAGES
    if unknown:
        problems.append("Dockerfile: the build stage installs packages the "
                        f"tests never install (deps/apt-packages.txt): {sorted(unknown)}")
    runtime_packages = apt_installed(runtime)
    if not any(p.endswith(".deb") for p in runtime_packages):
        problems.append("Dockerfile: the runtime stage does not install the "
                        "CLI's .deb (its Depends bring the shared libraries)")
    if not any(i == "COPY" and v.startswith("--from=build") for i, v in runtime):
        problems.append("Dockerfile: the runtime stage copies nothing from the build stage")
    users = [v for i, v in runtime if i == "USER"]
    if not users:
        problems.append("Dockerfile: the runtime stage runs as root (no USER)")
    else:
        uid = users[-1].split(":")[0]
        if not uid.isdigit() or int(uid) == 0:
            problems.append(f"Dockerfile: USER {users[-1]} must be a non-zero "
                            "numeric uid (Kubernetes' runAsNonRoot checks it)")
        elif run_as_user is not None and int(uid) != run_as_user:
            problems.append(f"Dockerfile: USER {uid} differs from the "
                            f"Deployment's runAsUser {run_as_user}")
    entrypoints = [v for i, v in runtime if i == "ENTRYPOINT"]
    if not entrypoints or "/usr/bin/gcpstream" not in entrypoints[-1]:
        problems.append("Dockerfile: ENTRYPOINT must be /usr/bin/gcpstream")
    exposed = [v for i, v in runtime if i == "EXPOSE"]
    if str(metrics_port) not in " ".join(exposed):
        problems.append(f"Dockerfile: EXPOSE lacks the metrics port {metrics_port}")
    for instruction, value in build:
        if instruction == "COPY" and not value.startswith("--from"):
            for source in shlex.split(value)[:-1]:
                if not (deploy.root / source).exists():
                    problems.append(f"Dockerfile: COPY {source}: no such path")
    for ignored in ("build*/", "node_modules/", ".git/"):
        if ignored not in deploy.dockerignore:
            problems.append(f".dockerignore: should exclude {ignored}")


def cmake_configure_command(deploy):
    stages = dockerfile_stages(deploy.dockerfile)
    for instruction, value in stages[0][1]:
        if instruction == "RUN" and "cmake -S" in value:
            command = value.replace("\\\n", " ").split("&&")[0]
            return shlex.split(command)
    return None


def container_of(deployment):
    containers = deployment["spec"]["template"]["spec"].get("containers", [])
    return containers[0] if len(containers) == 1 else None


def check_workload(deploy, cli, problems):
    """Returns (metrics_port, run_as_user) for the Dockerfile checks."""
    deployment = deploy.kind("Deployment")
    if deployment is None:
        problems.append("deployment.yaml: want exactly one Deployment")
        return None, None
    spec = deployment["spec"]
    pod = spec["template"]["spec"]
    labels = spec["template"]["metadata"].get("labels", {})
    if spec.get("replicas", 1) < 2:
        problems.append("deployment.yaml: replicas should be 2 or more "
                        "(the point is scale-out on a shared subscription)")
    if any(labels.get(k) != v for k, v in spec["selector"]["matchLabels"].items()):
        problems.append("deployment.yaml: the selector does not match the pod labels")
    container = container_of(deployment)
    if container is None:
        problems.append("deployment.yaml: want exactly one container")
        return None, None
    args = container.get("args", [])
    port = None
    if "--metrics-port" in args:
        port = int(args[args.index("--metrics-port") + 1])
    else:
        problems.append("deployment.yaml: the container does not pass --metrics-port")
    if "--metrics-address" not in args or \
            args[args.index("--metrics-address") + 1] != "0.0.0.0":
        problems.append("deployment.yaml: --metrics-address must be 0.0.0.0, "
                        "or the kubelet cannot reach the probes")
    ports = {p.get("name"): p["containerPort"] for p in container.get("ports", [])}
    for probe, path in (("livenessProbe", "/healthz"), ("readinessProbe", "/readyz")):
        http = container.get(probe, {}).get("httpGet", {})
        probe_port = ports.get(http.get("port"), http.get("port"))
        if http.get("path") != path or probe_port != port:
            problems.append(f"deployment.yaml: {probe} should GET {path} on "
                            f"port {port}, not {http.get('path')} on {probe_port}")
    annotations = spec["template"]["metadata"].get("annotations", {})
    want = {"prometheus.io/scrape": "true", "prometheus.io/port": str(port),
            "prometheus.io/path": "/metrics"}
    for key, value in want.items():
        if annotations.get(key) != value:
            problems.append(f"deployment.yaml: annotation {key} should be {value!r}, "
                            f"not {annotations.get(key)!r}")
    security = pod.get("securityContext", {})
    if security.get("runAsNonRoot") is not True:
        problems.append("deployment.yaml: securityContext.runAsNonRoot must be true")
    run_as_user = security.get("runAsUser")

    account = deploy.kind("ServiceAccount")
    if account is None or pod.get("serviceAccountName") != account["metadata"]["name"]:
        problems.append("deployment.yaml: serviceAccountName should name the "
                        "ServiceAccount of serviceaccount.yaml")
    volumes = {v["name"]: v for v in pod.get("volumes", [])}
    mounts = {m["name"]: m["mountPath"] for m in container.get("volumeMounts", [])}
    secret = deploy.kind("Secret")
    key_volume = [v for v in volumes.values() if "secret" in v]
    if secret is None or not key_volume or \
            key_volume[0]["secret"]["secretName"] != secret["metadata"]["name"] or \
            key_volume[0]["secret"].get("optional") is not True:
        problems.append("deployment.yaml: mount the Secret of secret.yaml, "
                        "optional (Workload Identity needs none)")

    budget = deploy.kind("PodDisruptionBudget")
    if budget is None or any(labels.get(k) != v for k, v in
                             budget["spec"]["selector"]["matchLabels"].items()):
        problems.append("poddisruptionbudget.yaml: its selector must match the pods")

    config_map = deploy.kind("ConfigMap")
    config_volume = [name for name, v in volumes.items() if "configMap" in v]
    if config_map is None or not config_volume or \
            volumes[config_volume[0]]["configMap"]["name"] != config_map["metadata"]["name"]:
        problems.append("deployment.yaml: mount the ConfigMap of configmap.yaml")
        return port, run_as_user
    pipeline_path = args[1] if len(args) > 1 else ""
    mount = mounts.get(config_volume[0], "")
    key = os.path.relpath(pipeline_path, mount) if pipeline_path.startswith(mount + "/") else None
    if key not in config_map.get("data", {}):
        problems.append(f"deployment.yaml: runs {pipeline_path}, which the "
                        f"ConfigMap mounted at {mount} does not hold")
        return port, run_as_user
    pipeline_text = config_map["data"][key]
    pipeline = yaml.safe_load(pipeline_text)
    grace = pod.get("terminationGracePeriodSeconds", 30)
    drain = parse_duration_seconds(pipeline.get("shutdown-timeout", "25s"))
    if drain + GRACE_MARGIN_SECONDS > grace:
        problems.append(f"deployment.yaml: terminationGracePeriodSeconds {grace} "
                        f"leaves less than {GRACE_MARGIN_SECONDS}s after the "
                        f"pipeline's shutdown-timeout ({drain:g}s)")
    checkpoints = pipeline.get("checkpoint-directory", "")
    if not any(checkpoints.startswith(path + "/") for name, path in mounts.items()
               if "emptyDir" in volumes.get(name, {}) or
               "persistentVolumeClaim" in volumes.get(name, {})):
        problems.append(f"configmap.yaml: checkpoint-directory {checkpoints!r} is "
                        "not on a writable volume (the root filesystem is read-only)")
    with tempfile.TemporaryDirectory() as scratch:
        path = pathlib.Path(scratch) / "pipeline.yaml"
        path.write_text(pipeline_text)
        result = subprocess.run([cli, "validate", str(path)], capture_output=True,
                                text=True, check=False)
        if result.returncode != 0:
            problems.append("configmap.yaml: gcpstream validate refuses the "
                            f"pipeline file: {result.stdout}{result.stderr}")
    return port, run_as_user


def check(deploy, cli):
    problems = []
    check_schemas(deploy, problems)
    check_kustomization(deploy, problems)
    port, run_as_user = check_workload(deploy, cli, problems)
    check_dockerfile(deploy, problems, port, run_as_user)
    return problems


def build_context_paths(deploy):
    """What the build stage COPYs from the build context (the repository)."""
    paths = []
    for instruction, value in dockerfile_stages(deploy.dockerfile)[0][1]:
        if instruction == "COPY" and not value.startswith("--from"):
            paths += shlex.split(value)[:-1]
    return paths


def check_configure(deploy):
    """Runs the recipe's CMake configure command on a tree holding only what
    the build stage copies (plus node_modules, which its `npm ci` makes), so
    a file the build needs but the recipe forgets to copy fails here."""
    command = cmake_configure_command(deploy)
    if command is None:
        return ["Dockerfile: no `cmake -S` configure command in the build stage"]
    with tempfile.TemporaryDirectory() as scratch:
        context = pathlib.Path(scratch) / "src"
        context.mkdir()
        for path in build_context_paths(deploy):
            source = deploy.root / path
            if source.is_dir():
                shutil.copytree(source, context / path)
            elif source.exists():
                shutil.copy2(source, context / path)
        (context / "node_modules").symlink_to(
            (deploy.root / "node_modules").resolve())
        build = pathlib.Path(scratch) / "build"
        command = [str(build) if word == "build" else word for word in command]
        result = subprocess.run(command, cwd=context, capture_output=True,
                                text=True, check=False)
        if result.returncode != 0:
            return [f"Dockerfile: `{' '.join(command)}` fails on the files the "
                    f"build stage copies:\n"
                    f"{result.stdout[-2000:]}{result.stderr[-2000:]}"]
        if "gcpstream_cli" not in (build / "build.ninja").read_text():
            return ["Dockerfile: the configured tree has no gcpstream_cli target"]
    return []


def self_test(root, cli):
    """Each check must catch the mistake it is for."""

    def deployment_of(deploy):
        return deploy.manifests["deployment.yaml"][0]

    def pod_of(deploy):
        return deployment_of(deploy)["spec"]["template"]["spec"]

    def mutate_pipeline(deploy, old, new):
        config_map = deploy.manifests["configmap.yaml"][0]
        config_map["data"]["pipeline.yaml"] = config_map["data"]["pipeline.yaml"].replace(old, new)

    mutations = {
        "unknown field": lambda d: pod_of(d).update({"terminationGracePeriodSecond": 5}),
        "liveness path": lambda d: container_of(deployment_of(d))["livenessProbe"]["httpGet"].update({"path": "/"}),
        "readiness probe": lambda d: container_of(deployment_of(d)).pop("readinessProbe"),
        "scrape port": lambda d: deployment_of(d)["spec"]["template"]["metadata"]["annotations"].update({"prometheus.io/port": "8080"}),
        "root user": lambda d: pod_of(d)["securityContext"].pop("runAsNonRoot"),
        "grace": lambda d: pod_of(d).update({"terminationGracePeriodSeconds": 30}),
        "pdb selector": lambda d: d.manifests["poddisruptionbudget.yaml"][0]["spec"]["selector"]["matchLabels"].update({"app.kubernetes.io/instance": "other"}),
        "pipeline invalid": lambda d: mutate_pipeline(d, "operation: insert-or-update", "operation: upsert"),
        "single replica": lambda d: deployment_of(d)["spec"].update({"replicas": 1}),
        "dockerfile user": lambda d: setattr(d, "dockerfile", d.dockerfile.replace("USER 10001:10001", "USER root")),
        "dockerfile package": lambda d: setattr(d, "dockerfile", d.dockerfile.replace("libabsl-dev", "libabsl-dev libfoo-dev")),
        "dockerfile runtime": lambda d: setattr(d, "dockerfile", d.dockerfile.replace("FROM debian:12-slim", "FROM ubuntu:24.04")),
    }
    baseline = Deploy(root)
    failures = []
    for name, mutate in mutations.items():
        deploy = copy.deepcopy(baseline)
        mutate(deploy)
        if not check(deploy, cli):
            failures.append(name)
    return failures


def main(argv):
    if len(argv) < 3:
        print(__doc__, file=sys.stderr)
        return 2
    root, cli = argv[1], argv[2]
    deploy = Deploy(root)
    problems = check(deploy, cli)
    if "--configure" in argv[3:]:
        problems += check_configure(deploy)
    if "--self-test" in argv[3:]:
        problems += [f"self-test: the checks miss a mutation: {name}"
                     for name in self_test(root, cli)]
        if "--configure" in argv[3:]:
            forgetful = copy.deepcopy(deploy)
            forgetful.dockerfile = forgetful.dockerfile.replace(
                "COPY cmake cmake\n", "")
            if not check_configure(forgetful):
                problems.append("self-test: the configure check misses a "
                                "directory the recipe does not copy")
    for problem in problems:
        print(problem)
    if not problems:
        print(f"deploy/: {sum(len(d) for d in deploy.manifests.values())} "
              "manifests and the container recipe check out")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
