# -*- coding: utf-8 -*-
# Copyright: cloudcompute.cloud contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)

"""Event source: the project's audit log, each event once, oldest first."""

from __future__ import annotations

import asyncio
import fnmatch
import logging
import os
import math
import sys
import time
from datetime import datetime
from pathlib import Path
from typing import Any

try:
    from ansible_collections.cloudcompute.cloud.plugins.module_utils import _event_source
except ImportError:
    # ansible-rulebook runs a source from its file (runpy), with no collection path on sys.path:
    # add the one this file is installed in (<root>/ansible_collections/cloudcompute/cloud/...).
    # The path as given, links not resolved: a collection linked into a collections path
    # resolves to a checkout outside any ansible_collections tree.
    sys.path.append(str(next(path.parent for path in Path(os.path.abspath(__file__)).parents if path.name == "ansible_collections")))
    from ansible_collections.cloudcompute.cloud.plugins.module_utils import _event_source

DOCUMENTATION = r"""
---
short_description: Events from the audit log of a Cloud Compute project
description:
  - Polls the project's audit log (C(GET /v1/audit/log)) and puts every audit event on the queue
    once and in the order it happened, oldest first. Each event is the CloudEvents 1.0 object the
    API returns (C(specversion), C(id), C(source), C(type), C(subject), C(time), C(data)).
  - C(data.request_origin) tells who made the change - V(api) for a call through the API, with
    C(data.actor_id), V(system) for what the service did by itself, such as evicting a spot
    instance (C(com.service.api.public-api.compute.delete.v1)) or removing an instance for good
    (C(...compute.delete_complete.v1)).
  - With O(state_file), the position in the log is written after every event put on the queue, and
    a restarted source continues right after the last event it delivered - nothing is lost or
    repeated across restarts. Without it, a restart starts again as O(start) says.
  - Rate limiting (HTTP 429) is waited out as C(Retry-After) says, server errors and lost
    connections are retried with backoff, and the access token is renewed before it expires; a
    poll that still fails is logged and tried again later, without losing the position. Wrong
    credentials or a caller without access to the audit log (owner and admins only) stop the
    source with the API's message.
options:
  api_url:
    description: The API endpoint, with the version (C(https://.../v1)). Falls back to E(CLOUDCOMPUTE_API_URL).
    type: str
  client_id:
    description: OAuth2 client id. Falls back to E(CLOUDCOMPUTE_CLIENT_ID).
    type: str
  client_secret:
    description: OAuth2 client secret. Falls back to E(CLOUDCOMPUTE_CLIENT_SECRET). Never logged or put in an event.
    type: str
  validate_certs:
    description: Verify the API's TLS certificate. Falls back to E(CLOUDCOMPUTE_VALIDATE_CERTS).
    type: bool
    default: true
  request_timeout:
    description: Seconds to wait for each HTTP response. Falls back to E(CLOUDCOMPUTE_REQUEST_TIMEOUT).
    type: float
    default: 30
  token_cache:
    description:
      - Directory of the access token cache (0600 files, never the secret), shared with the modules.
        V(false) switches it off. Falls back to E(CLOUDCOMPUTE_TOKEN_CACHE).
    type: str
    default: ~/.cache/cloudcompute.cloud/tokens
  interval:
    description: Seconds between two polls of the audit log.
    type: float
    default: 10
  start:
    description:
      - Where a source without a saved position begins - V(now) delivers only events recorded after
        it started, V(beginning) every event the log still holds first.
      - Ignored when O(state_file) holds a position.
    type: str
    choices: [now, beginning]
    default: now
  types:
    description:
      - Only events whose C(type) matches one of these shell-style patterns, such as
        V(com.service.api.*.compute.*) or V(*.delete.v1). All events when not set.
      - Events left out still move the position on.
    type: list
    elements: str
  state_file:
    description:
      - File that keeps the position in the log across restarts (JSON, written atomically).
        Use one file per source and project.
    type: path
  page_size:
    description: Events per API request, 1 to 100.
    type: int
    default: 100
"""

EXAMPLES = r"""
- name: React to spot evictions and removals the service made by itself
  hosts: localhost
  sources:
    - cloudcompute.cloud.audit_log:
        interval: 5
        types:
          - com.service.api.public-api.compute.*
        state_file: /var/lib/eda/cloudcompute-audit.json
  rules:
    - name: An evicted spot instance
      condition: >-
        event.type == "com.service.api.public-api.compute.delete.v1"
        and event.data.request_origin == "system"
      action:
        debug:
          msg: "{{ event.subject }} was evicted"
"""

MAX_PAGE_SIZE = 100
# One poll reads at most this many pages (100,000 events at the largest page size): a server
# whose cursor never ends costs a bounded number of requests per poll, then the poll fails and
# is tried again with backoff.
MAX_PAGES_PER_POLL = 1000
# How far in the future an event's time may be (clock skew between the service and this host):
# a later time is not stored as the position, or every event before it would be skipped.
MAX_CLOCK_SKEW_SECONDS = 300
LOGGER = logging.getLogger(__name__)


