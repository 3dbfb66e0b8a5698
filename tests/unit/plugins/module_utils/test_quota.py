"""The rate-limit state shared by processes: real processes (multiprocessing), a real file and
lock, and the emulator's rate limits over HTTP. Nothing here patches the client or the network."""

import json
import multiprocessing
import os
import signal
import stat
import time

import pytest

from ansible_collections.cloudcompute.cloud.plugins.module_utils._api import ApiClient
from ansible_collections.cloudcompute.cloud.plugins.module_utils._api_pacing import RateLimitPacing
from ansible_collections.cloudcompute.cloud.plugins.module_utils._quota import (
    MAX_WINDOW,
    PROJECT,
    SharedQuota,
    endpoint_key,
)

QUOTA, WINDOW = 10, 3


@pytest.fixture
def make_client_with_cache(emulator, tmp_path):
    def factory(token_cache=None):
        token_cache = token_cache or str(tmp_path / "tokens")
        return ApiClient(
            emulator.api_url, emulator.client_id, emulator.client_secret, token_cache=token_cache
        ), token_cache

    return factory


def shared_quota(path):
    return SharedQuota(str(path), "unit", time.time, time.sleep)


def known_quotas(path, method, request_path):
    """A state file that knows the project and endpoint quotas (10 per 3 s), no window open."""
    entry = {"q": QUOTA, "w": WINDOW, "left": 0, "reset_at": 0, "opened": True}
    with open(path, "w") as handle:
        json.dump(
            {
                "format": "cloudcompute.cloud rate limits 1",
                "identity": "unit",
                "quotas": {PROJECT: dict(entry), endpoint_key(method, request_path): dict(entry)},
            },
            handle,
        )
    os.chmod(path, 0o600)


def take_slots(path, count, taken):
    quota = shared_quota(path)
    for _slot in range(count):
        quota.take("GET", "/v1/ssh-keys")
        taken.put(time.time())


def fixed_windows(times, length):
    """How many of ``times`` each window of a server with fixed windows (each opening at the
    first request after the last one ended) counts."""
    counts, window_end = [], None
    for moment in sorted(times):
        if window_end is None or moment >= window_end:
            counts.append(0)
            window_end = moment + length
        counts[-1] += 1
    return counts


def test_concurrent_processes_never_exceed_a_shared_quota(tmp_path):
    path = tmp_path / "state.ratelimit"
    known_quotas(path, "GET", "/v1/ssh-keys")
    taken = multiprocessing.Queue()
    processes = [multiprocessing.Process(target=take_slots, args=(str(path), 7, taken)) for _process in range(3)]
    for process in processes:
        process.start()
    times = [taken.get(timeout=30) for _slot in range(21)]
    for process in processes:
        process.join(10)
    assert fixed_windows(times, WINDOW) == [10, 10, 1]


def ask_api(api_url, client_id, client_secret, token_cache, count, statuses):
    client = ApiClient(api_url, client_id, client_secret, token_cache=token_cache)
    for _request in range(count):
        client.get("/ssh-keys")
    statuses.put((client.stats["rate_limited"], client.notes))


def test_processes_sharing_a_token_cache_share_the_api_quota(emulator, control, tmp_path):
    control.update_settings(
        rate_limits={"enabled": True, "window_seconds": WINDOW, "endpoint_quota": QUOTA, "project_quota": 1000}
    )
    token_cache = str(tmp_path / "tokens")
    results = multiprocessing.Queue()
    processes = [
        multiprocessing.Process(
            target=ask_api, args=(emulator.api_url, emulator.client_id, emulator.client_secret, token_cache, 8, results)
        )
        for _process in range(3)
    ]
    for process in processes:
        process.start()
    outcomes = [results.get(timeout=60) for _process in processes]
    for process in processes:
        process.join(10)
    assert outcomes == [(0, [])] * 3
    statuses = [entry["status"] for entry in control.requests()["requests"] if entry["path"] == "/v1/ssh-keys"]
    assert sorted(statuses) == [200] * 24  # 24 requests of a quota of 10 per 3 s, not one 429
    state_files = [name for name in os.listdir(token_cache) if name.endswith(".ratelimit")]
    assert len(state_files) == 1
    assert stat.S_IMODE(os.stat(os.path.join(token_cache, state_files[0])).st_mode) == 0o600
    assert stat.S_IMODE(os.stat(token_cache).st_mode) == 0o700


