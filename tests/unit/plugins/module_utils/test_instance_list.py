"""The instance list that waiting processes share, and how often a wait reads it: real processes
(multiprocessing), a real file and lock, and the emulator over HTTP for the client's part."""

import json
import multiprocessing
import os
import stat
import time

import pytest

from ansible_collections.cloudcompute.cloud.plugins.module_utils._api import ApiClient
from ansible_collections.cloudcompute.cloud.plugins.module_utils._instance_list import (
    FORMAT,
    MAX_POLL_INTERVAL,
    MIN_POLL_INTERVAL,
    InstanceWaiter,
    SharedInstanceList,
    poll_interval,
    snapshot_path,
)


def listing(counter_path, delay=0.2):
    """A fetch that takes ``delay`` seconds and counts itself in a file (one line per read), so
    reads in several processes can be counted."""

    def fetch():
        with open(counter_path, "a") as handle:
            handle.write("read\n")
        time.sleep(delay)
        return [{"id": "i-1", "status": "provisioning", "jupyter_token": "secret-token"}]

    return fetch


def reads(counter_path):
    if not os.path.exists(counter_path):
        return 0
    with open(counter_path) as handle:
        return len(handle.read().split())


def wait_in_a_process(path, counter_path, polls, results):
    shared = SharedInstanceList(path, "unit", listing(counter_path))
    started = time.time()
    for _poll in range(polls):
        results.put(shared.read(max_age=1.0, not_before=started)[0]["status"])
        time.sleep(0.5)


def test_concurrent_processes_share_one_read_per_poll(tmp_path):
    path, counter = str(tmp_path / "fleet.instances"), str(tmp_path / "reads")
    results = multiprocessing.Queue()
    processes = [
        multiprocessing.Process(target=wait_in_a_process, args=(path, counter, 4, results)) for _process in range(8)
    ]
    started = time.time()
    for process in processes:
        process.start()
    for process in processes:
        process.join(60)
    elapsed = time.time() - started
    statuses = [results.get(timeout=5) for _result in range(32)]
    assert statuses == ["provisioning"] * 32
    # 8 processes polling every half second for ~2 s with a freshness bound of 1 s: a read per
    # second or so, not one per process per poll (32)
    assert 1 <= reads(counter) <= elapsed + 2, (reads(counter), elapsed)
    assert stat.S_IMODE(os.stat(path).st_mode) == 0o600
    # the credential in each record never reaches the file
    with open(path) as handle:
        assert "secret-token" not in handle.read()


def test_a_stale_snapshot_is_read_again_and_a_fresh_one_is_not(tmp_path):
    path, counter = str(tmp_path / "fleet.instances"), str(tmp_path / "reads")
    shared = SharedInstanceList(path, "unit", listing(counter, delay=0))
    shared.read(max_age=5)
    shared.read(max_age=5)
    assert reads(counter) == 1
    time.sleep(0.3)
    shared.read(max_age=0.2)  # older than this wait's interval
    assert reads(counter) == 2
    # a snapshot read before the wait began may miss an instance deployed just before it
    shared.read(max_age=60, not_before=time.time())
    assert reads(counter) == 3


@pytest.mark.parametrize(
    "content",
    [
        b"not json at all {",
        b"[]",
        json.dumps({"format": FORMAT, "identity": "unit", "read_at": "soon", "instances": "all"}).encode(),
        json.dumps({"format": FORMAT, "identity": "unit", "read_at": float("nan"), "instances": []}).encode(),
        # read "in the future": a planted or skewed file is not trusted
        json.dumps({"format": FORMAT, "identity": "unit", "read_at": time.time() + 3600, "instances": []}).encode(),
        json.dumps(
            {"format": FORMAT, "identity": "unit", "read_at": time.time(), "instances": [{"no": "id"}]}
        ).encode(),
        json.dumps({"format": FORMAT, "identity": "another", "read_at": time.time(), "instances": []}).encode(),
        # a lease held "forever" by a process that never answers
        json.dumps({"format": FORMAT, "identity": "unit", "refreshing_until": 1e18}).encode(),
    ],
)
def test_a_corrupt_future_or_foreign_file_means_reading_the_api(tmp_path, content):
    path, counter = str(tmp_path / "fleet.instances"), str(tmp_path / "reads")
    with open(path, "wb") as handle:
        handle.write(content)
    os.chmod(path, 0o600)
    shared = SharedInstanceList(path, "unit", listing(counter, delay=0))
    started = time.time()
    assert shared.read(max_age=5)[0]["id"] == "i-1"
    assert reads(counter) == 1 and time.time() - started < 2
    # and the file is usable again afterwards
    assert shared.read(max_age=5)[0]["id"] == "i-1"
    assert reads(counter) == 1


def test_a_reader_that_died_holds_the_others_up_for_the_lease_at_most(tmp_path, monkeypatch):
    from ansible_collections.cloudcompute.cloud.plugins.module_utils import _instance_list

    monkeypatch.setattr(_instance_list, "REFRESH_LEASE", 0.5)
    path, counter = str(tmp_path / "fleet.instances"), str(tmp_path / "reads")
    with open(path, "w") as handle:
        json.dump({"format": FORMAT, "identity": "unit", "refreshing_until": time.time() + 0.5}, handle)
    os.chmod(path, 0o600)
    started = time.time()
    SharedInstanceList(path, "unit", listing(counter, delay=0)).read(max_age=5)
    assert 0.3 <= time.time() - started < 2 and reads(counter) == 1


