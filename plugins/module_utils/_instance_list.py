# Copyright: cloudcompute.cloud contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)

"""The project's instance list as waits read it: one ``GET /v1/instances`` per poll for every
instance waited for, shared by every process on this machine that waits for instances of the
same API URL and client id, and read as often as what is waited for needs.

Sharing: the forks of a host-per-instance play each wait for their own instance. Rather than
each reading it (one request per fork per poll), they share one list snapshot: a JSON file
beside the token cache (the same directory and file rules, ``_locks``), holding the list and
when its request was sent. A wait takes the snapshot when it is no older than its own poll
interval and was read after the wait began (an instance deployed just before would be missing
from an older one); when it is fresh but older than the wait, the wait joins the next read the
others make; otherwise it reads the list itself and shares it. While one process reads,
the others wait for its answer rather than sending the same request (for at most
``REFRESH_LEASE`` seconds: it may have died). The file is an optimisation, never the truth: a
missing, stale, corrupt, future-dated or foreign file means reading the API, and an unusable
directory means reading alone. Each instance's ``jupyter_token`` (a credential) is left out of
the file.

Pacing: how long each status lasts in production (ordered about 10 s, provisioning about
150 s) makes an instance being set up worth reading rarely at first and often when it is due.
The interval is a tenth of the youngest waited-for instance's age (so its final status is
noticed within a tenth of the time it took), shortened to end at the moment an instance is due,
never shorter than ``MIN_POLL_INTERVAL`` (a quarter of the list endpoint's quota of 120 a
minute, whatever the number of waiting processes, since they share their reads) nor than the
client's pacing asks when the quotas run low, and never longer than ``MAX_POLL_INTERVAL``.

This file does not import anything from Ansible.
"""

import calendar
import datetime
import json
import math
import os
import time

from ansible_collections.cloudcompute.cloud.plugins.module_utils._api_errors import LocalRefusal
from ansible_collections.cloudcompute.cloud.plugins.module_utils._locks import FileLock

FORMAT = "cloudcompute.cloud instance list 1"
LIST_PATH = "/instances"
# How long the others wait for the process reading the list before one of them reads it.
REFRESH_LEASE = 10.0
# How often a waiting process looks whether the list it waits for has arrived.
LOOK_AGAIN = 0.05
# A snapshot read this much "in the future" of this machine's clock is not trusted.
CLOCK_SLACK = 1.0

# Production durations of the setting-up statuses (seconds from the deploy until the status ends).
DUE_AFTER = {"new": 10.0, "ordered": 10.0, "validating": 10.0, "provisioning": 160.0}
AGE_SHARE = 0.1  # the interval while an instance is set up, as a share of its age
MIN_POLL_INTERVAL = 2.0
MAX_POLL_INTERVAL = 15.0


def snapshot_path(token_cache):
    """The snapshot file of a token cache's API URL and client id, beside its token file."""
    return os.path.join(token_cache.directory, token_cache.key + ".instances")


def shared_list(client):
    """The ``SharedInstanceList`` of ``client``'s API URL and client id; None without a token cache."""
    cache = client.token_cache
    if not cache:
        return None
    return SharedInstanceList(snapshot_path(cache), cache.key, lambda: client.get_list(LIST_PATH))


class SharedInstanceList:
    """The instance list shared through the file ``path`` by the processes of one ``identity``
    (API URL + client id); ``fetch()`` reads it from the API."""

    def __init__(self, path, identity, fetch, clock=time.time, sleep=time.sleep):
        self.path = path
        self.identity = identity
        self.fetch = fetch
        self.clock = clock
        self.sleep = sleep
        self.alone = False  # the file cannot be shared: read on our own from now on
        self.requests = 0  # lists this process read from the API

    def read(self, max_age, not_before=None, patience=REFRESH_LEASE):
        """The instance list read no more than ``max_age`` seconds ago and not before the clock
        time ``not_before``: the shared one when it is, else one read now (and shared). Another
        process's read is waited for at most ``patience`` seconds (what the task has left, at
        most ``REFRESH_LEASE``): it may have died, or ended its wait."""
        if self.alone:
            return self._fetch()
        waited = 0.0
        patience = min(patience, REFRESH_LEASE)
        while True:
            try:
                action, instances = self._look(max_age, not_before, may_wait=waited < patience)
            except (LocalRefusal, OSError):
                self.alone = True
                return self._fetch()
            if action == "use":
                return instances
            if action == "read":
                return self._read_and_share()
            self.sleep(LOOK_AGAIN)
            waited += LOOK_AGAIN

    def _fetch(self):
        self.requests += 1
        return self.fetch()

    def _look(self, max_age, not_before, may_wait):
        """Under the file's lock: ("use", instances) when the snapshot will do, ("wait", None)
        when another process is reading it, else ("read", None) with the lease taken."""
        with FileLock(self.path) as lock:
            state = self._load(lock.descriptor)
            now = self.clock()
            read_at = state.get("read_at")
            oldest = now - max_age if not_before is None else max(now - max_age, not_before)
            if state.get("instances") is not None and oldest <= read_at <= now + CLOCK_SLACK:
                return "use", state["instances"]
            if may_wait and state.get("instances") is not None and now - max_age <= read_at < (not_before or 0):
                # read before this wait began, and the others still poll on it: the read that
                # replaces it when it ages out serves this wait too (forks that start waiting
                # one after another join the others' polls instead of each reading once more)
                return "wait", None
            refreshing_until = state.get("refreshing_until", 0.0)
            if may_wait and now < refreshing_until <= now + REFRESH_LEASE:
                return "wait", None
            state["refreshing_until"] = now + REFRESH_LEASE
            _write(lock.descriptor, state)
            return "read", None

    def _read_and_share(self):
        sent_at = self.clock()
        try:
            instances = self._fetch()
        except Exception:
            self._release_lease()
            raise
        shared = [_without_token(instance) for instance in instances] if isinstance(instances, list) else None
        try:
            with FileLock(self.path) as lock:
                state = self._load(lock.descriptor)
                shared_at = _number(state.get("read_at"))
                # a newer read another process shared meanwhile stays; one dated in the future goes
                if shared is not None and (sent_at >= shared_at or shared_at > self.clock() + CLOCK_SLACK):
                    state.update(read_at=sent_at, instances=shared)
                state.pop("refreshing_until", None)
                _write(lock.descriptor, state)
        except (LocalRefusal, OSError):
            self.alone = True
        return instances

    def _release_lease(self):
        try:
            with FileLock(self.path) as lock:
                state = self._load(lock.descriptor)
                state.pop("refreshing_until", None)
                _write(lock.descriptor, state)
        except (LocalRefusal, OSError):
            self.alone = True

    def _load(self, descriptor):
        """The snapshot in the file; an empty one when it is missing, corrupt or another
        identity's (each field checked: the file may have been written by anyone able to)."""
        raw = b""
        while chunk := os.read(descriptor, 1 << 20):
            raw += chunk
        fresh = {"format": FORMAT, "identity": self.identity}
        try:
            state = json.loads(raw) if raw else None
        except ValueError:
            state = None
        if not isinstance(state, dict) or state.get("format") != FORMAT or state.get("identity") != self.identity:
            return fresh
        loaded = dict(fresh)
        read_at, instances = _number(state.get("read_at")), state.get("instances")
        if read_at > 0 and isinstance(instances, list) and all(_is_record(item) for item in instances):
            loaded.update(read_at=read_at, instances=instances)
        refreshing_until = _number(state.get("refreshing_until"))
        if refreshing_until > 0:
            loaded["refreshing_until"] = refreshing_until
        return loaded