def test_a_window_ends_when_the_answer_to_its_first_request_says_not_a_margin_later(tmp_path):
    # The slot that opens a window guesses its end with a margin for the request's way to the
    # API; the answer to that request (the first of the API's window: r = q - 1) bounds it
    # exactly, so a fleet that uses every window loses no margin per window.
    path = tmp_path / "state.ratelimit"
    known_quotas(path, "GET", "/v1/ssh-keys")
    now, waits = [100.0], []
    quota = SharedQuota(str(path), "unit", lambda: now[0], waits.append)
    policy = {"q": QUOTA, "w": WINDOW}
    quota.take("GET", "/v1/ssh-keys")  # opens the window at 100.0
    now[0] = 100.01  # its answer: the API received it by now
    quota.observe(
        "GET",
        "/v1/ssh-keys",
        {"project": {"r": QUOTA - 1, "t": WINDOW - 1}, "endpoint": {"r": QUOTA - 1, "t": WINDOW - 1}},
        {"project": policy, "endpoint": policy},
    )
    for _slot in range(QUOTA - 1):
        quota.take("GET", "/v1/ssh-keys")
    assert waits == []
    now[0] = 100.01 + WINDOW
    quota.take("GET", "/v1/ssh-keys")  # the next window opens at once
    assert waits == []


def hold_the_lock(path, holding):
    with shared_quota(path)._state():
        holding.set()
        time.sleep(60)


def test_a_lock_holder_killed_with_sigkill_blocks_nobody(tmp_path):
    path = str(tmp_path / "state.ratelimit")
    known_quotas(path, "GET", "/v1/ssh-keys")
    holding = multiprocessing.Event()
    holder = multiprocessing.Process(target=hold_the_lock, args=(path, holding))
    holder.start()
    assert holding.wait(10)
    os.kill(holder.pid, signal.SIGKILL)
    holder.join(10)
    started = time.monotonic()
    assert shared_quota(path).take("GET", "/v1/ssh-keys") == 0
    assert time.monotonic() - started < 1


def test_a_corrupt_state_file_means_pacing_alone_never_a_failure(make_client_with_cache, control):
    client, token_cache = make_client_with_cache()
    client.get("/ssh-keys")
    state_file = client.pacing.shared_quota.path
    with open(state_file) as handle:
        assert json.load(handle)["quotas"][PROJECT]["q"] > 0  # the API's quota, learnt from its headers
    with open(state_file, "w") as handle:
        handle.write("{not json")
    corrupt, _cache = make_client_with_cache(token_cache)
    assert corrupt.get("/ssh-keys") == []
    assert corrupt.pacing.shared_quota is None
    assert corrupt.notes and "paced by this process alone" in corrupt.notes[0]
    # The file was reset: the next process shares again.
    following, _cache = make_client_with_cache(token_cache)
    assert following.get("/ssh-keys") == []
    assert following.pacing.shared_quota is not None and following.notes == []


def test_a_foreign_state_file_is_left_alone(make_client_with_cache):
    client, token_cache = make_client_with_cache()
    client.get("/ssh-keys")
    foreign = json.dumps({"format": "cloudcompute.cloud rate limits 1", "identity": "another", "quotas": {}})
    with open(client.pacing.shared_quota.path, "w") as handle:
        handle.write(foreign)
    other, _cache = make_client_with_cache(token_cache)
    assert other.get("/ssh-keys") == []
    assert other.pacing.shared_quota is None and "another API URL" in other.notes[0]
    with open(client.pacing.shared_quota.path) as handle:
        assert handle.read() == foreign


