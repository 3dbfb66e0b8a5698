# Copyright: Contributors to the cloudcompute.cloud collection
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)

"""One view of the API's rate limits for every process on this machine that uses the same API
URL and client id: the forks of a play, the inventory plugin, parallel ``ansible-playbook`` runs.

The state is a small JSON file beside the token cache, read and written under an exclusive
``flock`` (the kernel drops it when its holder dies, even by SIGKILL, so a killed process never
blocks the others). It holds one entry per quota: the project's (every request) and one per
endpoint (HTTP method + request path), each with its size ``q``, window ``w``, the slots left in
the current window and when the window resets.

A slot is taken before a request is sent: while a quota has slots left, take one; with none
left, wait until its window resets. Every response's ``RateLimit`` / ``RateLimit-Policy``
headers correct the entries (the API's count includes other machines and the console). A quota
seen for the first time is probed by one request; the others wait for its answer, so a fleet
does not learn a small endpoint quota from a burst of 429s.

Like the rest of the client this file imports nothing from Ansible.
"""

import contextlib
import json
import math
import os

from ansible_collections.cloudcompute.cloud.plugins.module_utils._api_errors import LocalRefusal
from ansible_collections.cloudcompute.cloud.plugins.module_utils._locks import FileLock

FORMAT = "cloudcompute.cloud rate limits 1"
PROJECT = "project"
# How long the others wait for the answer to the request that probes an unknown quota before
# one of them probes again (its sender may have died or timed out).
PROBE_SECONDS = 5.0
# Entries whose window ended this long ago are dropped, so polling many paths does not grow
# the file without end.
FORGET_AFTER = 120.0
# The API counts a window from the moment it receives its first request; ours starts when that
# request is sent. The difference is the network latency: allow for it until the answer to that
# request tells when the window ends.
LATENCY_MARGIN = 0.15
# The longest rate-limit window believed, whatever a policy header names: the API's are a
# minute. What is stored never outlasts its window, so one absurd header (a reset a year away)
# cannot make every process on the machine refuse to send for that long.
MAX_WINDOW = 900


class QuotaFileUnusable(Exception):
    """The state file cannot be shared: the caller falls back to pacing on its own."""


class SharedQuota:
    """The shared rate-limit state of one API URL + client id, in ``path``."""

    def __init__(self, path, identity, clock, sleep):
        self.path = path
        self.identity = identity
        self.clock = clock
        self.sleep = sleep

    def take(self, method, path):
        """Block until the project and this endpoint each have a slot, and take them. Returns
        the seconds waited. Raises ``QuotaFileUnusable`` when the file cannot be shared."""
        keys = (PROJECT, endpoint_key(method, path))
        waited = 0.0
        while True:
            with self._state() as state:
                wait = _take_slots(state, keys, self.clock())
            if wait <= 0:
                return waited
            self.sleep(wait)
            waited += wait

    def observe(self, method, path, remaining, policy):
        """Correct the entries from a response's parsed ``RateLimit`` and ``RateLimit-Policy``
        (empty when the response had none: an error of a proxy, an injected fault)."""
        names = {PROJECT: PROJECT, "endpoint": endpoint_key(method, path)}
        with self._state() as state:
            now = self.clock()
            for name, key in names.items():
                values = remaining.get(name, {})
                if "r" in values and "t" in values:
                    _correct(state["quotas"], key, values, policy.get(name, {}), now)
                elif "q" not in state["quotas"].get(key, {"q": None}):
                    del state["quotas"][key]  # an answer without the headers: let the next request probe

    @contextlib.contextmanager
    def _state(self):
        """The state, read under the file's lock and written back when the block ends without an
        error; the kernel drops the lock when the file is closed, or its holder dies."""
        try:
            lock = FileLock(self.path).acquire()
        except LocalRefusal as refusal:
            raise QuotaFileUnusable(refusal.api_message)
        with lock:
            state = self._read(lock.descriptor)
            state["quotas"] = _usable(state["quotas"], self.clock(), forget=False)
            yield state
            state["quotas"] = _usable(state["quotas"], self.clock(), forget=True)
            _write(lock.descriptor, state)

    def _read(self, descriptor):
        raw = b""
        while chunk := os.read(descriptor, 65536):
            raw += chunk
        fresh = {"format": FORMAT, "identity": self.identity, "quotas": {}}
        if not raw:
            return fresh
        try:
            state = json.loads(raw)
        except ValueError:
            state = None
        if not isinstance(state, dict) or state.get("format") != FORMAT or not isinstance(state.get("quotas"), dict):
            _write(descriptor, fresh)  # start afresh for the next process, and pace on our own this time
            raise QuotaFileUnusable(f"{self.path} was not a rate-limit state file; it has been reset")
        if state.get("identity") != self.identity:
            raise QuotaFileUnusable(f"{self.path} belongs to another API URL or client id")
        return state


