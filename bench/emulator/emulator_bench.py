"""Benchmark of the emulator itself: how many requests per second it serves on loopback, so that
it is never what limits the other benchmarks.

The emulator runs with rate limits off (test timing profile) and 100 seeded running instances.
For each operation, ``--connections`` threads with one keep-alive HTTP connection each send
requests back to back for ``--seconds`` seconds:

- ``GET /v1/instances/<id>``: one instance (what a waiting module polls);
- ``GET /v1/instances``: the list of all 100 (what a module reads to find an instance by name);
- ``POST /v1/ssh-keys`` then ``DELETE /v1/ssh-keys/<id>``: cheap writes, two requests a round.

Reported per operation: requests per second (wall) and the emulator's CPU milliseconds per
request (what one request costs it whatever else the machine does). The load generator runs on
the same machine and takes CPU from the emulator: the figures are a lower bound.

Target: every operation >= ``--target`` requests per second (default 100). The other
benchmarks need far less: bench/fleet sends about 8 requests a second on average (the
production rate limits allow 8.3), with peaks under 50 in one second (most of them 429 answers
when rate-limit windows reset); bench/task_overhead about one a second; bench/inventory three
a run. Exit status 1 when the target is missed.

Usage: bench/emulator/run [--seconds 5] [--connections 4] [--target 100]
"""

import argparse
import http.client
import json
import os
import sys
import threading
import time
from urllib.parse import urlsplit

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
import _common  # noqa: E402  pylint: disable=wrong-import-position

INSTANCES = 100
SSH_KEY = "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIK0wmN/Cr3JXqmLW7u+g9pTh+wyqDHpSQEIQczXkVx9q bench"


class Client:
    """One keep-alive connection to the API, with the bearer token."""

    def __init__(self, api_url, token):
        parts = urlsplit(api_url)
        self.prefix = parts.path
        self.connection = http.client.HTTPConnection(parts.hostname, parts.port, timeout=10)
        self.headers = {"Authorization": "Bearer " + token, "Content-Type": "application/json", "User-Agent": "bench"}

    def send(self, method, path, body=None):
        self.connection.request(method, self.prefix + path, body=json.dumps(body) if body is not None else None,
                                headers=self.headers)
        response = self.connection.getresponse()
        data = response.read()
        if response.status >= 300:
            raise SystemExit("%s %s answered %d: %s" % (method, path, response.status, data[:300]))
        return data


def operations(instance_ids):
    """name -> a function sending one round of requests with a client; it returns how many it sent."""
    def get_one(client, number):
        client.send("GET", "/instances/" + instance_ids[number % len(instance_ids)])
        return 1

    def get_list(client, _number):
        client.send("GET", "/instances")
        return 1

    def create_delete(client, number):
        # the API answers the new id, bare or as a JSON string
        key_id = client.send("POST", "/ssh-keys", {"name": "bench-%d" % number, "key": SSH_KEY}).decode().strip('"')
        client.send("DELETE", "/ssh-keys/" + key_id)
        return 2

    return {"GET /v1/instances/{id}": get_one, "GET /v1/instances (%d)" % INSTANCES: get_list,
            "POST + DELETE /v1/ssh-keys": create_delete}


def load(emulator, token, operation, connections, seconds):
    """Requests per second and emulator CPU milliseconds per request of ``operation``."""
    counts = [0] * connections
    deadline = [0.0]
    start = threading.Barrier(connections + 1)

    def worker(index):
        try:
            client = Client(emulator.api_url, token)
            operation(client, index)  # connect and warm up before the clock starts
            start.wait()
            number = index * 1000000
            while time.perf_counter() < deadline[0]:
                number += 1
                counts[index] += operation(client, number)
        except BaseException:
            start.abort()  # the main thread and the other workers stop waiting
            raise

    threads = [threading.Thread(target=worker, args=(index,)) for index in range(connections)]
    for thread in threads:
        thread.start()
    deadline[0] = time.perf_counter() + seconds
    start.wait()
    cpu_before, started = _common.cpu_seconds(emulator.process.pid), time.perf_counter()
    for thread in threads:
        thread.join()
    wall, cpu = time.perf_counter() - started, _common.cpu_seconds(emulator.process.pid) - cpu_before
    total = sum(counts)
    return {"rps": total / wall, "cpu_ms": 1000 * cpu / total, "requests": total}


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n", 1)[0])
    parser.add_argument("--seconds", type=float, default=5, help="seconds of load per operation (default 5)")
    parser.add_argument("--connections", type=int, default=4, help="concurrent connections (default 4)")
    parser.add_argument("--target", type=float, default=100,
                        help="requests per second each operation must reach (default 100)")
    arguments = parser.parse_args()

    print(_common.load_line())
    results = {}
    with _common.run_emulator(profile="test", rate_limits={"enabled": False}) as emulator:
        instance_ids = emulator.control.seed(instances=INSTANCES, status="running", hostname_prefix="bench")["instance_ids"]
        token = emulator.access_token()
        for name, operation in operations(instance_ids).items():
            results[name] = load(emulator, token, operation, arguments.connections, arguments.seconds)
    print(_common.load_line())
    print()
    print("%d connections, %.0f s each, rate limits off; emulator CPU per request" % (arguments.connections, arguments.seconds))
    missed = []
    for name, result in results.items():
        met = result["rps"] >= arguments.target
        if not met:
            missed.append(name)
        print("  %-32s %7.0f requests/s %6.2f ms CPU   target >= %.0f/s %s" % (
            name, result["rps"], result["cpu_ms"], arguments.target, "ok" if met else "MISSED"))
    print("result: %s requests/s (target >= %.0f: %s)" % (", ".join(
        "%s %.0f" % (name, result["rps"]) for name, result in results.items()), arguments.target,
        "ok" if not missed else "MISSED: " + ", ".join(missed)))
    return 0 if not missed else 1


if __name__ == "__main__":
    sys.exit(main())