def test_no_state_file_without_the_token_cache(emulator):
    client = ApiClient(emulator.api_url, emulator.client_id, emulator.client_secret, token_cache="false")
    assert client.get("/ssh-keys") == [] and client.pacing.shared_quota is None and client.notes == []


class Sleeps:
    """A ``sleep`` that records what it was asked, moves its ``clock`` on by as much, and refuses
    anything longer than a window or two."""

    def __init__(self):
        self.asked = []

    def __call__(self, seconds):
        self.asked.append(seconds)
        assert seconds <= 2 * 60 + 2, f"asked to sleep {seconds} seconds"

    def clock(self):
        return time.time() + sum(self.asked)


def planted(path, quotas):
    with open(path, "w") as handle:
        json.dump({"format": "cloudcompute.cloud rate limits 1", "identity": "unit", "quotas": quotas}, handle)
    os.chmod(path, 0o600)


def test_a_reset_a_year_away_is_held_to_the_window_the_policy_names(tmp_path):
    sleeps = Sleeps()
    quota = SharedQuota(str(tmp_path / "state.ratelimit"), "unit", sleeps.clock, sleeps)
    year = {"r": 0, "t": 31536000}
    quota.observe("GET", "/v1/ssh-keys", {"project": year, "endpoint": year}, {"project": {"q": 500, "w": 60}})
    with open(tmp_path / "state.ratelimit") as handle:
        stored = json.load(handle)["quotas"][PROJECT]
    assert stored["reset_at"] <= time.time() + 62 and stored["w"] == 60, stored
    quota.take("GET", "/v1/ssh-keys")
    assert sum(sleeps.asked) <= 62


def test_a_policy_window_of_a_year_is_held_to_the_longest_believed(tmp_path):
    sleeps = Sleeps()
    quota = SharedQuota(str(tmp_path / "state.ratelimit"), "unit", time.time, sleeps)
    year = {"r": 0, "t": 31536000}
    quota.observe("GET", "/v1/ssh-keys", {"project": year}, {"project": {"q": 5, "w": 31536000}})
    with open(tmp_path / "state.ratelimit") as handle:
        assert json.load(handle)["quotas"][PROJECT]["reset_at"] <= time.time() + MAX_WINDOW + 2


@pytest.mark.parametrize(
    "entry",
    [
        {"q": 10, "w": 3, "left": 0, "reset_at": time.time() + 31536000, "opened": True},  # planted before the fix
        {"q": "10", "w": 3, "left": 0, "reset_at": 0},
        {"q": 10, "w": None, "left": [], "reset_at": "soon"},
        {"q": 10, "w": 3, "left": 1e308, "reset_at": float("nan")},
        {"probe_until": "later"},
        {"probe_until": time.time() + 31536000},
        "not an entry",
    ],
)
def test_a_stale_or_corrupt_entry_is_absent_and_probed_afresh(tmp_path, entry):
    path = tmp_path / "state.ratelimit"
    planted(path, {PROJECT: entry, endpoint_key("GET", "/v1/ssh-keys"): entry})
    sleeps = Sleeps()
    assert SharedQuota(str(path), "unit", time.time, sleeps).take("GET", "/v1/ssh-keys") == 0.0
    assert sleeps.asked == []
    with open(path) as handle:
        quotas = json.load(handle)["quotas"]
    assert quotas[PROJECT].keys() == {"probe_until"}, quotas  # this request probes the quota again


def test_a_process_paced_alone_holds_a_reset_to_its_window(tmp_path):
    pacing = RateLimitPacing(None, time.time, Sleeps(), lambda text: None)
    pacing.observe({"RateLimit": '"project";r=0;t=31536000', "RateLimit-Policy": '"project";q=500;w=60'})
    assert 60 <= pacing.delay() <= 62
