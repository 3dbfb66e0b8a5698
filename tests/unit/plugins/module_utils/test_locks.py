"""Per-name create locks and the winner rule among resources that carry the same name."""

import errno
import fcntl
import itertools
import os
import signal
import stat
import subprocess
import sys
import time

import pytest

from ansible_collections.cloudcompute.cloud.plugins.module_utils._api_errors import ApiError
from ansible_collections.cloudcompute.cloud.plugins.module_utils._locks import (
    FileLock,
    create_lock_path,
    release_create_locks,
)
from ansible_collections.cloudcompute.cloud.plugins.module_utils._resource import creation_order

URL = "https://api.example.test/v1"

HOLDER = """
import sys, time
from ansible_collections.cloudcompute.cloud.plugins.module_utils._locks import FileLock
FileLock(sys.argv[1]).acquire()
print("held", flush=True)
time.sleep(600)
"""


def held_by_someone(path):
    """True when another process holds the flock on ``path``."""
    descriptor = os.open(path, os.O_RDWR)
    try:
        fcntl.flock(descriptor, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except OSError as error:
        assert error.errno in (errno.EAGAIN, errno.EACCES)
        return True
    finally:
        os.close(descriptor)
    return False


def start_holder(path):
    holder = subprocess.Popen(
        [sys.executable, "-c", HOLDER, str(path)],
        stdout=subprocess.PIPE,
        text=True,
        env=dict(os.environ, PYTHONPATH=os.pathsep.join(sys.path)),
    )
    assert holder.stdout.readline().strip() == "held"
    return holder


def test_one_file_per_api_url_client_kind_and_name(tmp_path):
    paths = set(
        create_lock_path(str(tmp_path), url, client, kind, name)
        for url, client, kind, name in itertools.product(
            (URL, URL + "2"), ("a", "b"), ("instance", "volume"), ("x", "y")
        )
    )
    assert len(paths) == 16
    assert create_lock_path(str(tmp_path), URL, "a", "instance", "x") == create_lock_path(
        str(tmp_path), URL, "a", "instance", "x"
    )


def test_lock_file_and_directory_are_private(tmp_path):
    directory = tmp_path / "cache" / "tokens"
    old_umask = os.umask(0)
    try:
        with FileLock(create_lock_path(str(directory), URL, "a", "instance", "web")) as lock:
            assert lock.held
            assert stat.S_IMODE(os.stat(lock.path).st_mode) == 0o600
    finally:
        os.umask(old_umask)
    assert stat.S_IMODE(os.stat(directory).st_mode) == 0o700
    assert not lock.held


def test_a_symlink_in_place_of_the_lock_file_is_refused(tmp_path):
    target = tmp_path / "elsewhere"
    target.write_text("keep")
    path = create_lock_path(str(tmp_path), URL, "a", "instance", "web")
    os.symlink(str(target), path)
    with pytest.raises(ApiError, match="never a symbolic link") as raised:
        FileLock(path).acquire()
    assert raised.value.code == "unsafe_token_cache" and "token_cache to false" in str(raised.value)
    assert target.read_text() == "keep"


def test_a_holder_blocks_others_until_it_releases(tmp_path):
    path = create_lock_path(str(tmp_path), URL, "a", "instance", "web")
    holder = start_holder(path)
    try:
        assert held_by_someone(path)
    finally:
        holder.kill()
        holder.wait()


def test_a_sigkilled_holder_never_blocks_the_others(tmp_path):
    path = create_lock_path(str(tmp_path), URL, "a", "instance", "web")
    holder = start_holder(path)
    os.kill(holder.pid, signal.SIGKILL)
    holder.wait()
    started = time.monotonic()
    with FileLock(path) as lock:
        assert lock.held
    assert time.monotonic() - started < 5


def test_winner_is_the_oldest_then_the_smallest_id_whatever_the_order_read():
    records = [
        {"id": "c", "created_at": "2026-01-01T10:00:01Z"},
        {"id": "b", "created_at": "2026-01-01T10:00:00Z"},
        {"id": "a", "created_at": "2026-01-01T10:00:00Z"},
        {"id": "0", "created_at": None},
    ]
    assert set(min(order, key=creation_order)["id"] for order in itertools.permutations(records)) == {"a"}
    # a record without its creation time never wins over one with it
    assert min(records[3:] + records[:1], key=creation_order)["id"] == "c"


def test_records_without_creation_time_keep_the_list_order_the_api_made_them_in():
    # SSH keys carry no created_at: the API lists them oldest first, so a key another run made
    # after this run's read sorts after every key that read saw, whatever the ids
    keys = [{"id": "f7", "name": "k"}, {"id": "0a", "name": "k"}, {"id": "c3", "name": "k"}]
    assert [key["id"] for key in sorted(keys, key=creation_order)] == ["f7", "0a", "c3"]


def test_a_module_result_releases_every_lock_of_the_process(tmp_path):
    # A process that runs module after module (a test runner, a module reused in-process) must
    # not find its own lock still held on the next lookup of the same name.
    paths = [create_lock_path(str(tmp_path), URL, "a", "instance", name) for name in ("web", "db")]
    locks = [FileLock(path).acquire() for path in paths]
    release_create_locks()
    assert not any(lock.held for lock in locks)
    for path in paths:
        descriptor = os.open(path, os.O_RDWR)
        try:
            fcntl.flock(descriptor, fcntl.LOCK_EX | fcntl.LOCK_NB)  # would raise if still held
        finally:
            os.close(descriptor)
