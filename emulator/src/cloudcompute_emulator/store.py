"""Record storage: dictionaries in memory, optionally mirrored to a SQLite file.

Every stored thing is a JSON-able ``dict`` with an ``"id"``, kept in a table named by its kind
(``"instances"``, ``"volumes"``, ...). Handlers read and mutate records in place and then call
:meth:`Store.save` (or :meth:`Store.insert` / :meth:`Store.delete`), which marks them dirty.
:meth:`Store.flush` writes every dirty record in one transaction; the HTTP layer calls it just
before a response starts, so an acknowledged change is on disk before the client hears of it and
a ``kill -9`` loses nothing that was answered.

Any new kind needs no registration here.
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Iterable, Iterator
from typing import Any

Record = dict[str, Any]

# Key/value entries that are not API resources (clock offset, counters, settings) live in
# this kind, each record being {"id": <name>, "value": <json>}.
META_KIND = "_meta"


def graveyard(kind: str) -> str:
    return f"{kind}@removed"


class Store:
    def __init__(self, path: str | None = None) -> None:
        self.path = path
        self._tables: dict[str, dict[str, Record]] = {}
        # (kind, id) -> record to upsert, or None to delete.
        self._dirty: dict[tuple[str, str], Record | None] = {}
        self._db: sqlite3.Connection | None = None
        if path:
            self._open(path)

    # -- persistence -------------------------------------------------------------------------

    def _open(self, path: str) -> None:
        self._db = sqlite3.connect(path, isolation_level=None, check_same_thread=False)
        # WAL with synchronous=NORMAL survives the process being killed at any point: a
        # committed transaction is in the log file. Only an OS crash could lose the last ones.
        self._db.execute("PRAGMA journal_mode=WAL")
        self._db.execute("PRAGMA synchronous=NORMAL")
        self._db.execute(
            "CREATE TABLE IF NOT EXISTS records ("
            " kind TEXT NOT NULL, id TEXT NOT NULL, body TEXT NOT NULL,"
            " PRIMARY KEY (kind, id))"
        )
        # rowid order is insertion order (upserts keep the rowid), so lists keep their order
        # across a restart.
        for kind, record_id, body in self._db.execute(
            "SELECT kind, id, body FROM records ORDER BY rowid"
        ):
            self._tables.setdefault(kind, {})[record_id] = json.loads(body)

    def flush(self) -> None:
        if not self._dirty:
            return
        dirty, self._dirty = self._dirty, {}
        if self._db is None:
            return
        upserts = []
        deletions = []
        for (kind, record_id), record in dirty.items():
            if record is None:
                deletions.append((kind, record_id))
            else:
                upserts.append((kind, record_id, json.dumps(record, separators=(",", ":"))))
        db = self._db
        db.execute("BEGIN")
        try:
            if deletions:
                db.executemany("DELETE FROM records WHERE kind = ? AND id = ?", deletions)
            if upserts:
                db.executemany(
                    "INSERT INTO records (kind, id, body) VALUES (?, ?, ?)"
                    " ON CONFLICT (kind, id) DO UPDATE SET body = excluded.body",
                    upserts,
                )
            db.execute("COMMIT")
        except BaseException:
            db.execute("ROLLBACK")
            raise

    def close(self) -> None:
        self.flush()
        if self._db is not None:
            self._db.close()
            self._db = None

    # -- access ------------------------------------------------------------------------------

    def table(self, kind: str) -> dict[str, Record]:
        """The live id -> record mapping of a kind, in insertion order. Treat it as read-only."""
        return self._tables.setdefault(kind, {})

    def records(self, kind: str, project_id: str | None = None) -> Iterator[Record]:
        for record in self.table(kind).values():
            if project_id is None or record.get("project_id") == project_id:
                yield record

    def get(self, kind: str, record_id: str) -> Record | None:
        table = self._tables.get(kind)
        return table.get(record_id) if table else None

    def kinds(self) -> list[str]:
        return sorted(self._tables)

    # -- mutation ----------------------------------------------------------------------------

    def insert(self, kind: str, record: Record) -> Record:
        self.table(kind)[record["id"]] = record
        self._dirty[(kind, record["id"])] = record
        return record

    def insert_many(self, kind: str, records: Iterable[Record]) -> None:
        table = self.table(kind)
        for record in records:
            table[record["id"]] = record
            self._dirty[(kind, record["id"])] = record

    def save(self, kind: str, record: Record) -> None:
        """Mark a record mutated in place as changed."""
        self._dirty[(kind, record["id"])] = record

    def delete(self, kind: str, record_id: str) -> Record | None:
        record = self.table(kind).pop(record_id, None)
        if record is not None:
            self._dirty[(kind, record_id)] = None
        return record

    def retire(self, kind: str, record_id: str, removed_at: str) -> Record | None:
        """Remove a record from its kind but keep it, marked ``removed_at``, in the kind's
        graveyard (``<kind>@removed``): the API no longer sees it, raw dumps still do."""
        record = self.delete(kind, record_id)
        if record is not None:
            record["removed_at"] = removed_at
            self.insert(graveyard(kind), record)
        return record

    def clear(self, keep: Iterable[str] = ()) -> None:
        """Remove every record of every kind except the kinds in ``keep``."""
        kept = set(keep)
        for kind, table in self._tables.items():
            if kind in kept:
                continue
            for record_id in table:
                self._dirty[(kind, record_id)] = None
            table.clear()

    # -- meta values ---------------------------------------------------------------------------

    def meta(self, name: str, default: Any = None) -> Any:
        record = self.get(META_KIND, name)
        return default if record is None else record["value"]

    def set_meta(self, name: str, value: Any) -> None:
        self.insert(META_KIND, {"id": name, "value": value})

    def next_counter(self, name: str) -> int:
        """A persistent counter starting at 1 (sequence numbers, address allocation)."""
        value = self.meta(name, 0) + 1
        self.set_meta(name, value)
        return value
