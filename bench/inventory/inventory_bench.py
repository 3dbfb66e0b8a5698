"""Benchmark of the cloudcompute inventory plugin against the floor of Ansible's own inventory
machinery.

For each size it seeds a fresh emulator with that many running instances (spread over
locations, instance types, tags and two projects, read as one source with ``projects``) and 50
clusters of 2 workers, then times
``ansible-inventory --list`` with:

- the plugin, cold: no inventory cache and no cached token (per project, a token exchange + 2
  API requests);
- the plugin, cached: the inventory cache holds the API's answers (no API request);
- the floor: a minimal inventory plugin, generated here, that adds exactly the same hosts,
  groups and host variables from a local JSON file with the same public InventoryData calls,
  and no HTTP (its ``--list`` output is checked to be identical to the plugin's);
- a static YAML inventory of the same hosts, for reference.

Two measures for each run: wall seconds, and busy seconds, the CPU time of ansible-inventory
plus that of the emulator while it ran: what the wall time would be on an otherwise idle
machine (client and emulator take turns, they do not overlap), and far less disturbed by other
processes competing for the CPUs, which can double a wall time on a shared machine. Variants
are interleaved round by round, and each is represented by its fastest round, the least
disturbed one (as timeit does). The targets, cold <= 1.5 x floor and cached <= 1.15 x floor at
every size, are judged on busy seconds (``--judge wall``: on wall seconds, for a quiet
machine). Exit status 1 when one is missed.

Usage: bench/inventory/run [--sizes 1000,10000] [--rounds 5] [--no-static] [--judge busy|wall]
                           [--keep DIR] [--profile DIR]
"""

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

import yaml
from ansible.inventory.manager import InventoryManager
from ansible.parsing.dataloader import DataLoader
from ansible.plugins.loader import init_plugin_loader

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
import _common  # noqa: E402  pylint: disable=wrong-import-position

TARGETS = {"cold": 1.5, "cached": 1.15}
CLUSTERS = 50
# How the seeded instances are spread, so the default groups have realistic variety.
INSTANCE_MIX = (
    {"location_code": "FIN-01", "instance_type": "CPU.4V.16G", "tags": {"env": "prod", "role": "web"}},
    {"location_code": "FIN-02", "instance_type": "CPU.8V.32G", "tags": {"env": "prod", "role": "db"}},
    {"location_code": "FIN-03", "instance_type": "1H100.80S.30V", "tags": {"env": "dev", "gpu": ""}},
    {"location_code": "ICE-01", "instance_type": "1A100.22V", "tags": {"env": "dev", "gpu": ""}},
)

FLOOR_PLUGIN = '''
DOCUMENTATION = """
name: cloudcompute_floor
short_description: The benchmark floor, hosts from a JSON file
description: Adds the hosts, groups and host variables of a JSON file, nothing else.
options:
  plugin:
    description: cloudcompute_floor
    required: true
  data:
    description: the JSON file
    required: true
"""

import json

from ansible.plugins.inventory import BaseInventoryPlugin


class InventoryModule(BaseInventoryPlugin):
    NAME = "cloudcompute_floor"

    def verify_file(self, path):
        return super().verify_file(path) and path.endswith("floor.yml")

    def parse(self, inventory, loader, path, cache=True):
        super().parse(inventory, loader, path, cache)
        self._read_config_data(path)
        with open(self.get_option("data")) as handle:
            data = json.load(handle)
        for group in data["groups"]:
            inventory.add_group(group)
        for name, variables in data["hosts"].items():
            inventory.add_host(name)
            for variable, value in variables.items():
                inventory.set_variable(name, variable, value)
        for group, members in data["groups"].items():
            for child in members["children"] + members["hosts"]:
                inventory.add_child(group, child)
'''


