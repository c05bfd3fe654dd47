#!/usr/bin/env python3
"""Starts PyPI's gcloud-tasks-emulator on 127.0.0.1 only.

The package listens on every interface ([::]) and has no flag to change
that; this wrapper replaces the one line that picks the address, so the
emulator is reachable from loopback alone, as every emulator gcpstream
starts. Usage: cloudtasks-emulator.py --port PORT
"""
import argparse
import logging
import sys
import time
from concurrent import futures

import grpc
from gcloud_tasks_emulator import server


def _run_on_loopback(self):
    self._httpd = grpc.server(futures.ThreadPoolExecutor(max_workers=8))
    server.add_CloudTasksServicer_to_server(
        server.Greeter(self._state), self._httpd)
    address = f"127.0.0.1:{self._port}"
    if self._httpd.add_insecure_port(address) == 0:
        logging.error("cannot bind %s", address)
        sys.exit(1)
    logging.info("[API] Starting API server at %s", address)
    self._httpd.start()
    while self._is_running.is_set():
        time.sleep(server._LOOP_SLEEP_TIME)


def main():
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--port", type=int, required=True)
    args = parser.parse_args()
    logging.basicConfig(level=logging.INFO, stream=sys.stdout)
    server.APIThread.run = _run_on_loopback
    server.create_server("127.0.0.1", args.port).run()


if __name__ == "__main__":
    main()
