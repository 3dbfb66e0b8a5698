# -*- coding: utf-8 -*-
# Copyright: cloudcompute.cloud contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)

"""Event source: one event per change of an instance (or cluster) of a Cloud Compute project."""

from __future__ import annotations

import asyncio
import logging
import os
import sys
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
short_description: Events for every change of the instances of a Cloud Compute project
description:
  - Polls the project's instances (C(GET /v1/instances)), and its clusters with
    O(include_clusters), and puts one event on the queue per change it sees between two polls -
    C({change, kind, instance, previous_status, status, evicted, volume_ids}).
  - C(change) is V(added) (a new instance; C(previous_status) is null), V(status_changed), or
    V(removed) (gone from the list; C(status) is null). C(kind) is V(instance) or V(cluster).
    C(instance) is the record as the API returned it (the last one seen, for V(removed)), with its
    C(jupyter_token), a credential, masked (C(********)).
  - C(evicted) is true for a spot instance the service took back - its change to V(discontinued)
    and its V(removed) event. When a spot instance disappears between two polls without the source
    having seen it V(discontinued) (or V(deleting)), the audit log tells whether the service
    removed it (readable by the project owner and admins; for other credentials such a removal
    counts as not evicted).
  - C(volume_ids) are the volumes attached to the instance when the source last saw any
    attached - after an eviction the API already lists none on the instance, so this is where a
    rulebook finds the kept volumes to re-attach.
  - The first poll takes stock without events (unless O(emit_existing)); what changes while the
    source is not running is reported as the difference at its first poll after that.
  - Rate limiting, server errors and token expiry are handled as by the modules; a poll that
    still fails is logged and tried again later.
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
    description: Seconds between two polls.
    type: float
    default: 10
  include_clusters:
    description: Report the project's clusters too (C(kind) V(cluster)).
    type: bool
    default: false
  emit_existing:
    description: Put an V(added) event on the queue for every instance there at the first poll.
    type: bool
    default: false
"""

EXAMPLES = r"""
- name: Spot fleet watch
  hosts: localhost
  sources:
    - cloudcompute.cloud.instances:
        interval: 5
  rules:
    - name: An evicted spot instance is gone
      condition: event.change == "removed" and event.evicted
      action:
        run_playbook:
          name: cloudcompute.cloud.spot_recovery
"""

LOGGER = logging.getLogger(__name__)
EVICTED_STATUS = "discontinued"
# what a removal by the project itself goes through
DELETING_STATUSES = ("deleting",)


class InstanceWatch:
    """The instances (and clusters) seen at the last poll, and the changes since."""

    def __init__(self, client, include_clusters=False):
        self.client = client
        self.include_clusters = include_clusters
        self.seen = None  # {(kind, id): record}
        self.volume_ids = {}  # {(kind, id): the volumes attached when last seen with any}

    def snapshot(self):
        # the records are kept masked: an instance's jupyter_token never reaches an event
        records = {("instance", record["id"]): record for record in self.listed("/instances")}
        if self.include_clusters:
            records.update((("cluster", record["id"]), record) for record in self.listed("/clusters"))
        return records

    def listed(self, path):
        return _event_source.hide_secrets(self.client.get(path) or [])

    def changes(self, emit_existing=False):
        current = self.snapshot()
        previous = self.seen
        self.seen = current
        for key, record in current.items():
            if record.get("volume_ids"):
                self.volume_ids[key] = list(record["volume_ids"])
        if previous is None and not emit_existing:
            return []
        previous = previous or {}
        events = []
        for key, record in current.items():
            before = previous.get(key)
            if before is None:
                events.append(self._event("added", key, record, None, record.get("status")))
            elif before.get("status") != record.get("status"):
                events.append(self._event("status_changed", key, record, before.get("status"), record.get("status")))
        for key, before in previous.items():
            if key not in current:
                event = self._event("removed", key, before, before.get("status"), None)
                if before.get("is_spot") and not event["evicted"] and before.get("status") not in DELETING_STATUSES:
                    # gone between two polls without being seen discontinued or deleting
                    event["evicted"] = self.evicted_per_audit_log(before)
                events.append(event)
                self.volume_ids.pop(key, None)
        return events

    def evicted_per_audit_log(self, instance):
        """Whether the audit log holds the service's own delete of this instance (an eviction)."""
        params = {"object_type": "compute", "action": "delete", "page_size": 100}
        if instance.get("created_at"):
            params["start_date"] = instance["created_at"]
        try:
            events = self.client.get("/audit/log", params=params) or {}
        except _event_source.ApiError as error:
            if error.status != 403:
                raise
            LOGGER.warning("cannot tell whether spot instance %s was evicted: the audit log is for the project "
                           "owner and admins only", instance.get("id"))
            return False
        return any(event.get("subject") == instance.get("id") and
                   (event.get("data") or {}).get("request_origin") == "system"
                   for event in events.get("data") or [])

    def _event(self, change, key, record, previous_status, status):
        kind = key[0]
        evicted = bool(record.get("is_spot")) and EVICTED_STATUS in (status, previous_status)
        return {
            "change": change,
            "kind": kind,
            "instance": record,
            "previous_status": previous_status,
            "status": status,
            "evicted": evicted,
            "volume_ids": self.volume_ids.get(key, []),
        }


async def main(queue: asyncio.Queue, args: dict[str, Any]) -> None:
    interval = _event_source.positive_number(args.get("interval", 10), "interval")
    emit_existing = _event_source.boolean(args.get("emit_existing", False), "emit_existing")
    include_clusters = _event_source.boolean(args.get("include_clusters", False), "include_clusters")
    watch = InstanceWatch(_event_source.build_client(args), include_clusters)
    await _event_source.poll_forever("instances", interval, lambda: watch.changes(emit_existing), queue.put)


if __name__ == "__main__":
    # A quick look with the CLOUDCOMPUTE_* variables: python instances.py

    class PrintQueue:
        async def put(self, event):
            print(event)

    asyncio.run(main(PrintQueue(), {"emit_existing": True, "token_cache": "false"}))