class Bench:
    def __init__(self, workdir, emulator):
        self.workdir = workdir
        self.emulator = emulator
        self.plugin_dir = os.path.join(workdir, "inventory_plugins")
        shutil.rmtree(self.plugin_dir, ignore_errors=True)  # from an earlier run with --keep
        os.makedirs(self.plugin_dir)
        with open(os.path.join(self.plugin_dir, "cloudcompute_floor.py"), "w") as handle:
            handle.write(FLOOR_PLUGIN)
        self.inventory_cache = os.path.join(workdir, "inventory-cache")
        self.config = os.path.join(workdir, "cloudcompute.yml")
        # reset() keeps credentials: the second project's serves every size
        second = emulator.control.create_credentials(role="member", project_id="bench-second")
        self.second_project = second["project_id"]
        write_yaml(self.config, {
            "plugin": "cloudcompute.cloud.cloudcompute",
            "projects": [
                {"name": "main", "client_id": emulator.client_id, "client_secret": emulator.client_secret},
                {"name": "second", "client_id": second["client_id"], "client_secret": second["client_secret"]},
            ],
            "cache": True,
            "cache_plugin": "ansible.builtin.jsonfile",
            "cache_connection": self.inventory_cache,
            "cache_timeout": 3600,
        })
        # Identical for every variant, so only the inventory source differs.
        self.environment = _common.ansible_environment(emulator, workdir, ANSIBLE_INVENTORY_PLUGINS=self.plugin_dir)
        self.collections = self.environment["ANSIBLE_COLLECTIONS_PATH"]
        self.token_cache = self.environment["CLOUDCOMPUTE_TOKEN_CACHE"]
        # The plugin also runs in this process, to write the floor's data.
        for name in ("CLOUDCOMPUTE_API_URL", "CLOUDCOMPUTE_CLIENT_ID", "CLOUDCOMPUTE_CLIENT_SECRET", "CLOUDCOMPUTE_TOKEN_CACHE"):
            os.environ[name] = self.environment[name]
        self.ansible_inventory = os.path.join(_common.BIN, "ansible-inventory")

    def seed(self, size):
        control = self.emulator.control
        control.reset()
        share, extra = divmod(size, len(INSTANCE_MIX))
        for number, mix in enumerate(INSTANCE_MIX):
            count = share + (1 if number < extra else 0)
            project = self.second_project if number % 2 else None
            control.seed(instances=count, hostname_prefix="node%d" % number, project_id=project, **mix)
        control.seed(clusters=CLUSTERS, hostname_prefix="cluster", location_code="FIN-01")

    def list_inventory(self, source, output, profile=None):
        """One ``ansible-inventory --list`` (under cProfile with ``profile``): its wall seconds and
        its busy seconds, the CPU time of ansible-inventory plus that of the emulator meanwhile."""
        command = [self.ansible_inventory, "-i", source, "--list"]
        if profile:
            command = [sys.executable, "-m", "cProfile", "-o", profile] + command
        before, emulator_before = os.times(), _common.cpu_seconds(self.emulator.process.pid)
        started = time.perf_counter()
        with open(output, "w") as handle:
            result = subprocess.run(command, env=self.environment, stdout=handle, stderr=subprocess.PIPE, text=True,
                                    check=False)
        wall = time.perf_counter() - started
        after, emulator_after = os.times(), _common.cpu_seconds(self.emulator.process.pid)
        if result.returncode != 0 or "WARNING" in result.stderr or "ERROR" in result.stderr:
            raise SystemExit("ansible-inventory -i %s failed:\n%s" % (source, result.stderr))
        client = (after.children_user - before.children_user) + (after.children_system - before.children_system)
        return {"wall": wall, "busy": client + emulator_after - emulator_before}

    def clear_caches(self):
        shutil.rmtree(self.inventory_cache, ignore_errors=True)
        shutil.rmtree(self.token_cache, ignore_errors=True)

    def api_requests(self):
        return sorted("%s %s" % (entry["method"], entry["path"]) for entry in _common.api_calls(self.emulator))

    def write_floor_and_static(self, size):
        """The floor's JSON and a static YAML inventory, from the plugin's own result."""
        inventory = InventoryManager(loader=DataLoader(), sources=[self.config])
        magic = {"inventory_file", "inventory_dir"}
        hosts = {host.name: {key: value for key, value in host.vars.items() if key not in magic}
                 for host in inventory.get_hosts()}
        groups = {}
        for name, group in inventory.groups.items():
            if name in ("all", "ungrouped"):
                continue
            groups[name] = {"hosts": [host.name for host in group.hosts],
                            "children": [child.name for child in group.child_groups]}
        data = os.path.join(self.workdir, "floor-%d.json" % size)
        with open(data, "w") as handle:
            json.dump({"hosts": hosts, "groups": groups}, handle)
        # Read back: plain Python values for the YAML dumper (the plugin's are tagged strings).
        with open(data) as handle:
            hosts = json.load(handle)["hosts"]
        floor = os.path.join(self.workdir, "floor-%d.floor.yml" % size)
        write_yaml(floor, {"plugin": "cloudcompute_floor", "data": data})

        static = os.path.join(self.workdir, "static-%d.yml" % size)
        write_yaml(static, {"all": {
            "hosts": hosts,
            "children": {name: {"hosts": {host: None for host in members["hosts"]},
                                "children": {child: None for child in members["children"]}}
                         for name, members in groups.items()},
        }})
        return floor, static, len(hosts), len(groups)

    def run_size(self, size, rounds, with_static, profile_dir=None):
        self.seed(size)
        self.clear_caches()
        self.api_requests()
        plugin_output = os.path.join(self.workdir, "plugin-%d.json" % size)
        self.list_inventory(self.config, plugin_output)  # warms the cache for the floor's data
        floor, static, host_count, group_count = self.write_floor_and_static(size)
        floor_output = os.path.join(self.workdir, "floor-%d.json.out" % size)
        self.list_inventory(floor, floor_output)
        if normalised_listing(floor_output) != normalised_listing(plugin_output):
            raise SystemExit("the floor's --list output differs from the plugin's: the comparison would be unfair")

        runs = {"floor": [], "cold": [], "cached": []}
        requests = {}
        for _round in range(rounds):
            for variant in ("floor", "cold", "cached"):
                if variant == "cold":
                    self.clear_caches()
                self.api_requests()
                runs[variant].append(self.list_inventory(floor if variant == "floor" else self.config, plugin_output))
                requests[variant] = self.api_requests()
        if with_static:
            runs["static"] = [self.list_inventory(static, os.path.join(self.workdir, "static.out"))]
        if profile_dir:
            for variant in ("floor", "cold", "cached"):
                if variant == "cold":
                    self.clear_caches()
                self.list_inventory(floor if variant == "floor" else self.config, plugin_output,
                                    profile=os.path.join(profile_dir, "%s-%d.prof" % (variant, size)))
        return {"hosts": host_count, "groups": group_count, "runs": runs, "requests": requests}


