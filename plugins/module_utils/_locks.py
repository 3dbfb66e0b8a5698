# -*- coding: utf-8 -*-
# Copyright: cloudcompute.cloud contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)

"""Per-name create locks: on one machine, the find-then-create of a resource identified by name
is done by one task at a time, so that forks and overlapping ``ansible-playbook`` runs (an AWX
schedule meeting a manual launch) never create the same name twice.

A lock is an ``flock`` on a 0600 file in the token cache's 0700 directory, one file per API URL
+ client id + kind + name. The kernel drops an ``flock`` when its holder dies, so a task killed
while holding one never blocks the others. With the token cache disabled there is no lock file
(and no lock): several machines are then covered by the after-create duplicate check alone.

This file does not import anything from Ansible.
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import errno
import hashlib
import os
import stat

try:
    import fcntl
except ImportError:  # pragma: no cover - not on POSIX: no lock, the duplicate check still applies
    fcntl = None


def open_private_file(path):
    """Open (creating it 0600) a file of the token cache's directory for locking, refusing a
    symlink in its place and a file owned by another user or readable by others."""
    descriptor = os.open(path, os.O_RDWR | os.O_CREAT | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_CLOEXEC", 0), 0o600)
    try:
        status = os.fstat(descriptor)
        if status.st_uid != os.geteuid() or not stat.S_ISREG(status.st_mode):
            raise OSError(errno.EPERM, "not a regular file of this user", path)
        if stat.S_IMODE(status.st_mode) != 0o600:
            os.fchmod(descriptor, 0o600)  # created under a permissive umask, or loosened since
    except Exception:
        os.close(descriptor)
        raise
    return descriptor


def ensure_private_directory(directory):
    """Create the 0700 directory (and its parents) unless it exists; refuse a symlink."""
    try:
        os.makedirs(directory, mode=0o700)
    except OSError as error:
        if error.errno != errno.EEXIST:
            raise
    if os.path.islink(directory):
        raise OSError(errno.ELOOP, "the lock directory is a symlink", directory)


def create_lock_path(directory, api_url, client_id, kind, name):
    """The lock file for creating a ``kind`` named ``name`` through this API URL and client."""
    key = hashlib.sha256(("%s\n%s\n%s\n%s" % (api_url, client_id, kind, name)).encode("utf-8")).hexdigest()[:32]
    return os.path.join(directory, "create-%s.lock" % key)


class CreateLock:
    """An exclusive lock on creating one name, held from ``acquire()`` until ``release()`` (or
    the end of the process)."""

    def __init__(self, path):
        self.path = path
        self.descriptor = None

    @property
    def held(self):
        return self.descriptor is not None

    def acquire(self):
        if fcntl is None or self.held:
            return self
        ensure_private_directory(os.path.dirname(self.path))
        descriptor = open_private_file(self.path)
        try:
            fcntl.flock(descriptor, fcntl.LOCK_EX)
        except Exception:
            os.close(descriptor)
            raise
        self.descriptor = descriptor
        return self

    def release(self):
        if self.descriptor is not None:
            descriptor, self.descriptor = self.descriptor, None
            # closing drops the flock; the file stays, as removing it would race a waiter
            os.close(descriptor)

    def __enter__(self):
        return self.acquire()

    def __exit__(self, *exc_info):
        self.release()


def hold_create_lock(client, kind, name):
    """Wait for and take the create lock of ``client`` (an ``ApiClient``) for a ``kind`` named
    ``name``; None when the client has no token cache (disabled, or no credentials)."""
    cache = getattr(client, "token_cache", None)
    if not cache or not name:
        return None
    return CreateLock(create_lock_path(cache.directory, client.api_url, client.client_id, kind, name)).acquire()
