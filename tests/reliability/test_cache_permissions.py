"""The token cache's files under a careless umask and in hostile places, through real playbook
runs: what a module leaves on disk is readable by its owner only, and a cache directory or lock
file someone else could have planted is refused before any request is sent."""

import contextlib
import os
import stat

from conftest import api_requests, report, run_playbook

PLAYBOOK = """
- name: Converge one SSH key
  hosts: localhost
  gather_facts: false
  tasks:
    - name: The key
      cloudcompute.cloud.ssh_key:
        name: cache-permissions
        public_key: ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIGbYi0C7kMOg0qPjxpAWO6g9u0mS7XvZ8a3mnhqNtIIn permissions
"""


@contextlib.contextmanager
def umask(value):
    previous = os.umask(value)
    try:
        yield
    finally:
        os.umask(previous)


def mode(path):
    return stat.S_IMODE(os.lstat(path).st_mode)


def converge(emulator, workdir, cache):
    playbook = workdir / "play.yml"
    playbook.write_text(PLAYBOOK)
    return run_playbook(playbook, emulator, workdir, env={"CLOUDCOMPUTE_TOKEN_CACHE": str(cache)})


def test_under_umask_000_the_cache_is_private(emulator, control, tmp_path):
    cache = tmp_path / "home" / "cache" / "tokens"
    with umask(0):
        run = converge(emulator, tmp_path, cache)
    assert run.returncode == 0 and not run.failed, run.describe_failures()
    directories = [tmp_path / "home", tmp_path / "home" / "cache", cache]
    files = sorted(cache.iterdir())
    report(
        "cache permissions",
        "umask 000: %d directories created 0%o, %d files (%s) 0%o"
        % (
            len(directories),
            mode(cache),
            len(files),
            ", ".join(sorted(set(path.suffix for path in files))),
            max(mode(path) for path in files),
        ),
    )
    assert [mode(path) for path in directories] == [0o700] * 3
    # the tokens, their lock, the shared rate-limit state and its lock, the SSH key's create lock
    assert {path.suffix for path in files} >= {".json", ".lock", ".ratelimit"}
    assert all(mode(path) == 0o600 for path in files), [(path.name, oct(mode(path))) for path in files]


def test_a_cache_others_can_write_to_is_refused_before_any_request(emulator, control, tmp_path):
    cache = tmp_path / "shared"
    cache.mkdir()
    cache.chmod(0o777)
    run = converge(emulator, tmp_path, cache)
    messages = [entry["result"].get("msg", "") for entry in run.failed]
    report(
        "cache permissions",
        "a cache directory of mode 0777: refused (%s), %d API requests"
        % (messages[0][:60] if messages else "not refused", len(api_requests(control))),
    )
    assert run.returncode != 0 and len(messages) == 1
    assert "writable by others" in messages[0] and "token_cache to false" in messages[0]
    assert api_requests(control) == []


def test_a_symlink_planted_at_the_lock_is_never_followed(emulator, control, tmp_path):
    cache = tmp_path / "tokens"
    run = converge(emulator, tmp_path, cache)
    assert run.returncode == 0, run.describe_failures()
    victim = tmp_path / "victim"
    for lock in cache.glob("*.json.lock"):
        lock.unlink()
        lock.symlink_to(victim)
    for token in cache.glob("*.json"):
        token.unlink()  # the next task must exchange credentials, under the lock
    run = converge(emulator, tmp_path, cache)
    messages = [entry["result"].get("msg", "") for entry in run.failed]
    report(
        "cache permissions",
        "a symlink at the token lock: {}; its target created: {}".format(
            "refused" if messages else "followed", victim.exists()
        ),
    )
    assert run.returncode != 0 and "symbolic link" in messages[0]
    assert not victim.exists()
