# Copyright: cloudcompute.cloud contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)

"""Rate-limit pacing: the ``RateLimit`` headers of every response tell how much of the project's
and the endpoint's quota is left, and the client slows down before it runs out. With a token
cache the quota is shared by every process of the same API URL and client id (``_quota``);
without one, or when that file cannot be shared, a client paces from its own responses.

Like the rest of the client this file imports nothing from Ansible.
"""

import random

from ansible_collections.cloudcompute.cloud.plugins.module_utils._quota import (
    MAX_WINDOW,
    QuotaFileUnusable,
    SharedQuota,
    bounded_window,
)

# A request keeps this share of each rate-limit quota in reserve for other forks and tasks:
# below it the client spreads its remaining requests over the rest of the window.
PACING_RESERVE = 0.2


def parse_rate_limit_header(value):
    """Parse ``RateLimit`` / ``RateLimit-Policy`` header values of the form
    ``"project";r=499;t=59, "endpoint";r=59;t=59`` into ``{name: {param: int}}``.
    Unknown or malformed entries are skipped: pacing is an optimisation, never a failure."""
    entries = {}
    for item in (value or "").split(","):
        name, *parts = [part.strip() for part in item.split(";")]
        name = name.strip('"')
        if not name:
            continue
        params = {}
        for part in parts:
            key, _sep, raw = part.partition("=")
            try:
                params[key.strip()] = int(float(raw.strip().strip('"')))
            except (ValueError, OverflowError):  # no "=", not a number, infinite
                continue
        entries[name] = params
    return entries


class RateLimitPacing:
    """The pacing of one client. With a ``token_cache`` the quotas are shared by every process of
    its API URL and client id (``SharedQuota``); without one the client paces alone.
    ``note(text)`` tells the caller something worth showing at -vvv. A quota key is
    ``(method, path)``; requests without one (the token exchange, public catalog reads) count
    against no quota."""

    def __init__(self, token_cache, clock, sleep, note):
        self.shared_quota = token_cache and SharedQuota(token_cache.quota_path, token_cache.key, clock, sleep)
        self.clock = clock
        self.sleep = sleep
        self.note = note
        # Latest state per quota name: {"project": {"r": .., "t": .., "q": .., "w": .., "at": ..}}
        self.rate_limits = {}

    def pace(self, quota_key=None):
        """Wait, if need be, before a request; return the seconds waited."""
        if self.shared_quota and quota_key:
            try:
                return self.shared_quota.take(*quota_key)
            except QuotaFileUnusable as error:
                self._pace_alone(error)
        delay = self.delay()
        if delay <= 0:
            return 0.0
        delay += random.uniform(0, min(1.0, delay / 4))  # forks must not wake in lockstep
        self.sleep(delay)
        return delay

    def observe(self, headers, quota_key=None):
        """Take in the ``RateLimit`` / ``RateLimit-Policy`` headers of a response."""
        remaining = parse_rate_limit_header(headers.get("RateLimit"))
        policy = parse_rate_limit_header(headers.get("RateLimit-Policy"))
        if self.shared_quota and quota_key:
            try:
                self.shared_quota.observe(quota_key[0], quota_key[1], remaining, policy)
            except QuotaFileUnusable as error:
                self._pace_alone(error)
        if remaining:
            now = self.clock()
            self.rate_limits = {
                name: {**policy.get(name, {}), **values, "at": now} for name, values in remaining.items()
            }

    def forget(self):
        """After a wait for a window to reset: the counters seen before it are stale."""
        self.rate_limits = {}

    def delay(self):
        """Seconds to wait before the next request so the quotas last until their windows reset.

        Above the reserve there is no delay. Below it, the remaining requests are spread evenly
        over the time left in the window; with none left, wait for the reset.
        """
        delay = 0.0
        now = self.clock()
        for entry in self.rate_limits.values():
            if "r" not in entry or "t" not in entry:
                continue
            # ``t`` is whole seconds, possibly rounded down: count the window as one second longer.
            # A reset is never further away than the window the policy names (or the longest
            # believed): one absurd header does not stall the client for a year.
            window = bounded_window(entry) or MAX_WINDOW
            reset_in = max(0.0, min(max(0, entry["t"]), window) + 1 - (now - entry["at"]))
            remaining = entry["r"]
            reserve = max(1, int(entry.get("q", 0) * PACING_RESERVE))
            if remaining <= 0:
                delay = max(delay, reset_in)
            elif remaining < reserve:
                delay = max(delay, reset_in / (remaining + 1))
        return delay

    def _pace_alone(self, reason):
        # Sharing is an optimisation, never a failure: pace from this client's own responses.
        self.shared_quota = None
        self.note(f"rate limits are paced by this process alone, not shared with the others: {reason}")