def _number(value):
    """A finite, non-negative number, else 0 (a field of the file that cannot be trusted)."""
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value) or value < 0:
        return 0.0
    return float(value)


def _is_record(item):
    return isinstance(item, dict) and isinstance(item.get("id"), str)


def _without_token(instance):
    if isinstance(instance, dict) and "jupyter_token" in instance:
        return {key: value for key, value in instance.items() if key != "jupyter_token"}
    return instance


def _write(descriptor, state):
    os.lseek(descriptor, 0, os.SEEK_SET)
    os.ftruncate(descriptor, 0)
    os.write(descriptor, json.dumps(state, separators=(",", ":")).encode())


# ------------------------------------------------------------------------------ pacing


def created_epoch(instance):
    """The clock time of the instance's ``created_at`` (ISO 8601, UTC), or None."""
    text = instance.get("created_at") if isinstance(instance, dict) else None
    if not isinstance(text, str):
        return None
    try:
        created = datetime.datetime.fromisoformat(text.replace("Z", "+00:00"))
    except ValueError:
        return None
    if created.tzinfo is None:
        created = created.replace(tzinfo=datetime.timezone.utc)
    return calendar.timegm(created.utctimetuple()) + created.microsecond / 1e6


def poll_interval(waited_for, now, pacing_delay=0.0):
    """Seconds until the next read of the list, while ``waited_for`` (the instances not there
    yet, as last read; None for one not in the list) are waited for. ``pacing_delay``: what the
    client's rate-limit pacing asks."""
    shortest = MAX_POLL_INTERVAL
    for instance in waited_for:
        created = created_epoch(instance)
        status = (instance or {}).get("status")
        if created is None or status not in DUE_AFTER or not now - 86400 < created <= now + CLOCK_SLACK:
            # not being set up (a power action, a removal) or of unknown age: seconds, not minutes
            shortest = MIN_POLL_INTERVAL
            continue
        age = max(0.0, now - created)
        interval = AGE_SHARE * age
        due_in = created + DUE_AFTER[status] - now
        if 0 < due_in < interval:
            interval = due_in  # read again when it is due
        shortest = min(shortest, interval)
    return max(MIN_POLL_INTERVAL, min(MAX_POLL_INTERVAL, shortest), pacing_delay)


class InstanceWaiter:
    """The reads of one wait for instances: the project's list, shared when there is a token
    cache, never older than the wait's current poll interval nor than the wait itself."""

    def __init__(self, client, remaining=lambda: REFRESH_LEASE, clock=time.time):
        self.client = client
        self.remaining = remaining  # seconds the wait has left: never spent waiting on others' reads
        self.clock = clock
        self.shared = shared_list(client)
        self.started = clock()
        self.interval = MIN_POLL_INTERVAL

    def instances(self):
        """The project's instances by id."""
        if self.shared is None:
            listed = self.client.get_list(LIST_PATH)
        else:
            listed = self.shared.read(self.interval, not_before=self.started, patience=self.remaining())
        return {instance["id"]: instance for instance in listed if _is_record(instance)}

    def next_interval(self, waited_for):
        """The interval until the next read, while ``waited_for`` (records as last read, None
        for one missing) are not there yet; the next read takes a list no older than it."""
        self.interval = poll_interval(waited_for, self.clock(), self.client.pacing_delay())
        return self.interval
