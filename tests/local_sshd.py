"""A local sshd standing in for the cloud's instances: the emulator gives them loopback addresses
(127.1.x.y, its ``instance_ip_mode: loopback``) and this one sshd, on a free port, answers on all
of them. Shared by the suites that reach instances over real SSH."""

import os
import socket
import subprocess
import time

import pytest

SSHD = "/usr/sbin/sshd"


def free_port():
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def wait_for_port(port, process, timeout=10):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if process.poll() is not None:
            return False
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=0.5):
                return True
        except OSError:
            time.sleep(0.05)
    return False


@pytest.fixture
def sshd(tmp_path):
    """A local sshd on a free port that answers on every 127.x address; its log path and port."""
    if not os.access(SSHD, os.X_OK):
        pytest.fail(
            f"{SSHD} is missing: install openssh-server (tools/bootstrap.sh does); this test must not be skipped"
        )
    directory = tmp_path / "sshd"
    directory.mkdir()
    subprocess.run(["ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-f", str(directory / "host_ed25519")], check=True)
    (directory / "authorized_keys").write_text("")
    port = free_port()
    user = (
        os.environ.get("USER")
        or subprocess.run(["id", "-un"], capture_output=True, text=True, check=True).stdout.strip()
    )
    (directory / "sshd_config").write_text(
        "\n".join(
            [
                "Port %d" % port,
                # Instances have addresses all over 127/8, so listen everywhere, and let only the test's
                # user in, only from loopback, only with the authorized key.
                "ListenAddress 0.0.0.0",
                f"AllowUsers {user}@127.0.0.0/8",
                "HostKey %s" % (directory / "host_ed25519"),
                "PidFile %s" % (directory / "sshd.pid"),
                "AuthorizedKeysFile %s" % (directory / "authorized_keys"),
                "PubkeyAuthentication yes",
                "PasswordAuthentication no",
                "KbdInteractiveAuthentication no",
                "PermitRootLogin prohibit-password",
                "UsePAM no",
                "StrictModes no",
                "AllowTcpForwarding yes",
                # DEBUG1 logs each forwarded connection: the proof that workers were reached through
                # the jump host.
                "LogLevel DEBUG1",
                "",
            ]
        )
    )
    if os.geteuid() == 0:
        os.makedirs("/run/sshd", mode=0o755, exist_ok=True)  # privilege separation directory
    log_path = directory / "sshd.log"
    with open(log_path, "w") as log:
        process = subprocess.Popen(
            [SSHD, "-D", "-e", "-f", str(directory / "sshd_config")], stdout=log, stderr=subprocess.STDOUT
        )
    try:
        if not wait_for_port(port, process):
            pytest.fail(f"sshd did not start: {log_path.read_text()}")
        yield {"port": port, "user": user, "directory": directory, "log": log_path}
    finally:
        process.terminate()
        process.wait(timeout=10)
