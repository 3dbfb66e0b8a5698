# Copyright: cloudcompute.cloud contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)

"""How the API's addresses and ids become SSH arguments: the one check of an address, the
quoting of every value that reaches ``ansible_ssh_common_args``, and the host keys pinned per
instance (``HostKeyAlias`` = ``cloudcompute-<id>`` in a known_hosts file of the collection's
own, beside the token cache).

Used by the inventory plugin, the ``ssh_connection`` filter (the roles' in-memory hosts) and
the ``known_hosts`` module. Ansible splits ``ansible_ssh_common_args`` like a shell, and ssh
runs a ``ProxyCommand`` through ``/bin/sh``: every value is checked against a narrow alphabet
first and quoted for both all the same.

This file does not import anything from Ansible.
"""

import ipaddress
import os
import re
import shlex
import stat
import tempfile

# A DNS host name (labels of letters, digits, - and _, not starting with -); with IP addresses,
# the only addresses put into ansible_host and SSH arguments.
DNS_NAME = re.compile(r"^(?=.{1,253}\.?$)[A-Za-z0-9_]([A-Za-z0-9_-]{0,62})(\.[A-Za-z0-9_][A-Za-z0-9_-]{0,62})*\.?$")
# A login name ssh passes on as it is (POSIX portable names, not starting with -).
SSH_USER = re.compile(r"^[A-Za-z0-9_][A-Za-z0-9._-]{0,63}$")
# An id of the API (UUIDs in practice): what a host key alias is made of.
RESOURCE_ID = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_-]{0,127}$")
ALIAS_PREFIX = "cloudcompute-"
# A known_hosts path ssh takes as one file name: ssh splits UserKnownHostsFile at whitespace and
# expands % and ${...}, so only these characters are accepted.
KNOWN_HOSTS_PATH = re.compile(r"^[A-Za-z0-9_./~+@,:=-]+$")
KNOWN_HOSTS_FILE = "known_hosts"
KNOWN_HOSTS_VARIABLE = "CLOUDCOMPUTE_KNOWN_HOSTS"
TOKEN_CACHE_VARIABLE = "CLOUDCOMPUTE_TOKEN_CACHE"
DEFAULT_TOKEN_CACHE = "~/.cache/cloudcompute.cloud/tokens"


class SshValueError(ValueError):
    """A value that must not reach SSH, described in one sentence."""


def usable_address(address):
    """Is ``address`` an IP address or a DNS host name, so that SSH takes it as one host and
    nothing else?"""
    if not isinstance(address, str) or not address:
        return False
    if DNS_NAME.match(address):
        return True
    try:
        ipaddress.ip_address(address)
    except ValueError:
        return False
    return True


def check_user(user, option="jump_host_user"):
    """``user`` (may be empty: SSH's own choice) when it is a plain login name."""
    if user in (None, ""):
        return ""
    if not isinstance(user, str) or not SSH_USER.match(user):
        raise SshValueError(f"{option} {user!r} is not a login name SSH can take (letters, digits, ., _ and -)")
    return user


def check_port(port, option="jump_host_port"):
    try:
        number = int(port)
    except (TypeError, ValueError):
        number = 0
    if isinstance(port, bool) or not 1 <= number <= 65535 or str(number) != str(port).strip():
        raise SshValueError(f"{option} {port!r} is not a TCP port (1 to 65535)")
    return number


def ssh_destination(address, user="", port=22):
    """``[user@]address[:port]`` as ProxyJump takes it (an IPv6 address in brackets)."""
    if not usable_address(address):
        raise SshValueError(f"{address!r} is neither an IP address nor a host name")
    user = check_user(user)
    port = check_port(port)
    host = f"[{address}]" if ":" in address else address
    target = f"{user}@{host}" if user else host
    return target if port == 22 else f"{target}:{port}"


def proxy_jump_argument(address, user="", port=22):
    """The SSH arguments that reach a host through the jump host at ``address``, quoted."""
    return "-o " + shlex.quote("ProxyJump=" + ssh_destination(address, user, port))


# ------------------------------------------------------------------------------ host keys


def host_key_alias(resource_id):
    """The name a host's key is pinned under: its instance, cluster (jump host) or worker id."""
    if not isinstance(resource_id, str) or not RESOURCE_ID.match(resource_id):
        raise SshValueError(f"{resource_id!r} is not an id of the API, so no host key can be pinned to it")
    return ALIAS_PREFIX + resource_id


def alias_id(alias):
    """The id a host key alias names (None: not one of this collection's aliases)."""
    if alias.startswith(ALIAS_PREFIX) and RESOURCE_ID.match(alias[len(ALIAS_PREFIX) :]):
        return alias[len(ALIAS_PREFIX) :]
    return None


