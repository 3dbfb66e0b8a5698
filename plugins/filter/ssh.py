# Copyright: cloudcompute.cloud contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)

"""Filters that turn the API's records into SSH connection variables for the roles' in-memory
hosts, with the same address check and quoting as the inventory plugin
(``module_utils/_ssh.py``). Their documentation is in the YAML files beside this one."""

import os

import ansible.template
from ansible.errors import AnsibleFilterError

from ansible_collections.cloudcompute.cloud.plugins.module_utils import _ssh

# ansible-core 2.19 and later never template data a filter returns unless it is marked trusted;
# older versions template any string that is not wrapped as unsafe.
API_DATA_TEMPLATED = not hasattr(ansible.template, "trust_as_template")
if API_DATA_TEMPLATED:
    from ansible.utils.unsafe_proxy import wrap_var
else:

    def wrap_var(value):
        return value


def _field(record, field, what):
    if not isinstance(record, dict):
        raise AnsibleFilterError(f"ssh_host_vars expects {what} as a dictionary, got {type(record).__name__}")
    return record.get(field)


def _pinned(record, known_hosts):
    """(alias, ssh options) pinning the key of ``record``'s host in ``known_hosts`` (path, aliases)."""
    alias = _ssh.host_key_alias(record.get("id"))
    path, known = known_hosts
    return alias, _ssh.host_key_options(alias, path, alias in known)


def _known_hosts(path):
    """The collection's known_hosts file (created 0600 in a private directory) and its aliases."""
    from ansible_collections.cloudcompute.cloud.plugins.module_utils import _api_errors, _locks

    try:
        path = _ssh.known_hosts_path(path)
        _locks.ensure_private_directory(os.path.dirname(path))
        os.close(_locks.open_private_file(path))
    except (_ssh.SshValueError, _api_errors.LocalRefusal) as error:
        raise AnsibleFilterError(f"ssh_host_vars: {error}")
    return path, _ssh.known_aliases(path)


def ssh_host_vars(
    record,
    address_field="ip",
    jump_host=None,
    jump_address_field="ip",
    jump_host_user="root",
    jump_host_port=22,
    host_keys=True,
    known_hosts=None,
):
    """Connection variables of the host ``record`` (an instance, a cluster as its jump host, or
    a worker reached through ``jump_host``)."""
    try:
        jump_host_user = _ssh.check_user(jump_host_user, "jump_host_user")
        jump_host_port = _ssh.check_port(jump_host_port, "jump_host_port")
    except _ssh.SshValueError as error:
        raise AnsibleFilterError(f"ssh_host_vars: {error}")
    pins = _known_hosts(known_hosts) if host_keys else None
    name = str(_field(record, "hostname", "the host") or _field(record, "id", "the host"))
    result = {"problems": []}
    address = _field(record, address_field, "the host")
    if _ssh.usable_address(address):
        result["ansible_host"] = str(address)
    elif address:
        result["problems"].append(
            f"the {address_field} of {name} is {address!r}, neither an IP address nor a host name; "
            "it is added without connection variables"
        )
    options = []
    try:
        if pins and "ansible_host" in result:
            result["cloudcompute_host_key_alias"], options = _pinned(record, pins)
        if jump_host is not None and "ansible_host" in result:
            jump_address = _field(jump_host, jump_address_field, "the jump host")
            if _ssh.usable_address(jump_address):
                jump_address = str(jump_address)
                if pins:
                    jump_options = _pinned(jump_host, pins)[1]
                    proxy = _ssh.proxy_command_argument(jump_address, jump_host_user, jump_host_port, jump_options)
                else:
                    proxy = _ssh.proxy_jump_argument(jump_address, jump_host_user, jump_host_port)
                result["ansible_ssh_common_args"] = " ".join(filter(None, [_ssh.ssh_options_argument(options), proxy]))
                return wrap_var(result)
    except _ssh.SshValueError as error:
        result.pop("ansible_host", None)
        result["problems"].append(f"{name}: {error}; it is added without connection variables")
        return wrap_var(result)
    if jump_host is not None and "ansible_host" in result:
        # a worker without a way through its jump host
        del result["ansible_host"]
        result.pop("cloudcompute_host_key_alias", None)
        result["problems"].append(
            f"the jump host of {name} has no usable {jump_address_field} ({jump_address!r}); "
            "it is added without connection variables"
        )
    elif options:
        result["ansible_ssh_common_args"] = _ssh.ssh_options_argument(options)
    return wrap_var(result)


class FilterModule:
    def filters(self):
        return {"ssh_host_vars": ssh_host_vars}