def normalised_listing(path):
    """``--list`` output with group member lists sorted (the order of adding does not matter)."""
    with open(path) as handle:
        listing = json.load(handle)
    for name, group in listing.items():
        if name != "_meta":
            for key in ("hosts", "children"):
                if key in group:
                    group[key] = sorted(group[key])
    return listing


def write_yaml(path, data):
    with open(path, "w") as handle:
        yaml.dump(data, handle, Dumper=getattr(yaml, "CSafeDumper", yaml.SafeDumper), default_flow_style=False)


def summary(runs):
    """Fastest and median busy and wall seconds of a variant's runs."""
    busy = [run["busy"] for run in runs]
    wall = [run["wall"] for run in runs]
    return {"busy_min": min(busy), "busy_median": statistics.median(busy),
            "wall_min": min(wall), "wall_median": statistics.median(wall)}


def report(results, judge):
    """Print the figures; True when every target is met on the ``judge`` measure."""
    measure = judge + "_min"
    missed = []
    print()
    print("ansible-inventory --list, seconds, fastest / median of the rounds. busy: CPU time of ansible-inventory")
    print("and of the emulator meanwhile (an idle machine's wall time). Ratios and verdict on the fastest %s time."
          % judge)
    for result in results:
        figures = {variant: summary(runs) for variant, runs in result["runs"].items()}
        floor = figures["floor"][measure]
        print()
        print("%d hosts (%d instances + %d jump hosts + %d workers), %d groups" % (
            result["hosts"], result["hosts"] - 3 * CLUSTERS, CLUSTERS, 2 * CLUSTERS, result["groups"]))
        print("  %-15s %15s %15s %7s   %s" % ("", "busy", "wall", "ratio", "target"))
        for variant, label in (("floor", "floor"), ("cold", "plugin, cold"), ("cached", "plugin, cached"),
                               ("static", "static YAML")):
            if variant not in figures:
                continue
            figure = figures[variant]
            ratio = figure[measure] / floor
            target = ""
            if variant in TARGETS:
                met = ratio <= TARGETS[variant]
                target = "<= %.2fx %s" % (TARGETS[variant], "ok" if met else "MISSED")
                if not met:
                    missed.append("%s at %d hosts: %.2fx" % (variant, result["hosts"], ratio))
            print("  %-15s %6.2f / %6.2f %6.2f / %6.2f %6.2fx   %s" % (
                label, figure["busy_min"], figure["busy_median"], figure["wall_min"], figure["wall_median"], ratio, target))
    print()
    print("API requests per refresh (emulator request log):")
    for result in results:
        print("  %6d hosts: cold: %s; cached: %s" % (
            result["hosts"], ", ".join(result["requests"]["cold"]) or "none", ", ".join(result["requests"]["cached"]) or "none"))
    print()
    print("targets (cold <= %.2fx, cached <= %.2fx the floor): %s" % (
        TARGETS["cold"], TARGETS["cached"], "all met" if not missed else "MISSED: " + "; ".join(missed)))
    print("result: %s (%s time; targets cold <= %.2fx, cached <= %.2fx: %s)" % ("; ".join(
        "%d hosts cold %.2fx, cached %.2fx" % (
            result["hosts"], summary(result["runs"]["cold"])[measure] / summary(result["runs"]["floor"])[measure],
            summary(result["runs"]["cached"])[measure] / summary(result["runs"]["floor"])[measure])
        for result in results), judge, TARGETS["cold"], TARGETS["cached"], "ok" if not missed else "MISSED"))
    return not missed


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sizes", default="1000,10000", help="instance counts, comma-separated (default 1000,10000)")
    parser.add_argument("--rounds", type=int, default=5, help="timed runs of each variant per size (default 5)")
    parser.add_argument("--no-static", action="store_true", help="skip the static YAML reference (about 50 s at 10,000)")
    parser.add_argument("--judge", choices=("busy", "wall"), default="busy",
                        help="measure the targets are judged on, fastest round of each: busy seconds (default; "
                        "robust to other load on the machine) or wall seconds (for a quiet machine)")
    parser.add_argument("--keep", metavar="DIR", help="keep configurations, data and outputs in DIR")
    parser.add_argument("--profile", metavar="DIR", help="after timing, run each variant once more under cProfile and "
                        "write DIR/<variant>-<size>.prof (read them with python -m pstats)")
    arguments = parser.parse_args()
    sizes = [int(size) for size in arguments.sizes.split(",")]

    workdir = arguments.keep or tempfile.mkdtemp(prefix="cloudcompute-inventory-bench-")
    os.makedirs(workdir, exist_ok=True)
    if arguments.profile:
        os.makedirs(arguments.profile, exist_ok=True)
    results = []
    print(_common.load_line())
    try:
        with _common.run_emulator(profile="test") as emulator:
            bench = Bench(workdir, emulator)
            init_plugin_loader([bench.collections])
            for size in sizes:
                started = time.time()
                print("%d instances + %d clusters of 2 workers: %d rounds..." % (size, CLUSTERS, arguments.rounds),
                      end=" ", flush=True)
                results.append(bench.run_size(size, arguments.rounds, not arguments.no_static, arguments.profile))
                print("%.0f s" % (time.time() - started), flush=True)
    finally:
        if not arguments.keep:
            shutil.rmtree(workdir, ignore_errors=True)
    print(_common.load_line())
    return 0 if report(results, arguments.judge) else 1


if __name__ == "__main__":
    sys.exit(main())