def test_an_unsafe_directory_means_reading_alone(tmp_path):
    directory = tmp_path / "open"
    directory.mkdir()
    os.chmod(directory, 0o777)
    counter = str(tmp_path / "reads")
    shared = SharedInstanceList(str(directory / "fleet.instances"), "unit", listing(counter, delay=0))
    shared.read(max_age=5)
    shared.read(max_age=5)
    assert reads(counter) == 2 and not os.path.exists(directory / "fleet.instances")


def test_a_failed_read_releases_the_lease(tmp_path):
    path = str(tmp_path / "fleet.instances")

    def failing():
        raise RuntimeError("API down")

    with pytest.raises(RuntimeError):
        SharedInstanceList(path, "unit", failing).read(max_age=5)
    counter = str(tmp_path / "reads")
    started = time.time()
    SharedInstanceList(path, "unit", listing(counter, delay=0)).read(max_age=5)
    assert time.time() - started < 1 and reads(counter) == 1


# ------------------------------------------------------------------------------ pacing


def created(seconds_ago, now):
    return time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime(now - seconds_ago)) + "Z"


def test_the_interval_follows_what_is_waited_for():
    now = time.time()
    young = {"status": "provisioning", "created_at": created(5, now)}
    old = {"status": "provisioning", "created_at": created(100, now)}
    due = {"status": "provisioning", "created_at": created(158, now)}
    # seconds while young, longer while provisioning, never longer than the maximum
    assert poll_interval([young], now) == MIN_POLL_INTERVAL
    assert 9 <= poll_interval([old], now) <= 11
    assert poll_interval([{"status": "provisioning", "created_at": created(10000, now)}], now) == MAX_POLL_INTERVAL
    # an instance due soon is read when it is due (provisioning lasts about 160 s in production)
    assert poll_interval([due], now) <= MIN_POLL_INTERVAL + 0.5
    # the youngest of several decides; a power action or an unknown age: seconds
    assert poll_interval([old, young], now) == MIN_POLL_INTERVAL
    assert poll_interval([{"status": "offline"}], now) == MIN_POLL_INTERVAL
    assert poll_interval([None, {"status": "ordered", "created_at": "garbage"}], now) == MIN_POLL_INTERVAL
    # never more often than the remaining quota allows
    assert poll_interval([young], now, pacing_delay=7.5) == 7.5


def test_a_waiter_reads_the_project_list_through_the_shared_snapshot(emulator_reset, tmp_path):
    emulator = emulator_reset
    token_cache = str(tmp_path / "tokens")
    clients = [ApiClient(emulator.api_url, emulator.client_id, emulator.client_secret, token_cache=token_cache)]
    clients.append(ApiClient(emulator.api_url, emulator.client_id, emulator.client_secret, token_cache=token_cache))
    instance_id = emulator.control.seed(instances=1)["instance_ids"][0]
    first, second = (InstanceWaiter(client) for client in clients)
    assert instance_id in first.instances()
    # the second process takes the first one's read: no request of its own
    assert instance_id in second.instances() and second.shared.requests == 0 and first.shared.requests == 1
    assert os.path.exists(snapshot_path(clients[0].token_cache))
    # without a token cache each wait reads for itself
    alone = InstanceWaiter(ApiClient(emulator.api_url, emulator.client_id, emulator.client_secret, token_cache=False))
    assert alone.shared is None and instance_id in alone.instances()


def test_a_wait_that_begins_joins_the_next_read_of_the_others(tmp_path):
    path, counter = str(tmp_path / "fleet.instances"), str(tmp_path / "reads")
    SharedInstanceList(path, "unit", listing(counter, delay=0)).read(max_age=1.0)
    began = time.time()
    # fresh for the others, but read before this wait began: it waits for the next read (here
    # its own, once the snapshot ages out) rather than adding one now
    SharedInstanceList(path, "unit", listing(counter, delay=0)).read(max_age=1.0, not_before=began)
    assert reads(counter) == 2 and 0.8 <= time.time() - began < 2


def test_a_wait_with_no_time_left_never_waits_for_the_others(tmp_path):
    """A dead reader's lease, and a snapshot read before the wait began, hold up only a wait that
    has the time: one with none left (wait_timeout: 0) reads the list itself at once."""
    path, counter = str(tmp_path / "fleet.instances"), str(tmp_path / "reads")
    with open(path, "w") as handle:
        json.dump({"format": FORMAT, "identity": "unit", "refreshing_until": time.time() + 9}, handle)
    os.chmod(path, 0o600)
    started = time.time()
    SharedInstanceList(path, "unit", listing(counter, delay=0)).read(max_age=5, patience=0)
    assert time.time() - started < 0.3 and reads(counter) == 1
    began = time.time()
    SharedInstanceList(path, "unit", listing(counter, delay=0)).read(max_age=5, not_before=began, patience=0)
    assert time.time() - began < 0.3 and reads(counter) == 2