class AuditLogReader:
    """The position in the log, and the events after it, oldest first.

    The API lists the log newest first, older pages by cursor. The position is the time of the
    newest event delivered and the ids of the events delivered with that same time: a poll asks
    for the events at or after that time (so it reads only what is new, across as many pages as
    that takes) and drops those ids. An event without a string ``id`` or a readable ``time`` (or
    one from the future) is skipped and logged once.
    """

    def __init__(self, client, page_size=MAX_PAGE_SIZE, position=None):
        self.client = client
        self.page_size = page_size
        self.position = readable_position(position)
        self.skipped = set()

    def newest_events(self, since=None):
        """Every readable event at or after ``since`` (an RFC 3339 time), newest first."""
        params = {"page_size": self.page_size}
        if since:
            params["start_date"] = since
        events, cursors = [], set()
        for _page in range(MAX_PAGES_PER_POLL):
            page = self.client.get("/audit/log", params=params) or {}
            if not isinstance(page, dict) or not isinstance(page.get("data") or [], list):
                raise _event_source.SourceError("GET /audit/log answered something other than a page of events")
            events.extend(event for event in page.get("data") or [] if self.readable(event))
            cursor = page.get("cursor")
            if not cursor:
                return events
            if not isinstance(cursor, str) or cursor in cursors:
                raise _event_source.SourceError("GET /audit/log repeated a page cursor: the poll stops here")
            cursors.add(cursor)
            params = dict(params, cursor=cursor)
        raise _event_source.SourceError(f"GET /audit/log had more than {MAX_PAGES_PER_POLL} pages: the poll stops here")

    def readable(self, event):
        identity = event.get("id") if isinstance(event, dict) else None
        time = event.get("time") if isinstance(event, dict) else None
        if isinstance(identity, str) and identity and _timestamp(time) is not None:
            return True
        key = identity if isinstance(identity, str) else repr(event)[:200]
        if key not in self.skipped and len(self.skipped) < 10000:
            self.skipped.add(key)
            LOGGER.warning("audit log event %s skipped: it has no id or no readable time (or one in the future)", key)
        return False

    def start_at_newest(self):
        """Position after the newest event in the log (nothing delivered from before now)."""
        newest = self.newest_events_page()
        if not newest:
            self.position = {"time": None, "ids": []}
            return
        time = newest[0]["time"]
        self.position = {"time": time, "ids": [event["id"] for event in self.newest_events(time) if event["time"] == time]}

    def newest_events_page(self):
        page = self.client.get("/audit/log", params={"page_size": 1}) or {}
        data = page.get("data") if isinstance(page, dict) else None
        return [event for event in data or [] if self.readable(event)] if isinstance(data, list) else []

    def new_events(self):
        """The events after the position, oldest first."""
        since = self.position.get("time") if self.position else None
        delivered = set(self.position.get("ids") or []) if self.position else set()
        events = [event for event in reversed(self.newest_events(since)) if event["id"] not in delivered]
        if since:
            # the API compares times itself; drop anything it still returns from before the position
            cutoff = _timestamp(since)
            events = [event for event in events if _timestamp(event["time"]) >= cutoff]
        return [_event_source.hide_secrets(event) for event in events]

    def advance(self, event):
        position = self.position or {"time": None, "ids": []}
        if position["time"] == event["time"]:
            position = {"time": event["time"], "ids": position["ids"] + [event["id"]]}
        else:
            position = {"time": event["time"], "ids": [event["id"]]}
        self.position = position


def _timestamp(text):
    """The POSIX time of an RFC 3339 time no later than now (plus the allowed skew), else None."""
    if not isinstance(text, str) or not text.isascii() or len(text) > 64:
        return None
    try:
        moment = datetime.fromisoformat(text.replace("Z", "+00:00"))
        if moment.tzinfo is None:
            return None
        seconds = moment.timestamp()
    except (ValueError, OverflowError):
        return None
    if not math.isfinite(seconds) or seconds > time.time() + MAX_CLOCK_SKEW_SECONDS:
        return None
    return seconds


def readable_position(position):
    """A saved position this source can continue from, else None (start as O(start) says)."""
    if position is None:
        return None
    if (
        isinstance(position, dict)
        and (position.get("time") is None or _timestamp(position.get("time")) is not None)
        and isinstance(position.get("ids"), list)
        and all(isinstance(identity, str) for identity in position["ids"])
    ):
        return {"time": position.get("time"), "ids": list(position["ids"])}
    LOGGER.warning("audit log position %.200r is not one this source writes (or is in the future): ignored", position)
    return None


def _settings(args):
    interval = _event_source.positive_number(args.get("interval", 10), "interval")
    start = args.get("start", "now")
    if start not in ("now", "beginning"):
        raise _event_source.SourceError("start must be now or beginning, got %r" % (start,))
    types = args.get("types") or []
    if isinstance(types, str):
        types = [types]
    page_size = int(args.get("page_size", MAX_PAGE_SIZE))
    if not 1 <= page_size <= MAX_PAGE_SIZE:
        raise _event_source.SourceError("page_size must be 1 to %d, got %d" % (MAX_PAGE_SIZE, page_size))
    return interval, start, list(types), args.get("state_file"), page_size


def _wanted(event, types):
    return not types or any(fnmatch.fnmatchcase(str(event.get("type") or ""), pattern) for pattern in types)


async def main(queue: asyncio.Queue, args: dict[str, Any]) -> None:
    interval, start, types, state_file, page_size = _settings(args)
    reader = AuditLogReader(_event_source.build_client(args), page_size, _event_source.load_state(state_file))

    def save_position():
        if state_file:
            _event_source.save_state(state_file, reader.position)

    def poll():
        if reader.position is None and start == "now":
            reader.start_at_newest()
            save_position()
        return reader.new_events()

    async def deliver(event):
        if _wanted(event, types):
            await queue.put(event)
        reader.advance(event)
        save_position()

    await _event_source.poll_forever("audit log", interval, poll, deliver)


if __name__ == "__main__":
    # A quick look at a project's log with the CLOUDCOMPUTE_* variables: python audit_log.py

    class PrintQueue:
        async def put(self, event):
            print(event)

    asyncio.run(main(PrintQueue(), {"start": "beginning", "token_cache": "false"}))