def known_hosts_path(path=None, token_cache=None):
    """The collection's known_hosts file: ``path``, else $CLOUDCOMPUTE_KNOWN_HOSTS, else
    ``known_hosts`` in the token cache's directory (the default one when the cache is off)."""
    path = path or os.environ.get(KNOWN_HOSTS_VARIABLE)
    if not path:
        directory = token_cache if isinstance(token_cache, str) and token_cache.strip() else None
        if directory is None or directory.lower() in ("false", "no", "off", "0", ""):
            directory = os.environ.get(TOKEN_CACHE_VARIABLE) or DEFAULT_TOKEN_CACHE
            if directory.lower() in ("false", "no", "off", "0"):
                directory = DEFAULT_TOKEN_CACHE
        path = os.path.join(directory, KNOWN_HOSTS_FILE)
    path = os.path.abspath(os.path.expanduser(path))
    if not KNOWN_HOSTS_PATH.match(path):
        raise SshValueError(
            f"known_hosts path {path!r} holds characters SSH would split or expand; "
            "use letters, digits and . _ / ~ + @ , : = - only"
        )
    return path


def read_known_hosts(path):
    """[(alias, key type, key)] of the file's entries that are this collection's (a missing file
    holds none; lines ssh would ignore are ignored)."""
    try:
        with open(path, encoding="utf-8", errors="replace") as stream:
            lines = stream.read().splitlines()
    except FileNotFoundError:
        return []
    entries = []
    for line in lines:
        fields = line.split()
        if len(fields) < 3 or fields[0].startswith(("#", "@", "|")):
            continue
        for name in fields[0].split(","):
            if alias_id(name):
                entries.append((name, fields[1], fields[2]))
    return entries


def forget_host_keys(path, forgotten, write=True):
    """Remove from the known_hosts file ``path`` the entries of this collection's aliases whose id
    ``forgotten(id)`` says is gone; every other line stays as it was. Returns [(alias, key
    type)] of the entries removed (with ``write`` false, those it would remove). The file is
    replaced whole (a new file, then renamed over it), keeping its mode; a symbolic link or
    anything but a regular file of this user in its place is refused."""
    try:
        descriptor = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_CLOEXEC)
    except FileNotFoundError:
        return []
    except OSError as error:
        raise SshValueError(f"known_hosts {path} cannot be read ({error.strerror}); it must be a regular file")
    with os.fdopen(descriptor, "rb") as stream:
        status = os.fstat(stream.fileno())
        if not stat.S_ISREG(status.st_mode) or status.st_uid != os.geteuid():
            raise SshValueError(f"known_hosts {path} is not a regular file of this user")
        lines = stream.read().splitlines(keepends=True)
    removed, kept = [], []
    for line in lines:
        fields = line.decode("utf-8", errors="replace").split()
        if len(fields) < 3 or fields[0].startswith(("#", "@", "|")):
            kept.append(line)
            continue
        names = fields[0].split(",")
        gone = [name for name in names if alias_id(name) and forgotten(alias_id(name))]
        removed.extend((name, fields[1]) for name in gone)
        if not gone:
            kept.append(line)
        elif len(gone) < len(names):  # a line shared with names of others: only ours go
            rest = ",".join(name for name in names if name not in gone)
            kept.append(line.replace(fields[0].encode(), rest.encode(), 1))
    if removed and write:
        directory = os.path.dirname(path)
        descriptor, temporary = tempfile.mkstemp(prefix=".known_hosts.", dir=directory)
        try:
            with os.fdopen(descriptor, "wb") as stream:
                stream.writelines(kept)
                os.fchmod(stream.fileno(), stat.S_IMODE(status.st_mode))
            os.replace(temporary, path)
        except BaseException:
            os.unlink(temporary)
            raise
    return removed


def known_aliases(path):
    return {alias for alias, _type, _key in read_known_hosts(path)}


def host_key_options(alias, known_hosts, known):
    """ssh options (unquoted ``Name=value`` strings) that pin the key of the host ``alias`` in
    ``known_hosts``: accepted on first contact, required to match ever after."""
    return [
        "HostKeyAlias=" + alias,
        "UserKnownHostsFile=" + known_hosts,
        "StrictHostKeyChecking=" + ("yes" if known else "accept-new"),
        # aliases stay readable, so that forgetting an instance finds its entries
        "HashKnownHosts=no",
    ]


def ssh_options_argument(options):
    return " ".join("-o " + shlex.quote(option) for option in options)


def proxy_command_argument(address, user, port, jump_options):
    """A ProxyCommand through the jump host at ``address`` whose own connection carries
    ``jump_options`` (ProxyJump cannot: its hop takes no options from the command line). Run by
    ssh through /bin/sh after %-expansion: every part is shell-quoted and % doubled."""
    target = ssh_destination(address, user, 22)  # the port goes to -p
    port = check_port(port)
    words = ["ssh", "-W", shlex.quote("[%h]:%p"), "-p", str(port)]
    for option in jump_options:
        words += ["-o", shlex.quote(option.replace("%", "%%"))]
    words.append(shlex.quote(target))
    return "-o " + shlex.quote("ProxyCommand=" + " ".join(words))