def _usable(quotas, now, forget):
    """The entries of ``quotas`` that are well formed and current. An entry of the wrong shape
    (another version, a hand edit, a hostile writer) is absent: its quota is probed afresh.
    So is one whose window ended long ago (polling many paths does not grow the file without
    end; ``forget``, once the request has used what it knew) or ends further ahead than any
    window lasts (stale or planted state)."""
    oldest = now - FORGET_AFTER if forget else -math.inf
    usable = {}
    for key, entry in quotas.items():
        if not isinstance(key, str) or not isinstance(entry, dict):
            continue
        if "q" in entry:
            if not (
                _is_number(entry.get("q"), 1)
                and _is_number(entry.get("w"), 0, MAX_WINDOW)
                and _is_number(entry.get("left"))
                and _is_number(entry.get("reset_at"), oldest, now + entry["w"] + 1 + LATENCY_MARGIN)
            ):
                continue
        elif not _is_number(entry.get("probe_until"), oldest, now + PROBE_SECONDS):
            continue
        usable[key] = entry
    return usable


def _is_number(value, low=-math.inf, high=math.inf):
    """A finite int or float (never a bool) within ``[low, high]``."""
    return (
        isinstance(value, (int, float))
        and not isinstance(value, bool)
        and math.isfinite(value)
        and low <= value <= high
    )


def bounded_window(policy):
    """The window a policy entry names, in seconds, at most ``MAX_WINDOW``; None when it names
    none that can be paced from (no quota or window, or not a positive one)."""
    if not _is_number(policy.get("q"), 1) or not _is_number(policy.get("w"), 1):
        return None
    return min(policy["w"], MAX_WINDOW)


def _write(descriptor, state):
    os.lseek(descriptor, 0, os.SEEK_SET)
    os.ftruncate(descriptor, 0)
    os.write(descriptor, json.dumps(state, separators=(",", ":")).encode())


def endpoint_key(method, path):
    return f"{method.upper()} {path}"


def _take_slots(state, keys, now):
    """Take a slot of every quota in ``keys`` and return 0, or take none and return how long to
    wait before trying again."""
    quotas = state["quotas"]
    wait = 0.0
    for key in keys:
        entry = quotas.get(key)
        if entry is None:
            continue  # unknown: this request probes it
        if "q" not in entry:
            # Being probed by another request: wait for its answer, or probe again if it is late.
            if now < entry["probe_until"]:
                wait = max(wait, min(0.05, entry["probe_until"] - now))
        elif now >= entry["reset_at"]:
            pass  # the window has ended: this request opens the next one
        elif entry["left"] <= 0:
            wait = max(wait, entry["reset_at"] - now)
    if wait > 0:
        return wait
    for key in keys:
        entry = quotas.get(key)
        if entry is None or "q" not in entry:
            quotas[key] = {"probe_until": now + PROBE_SECONDS}
        elif now >= entry["reset_at"]:
            entry.update(left=entry["q"] - 1, reset_at=now + entry["w"] + LATENCY_MARGIN, opened=True)
        else:
            entry["left"] -= 1
    return 0.0


def _correct(quotas, key, values, policy, now):
    """Merge the API's count for one quota into its entry. What is stored is bounded by the
    window the policy names (or the entry knows): no reset further away than one window."""
    entry = quotas.get(key)
    window = bounded_window(policy) or (entry.get("w") if entry is not None and "q" in entry else None)
    if window is None:
        quotas.pop(key, None)  # cannot be paced from this: let the next request probe again
        return
    # ``t`` is whole seconds, rounded down: the window ends within the second after now + t.
    reset_low = now + min(max(0, values["t"]), window)
    values = dict(values, r=max(0, values["r"]))
    if entry is None or "q" not in entry or entry["reset_at"] < reset_low:
        if bounded_window(policy) is None:
            quotas.pop(key, None)
            return
        # A window we did not see open (a probe, another machine, the console): it ends at the
        # latest a second after now + t.
        quotas[key] = {
            "q": policy["q"],
            "w": window,
            "left": min(values["r"], policy["q"]),
            "reset_at": reset_low + 1,
            "opened": False,
        }
        return
    if reset_low > entry["reset_at"] - entry["w"]:
        # The same window: the API's count includes requests we did not send, ours those still
        # on their way. Keep the smaller.
        entry["left"] = min(entry["left"], values["r"])
        if entry.get("opened") and values["r"] == entry["q"] - 1:
            # The answer to the request that opened the window: the API received it by now, so
            # the window ends by now + w. That replaces the guess made when it was sent: later
            # when the request was slow to leave or to arrive (a loaded machine, a long way to
            # the API), sooner when it was quick (no window is lost to the guess's margin).
            entry["reset_at"] = now + entry["w"]
        elif not entry.get("opened"):
            entry["reset_at"] = min(entry["reset_at"], reset_low + 1)
