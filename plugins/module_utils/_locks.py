# Copyright: cloudcompute.cloud contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)

"""The token cache directory's private files and the locks taken on them: the token cache's own
lock, the shared rate-limit state's (``_quota``) and the per-name create locks.

A create lock makes the find-then-create of a resource identified by name the business of one
task at a time on this machine, so that forks and overlapping ``ansible-playbook`` runs (an AWX
schedule meeting a manual launch) never create the same name twice.

A lock is an ``flock`` on a 0600 file in the token cache's 0700 directory; a create lock has one
file per API URL + client id + kind + name. The kernel drops an ``flock`` when its holder dies,
so a task killed while holding one never blocks the others. With the token cache disabled there
is no lock file (and no lock): several machines are then covered by the after-create duplicate
check alone.

A path of the directory that is not safe (a symbolic link, another user's, writable by others)
is refused with the token cache's ``LocalRefusal``, whoever asked for it.

This file does not import anything from Ansible.
"""

import errno
import fcntl
import hashlib
import os
import stat
import time

from ansible_collections.cloudcompute.cloud.plugins.module_utils._api_errors import LocalRefusal


def unsafe_cache_path(directory, reason):
    """The refusal of the token cache ``directory``: whoever can write there can read or plant
    tokens, locks and rate-limit state."""
    return LocalRefusal(
        f"token_cache {directory} is not safe to keep tokens in: {reason}. Use a directory of your own with mode "
        "0700, or set token_cache to false to run without the cache",
        code="unsafe_token_cache",
    )


def ensure_private_directory(directory):
    """Create ``directory`` and its missing parents with mode 0700 whatever the umask, then refuse
    it unless it is a real directory of this user that nobody else can write to."""
    missing = []
    parent = directory
    while parent and not os.path.lexists(parent):
        missing.append(parent)
        parent = os.path.dirname(parent)
    for path in reversed(missing):
        try:
            os.mkdir(path, 0o700)
        except FileExistsError:
            continue  # made meanwhile by another process
        except OSError as error:
            raise unsafe_cache_path(directory, f"{path} cannot be created ({error.strerror})")
        os.chmod(path, 0o700)  # mkdir's mode is masked by the umask
    check_private_directory(directory)


def check_private_directory(directory):
    try:
        info = os.lstat(directory)
    except OSError as error:
        raise unsafe_cache_path(directory, f"it cannot be used ({error.strerror})")
    if stat.S_ISLNK(info.st_mode):
        raise unsafe_cache_path(directory, "it is a symbolic link")
    if not stat.S_ISDIR(info.st_mode):
        raise unsafe_cache_path(directory, "it is not a directory")
    if info.st_uid != os.geteuid():
        raise unsafe_cache_path(directory, "it is owned by another user (uid %d)" % info.st_uid)
    if info.st_mode & 0o022:
        raise unsafe_cache_path(directory, f"it is writable by others (mode {stat.S_IMODE(info.st_mode):04o})")


def open_private_file(path):
    """Open (creating it 0600) a file of the token cache directory; a symbolic link in its place
    is never followed (O_CREAT would create or truncate its target), and a file of another user
    or that others could read is refused."""
    directory, name = os.path.split(path)
    try:
        descriptor = os.open(path, os.O_RDWR | os.O_CREAT | os.O_NOFOLLOW | os.O_CLOEXEC, 0o600)
    except OSError as error:
        raise unsafe_cache_path(
            directory, f"{name} cannot be opened ({error.strerror}); it must be a regular file, never a symbolic link"
        )
    status = os.fstat(descriptor)
    if status.st_uid != os.geteuid() or not stat.S_ISREG(status.st_mode):
        os.close(descriptor)
        raise unsafe_cache_path(directory, f"{name} is not a regular file of this user")
    if stat.S_IMODE(status.st_mode) != 0o600:
        os.fchmod(descriptor, 0o600)  # created under a permissive umask, or loosened since
    return descriptor


