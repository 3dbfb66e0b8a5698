"""The request log: one entry per ``/v1`` request, the source of every "API calls per task"
figure the project publishes, so every request is recorded exactly once, whatever its fate
(served, rejected by auth or a rate limit, answered by an injected fault, connection dropped).
"""

from __future__ import annotations

import fnmatch
from collections import deque
from typing import Any


class RequestLog:
    def __init__(self, limit: int) -> None:
        self._entries: deque[dict[str, Any]] = deque(maxlen=limit)
        self.total = 0  # entries ever recorded since the last clear

    def resize(self, limit: int) -> None:
        if limit != self._entries.maxlen:
            self._entries = deque(self._entries, maxlen=limit)

    def start(self, method: str, path: str, query: str, timestamp: str, client_address: str | None = None) -> dict[str, Any]:
        self.total += 1
        entry: dict[str, Any] = {
            "seq": self.total,
            "timestamp": timestamp,
            "method": method,
            "path": path,
            "query": query,
            # host:port of the TCP peer, as a real API's access log has it: the requests a client
            # sends over one kept-alive connection share it (None when the server does not know)
            "client_address": client_address,
            "status": None,
            "client_id": None,
            "auth": "none",
            "grant_type": None,
            "duration_ms": None,
            "fault_id": None,
            "connection_dropped": False,
            "rate_limited": False,
            # what the handler answered when an after-commit fault replaced its response
            "handler_status": None,
        }
        self._entries.append(entry)
        return entry

    def clear(self) -> None:
        self._entries.clear()
        self.total = 0

    def query(
        self,
        since: int = 0,
        method: str | None = None,
        path: str | None = None,
        client_id: str | None = None,
    ) -> dict[str, Any]:
        selected = [
            entry
            for entry in self._entries
            if entry["seq"] > since
            and (method is None or entry["method"] == method.upper())
            and (path is None or fnmatch.fnmatchcase(entry["path"], path))
            and (client_id is None or entry["client_id"] == client_id)
        ]
        return {
            "total": self.total,
            # entries that fell out of the bounded log (request_log_limit)
            "dropped": self.total - len(self._entries),
            "count": len(selected),
            "requests": selected,
        }