def create_lock_path(directory, api_url, client_id, kind, name):
    """The lock file for creating a ``kind`` named ``name`` through this API URL and client."""
    key = hashlib.sha256((f"{api_url}\n{client_id}\n{kind}\n{name}").encode()).hexdigest()[:32]
    return os.path.join(directory, f"create-{key}.lock")


# The locks this process holds: a module releases them all when it reports its result.
HELD = set()


def release_create_locks():
    """Release every lock this process holds. A module's result is final, so nothing it locked
    is created after it; Ansible's module process ends there anyway, but a process that runs
    several modules (tests, a module reused in-process) would otherwise keep them, and its next
    lookup of the same name would wait for itself forever."""
    for lock in list(HELD):
        lock.release()


class FileLock:
    """An exclusive lock on a private file of the token cache directory (made private first),
    held from ``acquire()`` until ``release()``, the end of a ``with`` block or of the process."""

    def __init__(self, path):
        self.path = path
        self.descriptor = None

    @property
    def held(self):
        return self.descriptor is not None

    def acquire(self, timeout=None):
        """Wait for the lock and take it: for as long as it takes (``timeout`` None), or for at
        most ``timeout`` seconds, after which ``LockTimeout`` is raised."""
        if self.held:
            return self
        ensure_private_directory(os.path.dirname(self.path))
        descriptor = open_private_file(self.path)
        try:
            if timeout is None:
                fcntl.flock(descriptor, fcntl.LOCK_EX)
            else:
                _flock_within(descriptor, timeout)
        except BaseException:
            os.close(descriptor)
            raise
        self.descriptor = descriptor
        HELD.add(self)
        return self

    def release(self):
        HELD.discard(self)
        if self.descriptor is not None:
            descriptor, self.descriptor = self.descriptor, None
            # closing drops the flock; the file stays, as removing it would race a waiter
            os.close(descriptor)

    def __enter__(self):
        return self.acquire()

    def __exit__(self, *exc_info):
        self.release()


class LockTimeout(LocalRefusal):
    """Another process held a lock for longer than the task may wait for it."""


# How often a bounded wait for a lock tries again: short, as a create lock is usually held
# for the second or two of a lookup and a create.
LOCK_POLL_SECONDS = 0.1


def _flock_within(descriptor, timeout):
    """``flock`` ``descriptor`` exclusively, trying for at most ``timeout`` seconds."""
    deadline = time.monotonic() + max(0.0, timeout)
    while True:
        try:
            fcntl.flock(descriptor, fcntl.LOCK_EX | fcntl.LOCK_NB)
            return
        except OSError as error:
            if error.errno not in (errno.EAGAIN, errno.EACCES):
                raise
        left = deadline - time.monotonic()
        if left <= 0:
            raise LockTimeout(
                f"waited {max(0.0, timeout):.0f} seconds for a lock another process holds", code="lock_timeout"
            )
        time.sleep(min(LOCK_POLL_SECONDS, left))


def hold_create_lock(client, kind, name, timeout=None):
    """Wait for and take the create lock of ``client`` (an ``ApiClient``) for a ``kind`` named
    ``name``; None when the client has no token cache (disabled, or no credentials). Often taken
    before the task's first request: an unsafe token cache is refused here. ``timeout`` bounds
    the wait (the task's budget): another task on this machine creating the same name for
    longer fails this one, saying so, rather than holding it past its wait_timeout."""
    cache = client.token_cache
    if not cache or not name:
        return None
    lock = FileLock(create_lock_path(cache.directory, client.api_url, client.client_id, kind, name))
    try:
        return lock.acquire(timeout)
    except LockTimeout:
        raise LockTimeout(
            f"another task on this machine has been creating the {kind.replace('_', ' ')} {name!r} for {timeout:.0f} "
            "seconds, longer than this task may wait; raise wait_timeout or run the tasks one after the other",
            code="lock_timeout",
        ) from None
