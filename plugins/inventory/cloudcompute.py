# Copyright: cloudcompute.cloud contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)

DOCUMENTATION = r"""
name: cloudcompute
short_description: Cloud Compute instances, cluster jump hosts and cluster workers as hosts
version_added: 0.1.0
author:
  - cloudcompute.cloud maintainers (@cloudcompute)
description:
  - Makes Ansible hosts of the instances of a Cloud Compute project, of the jump host of each
    cluster and of each cluster worker node.
  - Workers are reached through their cluster's jump host. Each worker gets
    C(ansible_ssh_common_args) with an SSH C(ProxyCommand) (C(ProxyJump) with
    O(host_keys=false)) through its jump host, so
    C(ansible -m ping) on a worker works without any hand-written SSH configuration.
  - Every refresh makes, per project, one request for the instances and one for the clusters
    (none with O(include_clusters=false)), however many hosts there are, plus a token exchange
    when the token cache shared with the modules holds no valid token. With O(cache) enabled, a load within O(cache_timeout) makes no request at
    all; groups and variables are rebuilt from the cached API answers on every load, so
    changes to grouping options apply at once.
  - The configuration file name must end in C(cloudcompute.yml) or C(cloudcompute.yaml).
  - 'Host variables, each named with O(hostvars_prefix) in front: every field of the API record
    (for an instance: C(id), C(hostname), C(status), C(location), C(instance_type), C(ip),
    C(private_ip), C(cpu), C(gpu), C(memory), C(image), C(os_name), C(price_per_hour), C(is_spot),
    C(contract), C(volume_ids), C(ssh_key_ids), ...; for a jump host the cluster record, with
    C(cluster_type) and C(worker_nodes); for a worker C(id), C(hostname), C(public_ip),
    C(private_ip), C(status) plus C(cluster_id), C(cluster_hostname), C(cluster_type) and
    C(location) of its cluster), C(tags) as a dictionary C({key: value}) (the cluster''s tags for
    a worker), and C(host_kind): V(instance), V(jump_host) or V(worker).'
  - The instance field C(jupyter_token) is a credential, so it is not made a host variable and
    is never written to the inventory cache.
  - 'Everything the API answers is data, never a template: on ansible-core 2.16 to 2.18 the
    plugin marks every host variable unsafe itself (later versions never template plugin data);
    C(ansible-inventory --list) shows such strings as C({"__ansible_unsafe": "..."}).'
  - 'Inventory names are safe to use in host patterns: a name that is reserved (V(all),
    V(ungrouped), V(localhost), V(127.0.0.1), V(::1), C(cloudcompute) or any name starting
    with C(cloudcompute_)) or holds a character other than letters, digits, C(.), C(-) and C(_)
    becomes C(<name>_<id>) (other characters replaced by C(_)), with a warning.'
  - Addresses from the API are used for C(ansible_host) and the workers' C(ProxyJump) only when
    they are an IP address or a host name; a host with any other address is listed without
    connection variables, with a warning (its workers get no C(ProxyJump)).
  - 'With several O(projects), each host also gets C(project) (the project''s O(projects[].name))
    as a host variable and is in the group C(cloudcompute_project_<name>); with one, only the
    variable is set.'
  - 'Default groups: C(cloudcompute) (every host), C(cloudcompute_instances),
    C(cloudcompute_jump_hosts), C(cloudcompute_workers), C(cloudcompute_location_<location>),
    C(cloudcompute_status_<status>), C(cloudcompute_instance_type_<instance type>) (instances)
    and C(cloudcompute_cluster_<cluster hostname>) (a cluster''s jump host and workers). Names
    are lowercased, with any character other than letters, digits and C(_) replaced by C(_),
    for example C(cloudcompute_location_fin_01).'
extends_documentation_fragment:
  - cloudcompute.cloud.common.PLUGIN
  - ansible.builtin.constructed
  - ansible.builtin.inventory_cache
options:
  plugin:
    description:
      - Marks the file as a configuration of this plugin.
    type: str
    required: true
    choices: [cloudcompute.cloud.cloudcompute]
  filters:
    description:
      - Which instances and clusters become hosts. Every given filter must match.
      - A single O(filters.status) and the O(filters.tags) are sent to the API, so it returns
        only the instances that match; the other filters are applied to its answer.
    type: dict
    default: {}
    suboptions:
      status:
        description:
          - Statuses to keep (instances, clusters and workers each by their own status).
          - An empty list keeps every status.
        type: list
        elements: str
        default: [running]
      location:
        description:
          - Location codes to keep, for example V(FIN-01).
        type: list
        elements: str
      instance_type:
        description:
          - Instance types to keep, for example V(1H100.80S.30V). Applies to instances only.
        type: list
        elements: str
      cluster_type:
        description:
          - Cluster types to keep, for example V(16H200). Applies to clusters (their jump host
            and workers) only.
        type: list
        elements: str
      tags:
        description:
          - 'Tags the instance or cluster must carry, as C({key: value}). A null value
            (C(key:) or C(key: ~)) matches any value of the key; V("") matches only a
            freeform tag (one without a value). Keys are compared lowercased, as the API stores
            them.'
        type: dict
  exclude:
    description:
      - Instances and clusters to leave out, even when O(filters) keeps them; a list of filters
        like O(filters) (without defaults), and a host matching every filter of one entry is left
        out.
      - An entry applies to the kinds of hosts all its filters apply to. V(instance_type) applies
        to instances only and V(cluster_type) to clusters only; V(location) and V(tags) to both,
        a cluster's exclusion also excluding its workers; an entry with only V(status) also to
        workers, by their own status.
    type: list
    elements: dict
    default: []
    suboptions:
      status:
        description:
          - Statuses to leave out.
        type: list
        elements: str
      location:
        description:
          - Location codes to leave out.
        type: list
        elements: str
      instance_type:
        description:
          - Instance types to leave out.
        type: list
        elements: str
      cluster_type:
        description:
          - Cluster types to leave out.
        type: list
        elements: str
      tags:
        description:
          - Tags a host must carry to be left out, as in O(filters.tags).
        type: dict
  projects:
    description:
      - Several projects in one inventory, each with its own credential. Each project's hosts
        carry its O(projects[].name) as the host variable C(project) (with O(hostvars_prefix)).
      - Every project is read with the same O(filters) and options; a host whose name is taken
        by a host of another project gets C(_<id>) appended, with a warning.
      - When set, the top-level O(client_id) and O(client_secret) are not used.
    type: list
    elements: dict
    suboptions:
      name:
        description:
          - Name of the project in host variables and groups. Defaults to O(projects[].client_id).
        type: str
      client_id:
        description:
          - Client id of a credential of the project. Templates (lookups, vaulted variables) are allowed.
        type: str
        required: true
      client_secret:
        description:
          - Its client secret. Templates (lookups, vaulted variables) are allowed.
        type: str
        required: true
      api_url:
        description:
          - API URL of the project, if it differs from O(api_url).
        type: str
  include_clusters:
    description:
      - Whether clusters become hosts (their jump host, and their workers unless
        O(include_workers=false)). V(false) also skips the clusters request.
    type: bool
    default: true
  include_workers:
    description:
      - Whether cluster worker nodes become hosts.
    type: bool
    default: true
  connect_with:
    description:
      - Which address of an instance or jump host becomes C(ansible_host).
      - V(public_ip) is the API's C(ip) field, V(private_ip) its C(private_ip),
        V(hostname) its C(hostname).
      - A host without that address is still added, without C(ansible_host) (Ansible then
        connects to its inventory name); a message at C(-v) names such hosts.
    type: str
    choices: [public_ip, private_ip, hostname]
    default: public_ip
  worker_connect_with:
    description:
      - Which address of a worker becomes its C(ansible_host). The connection to it goes
        through the jump host, so this is the address the jump host reaches it at.
      - The API guarantees that the jump host reaches every worker by its V(hostname);
        V(private_ip) avoids relying on name resolution on the jump host.
    type: str
    choices: [hostname, private_ip, public_ip]
    default: hostname
  jump_host_user:
    description:
      - User for the SSH connection to the jump host in the workers' C(ProxyJump).
      - Set it to the empty string to leave the user to SSH (your C(~/.ssh/config), else your
        local user name).
    type: str
    default: root
  jump_host_port:
    description:
      - SSH port of the jump hosts in the workers' C(ProxyJump).
    type: int
    default: 22
  host_keys:
    description:
      - Pin each host's SSH host key to the instance, jump host or worker it belongs to, not to
        its address (see "SSH host keys" in the collection's inventory guide).
      - Each host gets in C(ansible_ssh_common_args) C(HostKeyAlias=cloudcompute-<id>), the
        collection's O(known_hosts) file as C(UserKnownHostsFile), and
        C(StrictHostKeyChecking=accept-new) while no key is pinned for it, C(yes) afterwards.
        A recycled address therefore never conflicts with the key of the instance that had it
        before, and another key for the same instance is refused, naming C(cloudcompute-<id>).
      - Workers reach their jump host through a C(ProxyCommand) whose connection is pinned the
        same way, under the jump host's alias.
      - V(false) leaves host keys to your SSH configuration, and workers get a plain C(ProxyJump).
    type: bool
    default: true
  known_hosts:
    description:
      - The known_hosts file the pinned keys are kept in; your own C(~/.ssh/known_hosts) is never
        read or written.
      - By default C(known_hosts) in the O(token_cache) directory (C(~/.cache/cloudcompute.cloud/tokens)
        when the cache is disabled), with the token cache's rules - missing directories made
        0700, a directory of another user, writable by others or a symbolic link refused.
      - 'Letters, digits and C(. _ / ~ + @ , : = -) only (SSH splits and expands others).'
    type: str
    env:
      - name: CLOUDCOMPUTE_KNOWN_HOSTS
  hostname:
    description:
      - Template for the inventory name of each host, rendered with the host variables this
        plugin sets (so with O(hostvars_prefix)), for example
        V({{ cloudcompute_hostname }}.{{ cloudcompute_location | lower }}).
      - By default the API's C(hostname) is the inventory name. A name already taken by another
        host gets C(_<id>) appended, with a warning.
    type: str
  hostvars_prefix:
    description:
      - Prefix of the host variables made from API fields, so that they never collide with
        Ansible's own variables (the API's C(hostname) becomes C(cloudcompute_hostname)).
      - Letters, digits and C(_), not starting with a digit; may be empty.
    type: str
    default: cloudcompute_
notes:
  - Credentials may be templates (lookups, and variables given as extra vars, for example
    C(-e @vault.yml)) or vault-encrypted values, and are read from the same environment
    variables as the modules. The access token is cached in the same O(token_cache) as the
    modules use.
  - When the API cannot be reached, refuses the credentials or keeps answering 429, the
    inventory fails with one line naming the request and the API's error; so does an answer
    that is not a list of records of the expected shape. If O(cache) is
    enabled and the cached answers are younger than O(cache_timeout), they are used instead,
    with a warning (for example on C(--flush-cache) during an outage).
  - The inventory cache file is written readable by its owner only (mode 0600) by the file-based
    cache plugins.
  - With O(host_keys) (the default) every host's key is pinned to its instance, jump host or
    worker id in the collection's O(known_hosts) file, both hops of a worker included; keep
    Ansible's C(host_key_checking) on. The hop to the jump host authenticates with your SSH
    agent or C(~/.ssh/config) keys.
"""

EXAMPLES = r"""
# cloudcompute.yml: running instances and clusters, credentials from CLOUDCOMPUTE_* variables.
plugin: cloudcompute.cloud.cloudcompute

# Each example below is a file of its own (ansible-core 2.16 reads EXAMPLES as one YAML document).
# prod.cloudcompute.yml: a filtered, cached inventory with extra groups and variables.
# plugin: cloudcompute.cloud.cloudcompute
# api_url: https://api.example.com/v1
# client_id: "{{ lookup('ansible.builtin.env', 'PROD_CLIENT_ID') }}"
# client_secret: "{{ lookup('ansible.builtin.file', '~/.config/cloudcompute/prod-secret') }}"
# filters:
#   status: [running, offline]
#   location: [FIN-01, FIN-03]
#   tags:
#     env: prod
#     gpu:          # any value
# connect_with: public_ip
# jump_host_user: ubuntu
# compose:
#   ansible_user: "'ubuntu'"
#   gpu_count: cloudcompute_gpu.number_of_gpus | default(0)
# groups:
#   gpu_hosts: (cloudcompute_gpu.number_of_gpus | default(0)) > 0
#   spot: cloudcompute_is_spot | default(false)
# keyed_groups:
#   - key: cloudcompute_tags.role | default([])
#     prefix: role
#   - key: cloudcompute_image
#     prefix: image
# cache: true
# cache_plugin: ansible.builtin.jsonfile
# cache_connection: ~/.cache/ansible-inventory
# cache_timeout: 600

# private.cloudcompute.yml: from a controller inside the private network, instances only.
# plugin: cloudcompute.cloud.cloudcompute
# connect_with: private_ip
# include_clusters: false
# hostname: "{{ cloudcompute_hostname }}-{{ cloudcompute_location | lower }}"
# hostvars_prefix: cc_

# projects.cloudcompute.yml: two projects, without their spot and test instances.
# plugin: cloudcompute.cloud.cloudcompute
# projects:
#   - name: training
#     client_id: "{{ lookup('ansible.builtin.env', 'TRAINING_CLIENT_ID') }}"
#     client_secret: "{{ lookup('ansible.builtin.env', 'TRAINING_CLIENT_SECRET') }}"
#   - name: serving
#     client_id: "{{ lookup('ansible.builtin.env', 'SERVING_CLIENT_ID') }}"
#     client_secret: "{{ lookup('ansible.builtin.env', 'SERVING_CLIENT_SECRET') }}"
# exclude:
#   - tags:
#       env: test
#   - location: [FIN-03]
#     instance_type: [CPU.4V.16G]
# keyed_groups:
#   - key: cloudcompute_project
#     prefix: project

# vaulted.cloudcompute.yml: the secret inline, encrypted with ansible-vault encrypt_string.
# plugin: cloudcompute.cloud.cloudcompute
# client_id: cc-3f0c8e
# client_secret: !vault |
#   $ANSIBLE_VAULT;1.1;AES256
#   6238643532316566...
"""

import collections
import functools
import json
import os
import re
import time

import ansible.errors
import ansible.template
from ansible import constants as C
from ansible.errors import AnsibleError, AnsibleParserError
from ansible.plugins.inventory import BaseInventoryPlugin, Cacheable, Constructable
from ansible.utils.display import Display

from ansible_collections.cloudcompute.cloud.plugins.module_utils import _ssh, _tags

display = Display()

CONFIG_SUFFIXES = ("cloudcompute.yml", "cloudcompute.yaml")
ALL_HOSTS_GROUP = "cloudcompute"
# cloudcompute_instances, cloudcompute_jump_hosts, cloudcompute_workers
KIND_GROUPS = {kind: f"{ALL_HOSTS_GROUP}_{kind}s" for kind in ("instance", "jump_host", "worker")}
CREDENTIAL_VARIABLES = {
    "api_url": "CLOUDCOMPUTE_API_URL",
    "client_id": "CLOUDCOMPUTE_CLIENT_ID",
    "client_secret": "CLOUDCOMPUTE_CLIENT_SECRET",
}
PROJECT_OPTIONS = ("name", "api_url", "client_id", "client_secret")
# The connection options that every project shares (the credentials are each project's own).
SHARED_CONNECTION_OPTIONS = ("api_url", "token_cache", "validate_certs", "request_timeout")
LIST_FILTERS = ("status", "location", "instance_type", "cluster_type")
FILTER_NAMES = LIST_FILTERS + ("tags",)
# The filters that apply to each kind of host (a worker's location and tags are its cluster's,
# which the cluster's own filters decide).
KIND_FILTERS = {
    "instance": frozenset(["status", "location", "instance_type", "tags"]),
    "cluster": frozenset(["status", "location", "cluster_type", "tags"]),
    "worker": frozenset(["status"]),
}
DEFAULT_STATUSES = ["running"]
# Fields of the API's records that are secrets rather than facts about a host: never host
# variables, never in the inventory cache.
UNEXPOSED_FIELDS = frozenset(["jupyter_token"])
# API field holding each connect_with address, per kind of host (clusters report no private
# address for their jump host, so private_ip finds none there).
INSTANCE_ADDRESS_FIELDS = {"public_ip": "ip", "private_ip": "private_ip", "hostname": "hostname"}
WORKER_ADDRESS_FIELDS = {"public_ip": "public_ip", "private_ip": "private_ip", "hostname": "hostname"}
# A worker's host variables that come from its cluster: {variable: cluster field}.
WORKER_CLUSTER_FIELDS = {
    "cluster_id": "id",
    "cluster_hostname": "hostname",
    "cluster_type": "cluster_type",
    "location": "location",
}
# Why hosts are listed without connection variables, as said at -v (with the connect option).
NO_ADDRESS = "hosts have no {}, so ansible_host is not set and Ansible connects to their inventory name"
NO_PROXY_JUMP = "workers have no ProxyJump because their jump host has no usable address"
# Fields this plugin reads from every record: each must be a string or null.
TEXT_FIELDS = ("hostname", "status", "location", "instance_type", "cluster_type", "ip", "private_ip", "public_ip")
# What a JSON value is, in messages (bool first: a boolean is also an int in Python).
JSON_TYPES = ((bool, "a boolean"), ((int, float), "a number"), (str, "a string"), (dict, "an object"), (list, "a list"))
# The inventory runs at the start of every playbook and has its cache to fall back on: it
# waits out fewer 429s and transient failures than a module task would.
RATE_LIMIT_RETRIES = 2
TRANSIENT_RETRIES = 2
# Version of the cache entry's layout; an entry of another version is fetched anew.
CACHE_FORMAT = 2
CACHE_FILE_MODE = 0o600
VARIABLE_PREFIX = re.compile(r"^([A-Za-z_][A-Za-z0-9_]*)?$")
GROUP_NAME_UNSAFE = re.compile(r"[^a-z0-9_]")
# An inventory host name that host patterns, group/host files and SSH take literally: no
# spaces, pattern operators (, : ! & * ? ~ [ ]), template or shell characters.
HOST_NAME_SAFE = re.compile(r"^[A-Za-z0-9_][A-Za-z0-9_.-]*$")
HOST_NAME_UNSAFE_CHARACTER = re.compile(r"[^A-Za-z0-9_.-]")
# Names Ansible gives a meaning of its own (the implicit localhost and its groups), and this
# plugin's group of all its hosts (the names of its other groups start with it and "_").
RESERVED_HOST_NAMES = frozenset(["all", "ungrouped", ALL_HOSTS_GROUP]) | frozenset(C.LOCALHOST)
MAX_NAMES_IN_A_MESSAGE = 10
# ansible-core 2.19 and later never template data from plugins unless it is marked trusted;
# older versions template any string that is not wrapped as unsafe.
API_DATA_TEMPLATED = not hasattr(ansible.template, "trust_as_template")
if API_DATA_TEMPLATED:
    from ansible.utils.unsafe_proxy import wrap_var
# A required option not set: its own error class from ansible-core 2.19 on (isinstance of an
# empty tuple is false), before that a plain AnsibleError with this text.
REQUIRED_OPTION_ERROR = getattr(ansible.errors, "AnsibleRequiredOptionError", ())
MISSING_OPTION_TEXT = "No setting was provided for required configuration"


class FetchFailed(Exception):
    """The API could not be read (its error, described in one line)."""


class Criteria:
    """One set of filters (``filters``, or an entry of ``exclude``): what each kind of host
    must match. ``defaults`` are the values of filters not given."""

    def __init__(self, spec, option, defaults=None):
        _refuse_unknown_keys(spec, option, FILTER_NAMES, lambda names: f"unknown {option} {names}")
        spec = dict(defaults or {}, **spec)
        values = {name: _string_set(spec.get(name), f"{option}.{name}") for name in LIST_FILTERS}
        tags = spec.get("tags") or {}
        if not isinstance(tags, dict):
            raise AnsibleParserError(
                f"cloudcompute inventory: {option}.tags must be a dictionary {{key: value}}, got {tags!r}"
            )
        values["tags"] = _tags.normalize_tag_filter(tags)
        # The filters given: an empty list of values filters nothing.
        self.values = {name: wanted for name, wanted in values.items() if wanted}

    def instance_query(self):
        """Query parameters of GET /instances: what the API can filter itself."""
        query = {}
        statuses = self.values.get("status", ())
        if len(statuses) == 1:
            query["status"] = next(iter(statuses))
        if "tags" in self.values:
            query["tag"] = _tags.tag_filter_query(self.values["tags"])
        return query

    def keeps(self, record, kind):
        """Does the record match every filter given that applies to its kind?"""
        return all(self._matches(record, name) for name in self.values.keys() & KIND_FILTERS[kind])

    def excludes(self, record, kind):
        """Does the record match this exclusion: every filter given applies to its kind and matches?"""
        return self.values.keys() <= KIND_FILTERS[kind] and self.keeps(record, kind)

    def _matches(self, record, name):
        if name == "tags":
            return _tags.matches_tag_filter(record, self.values["tags"])
        return record.get(name) in self.values[name]


class Selection:
    """The ``filters`` and ``exclude`` options: which records become hosts."""

    def __init__(self, filters, exclude):
        self.filters = Criteria(filters, "filters", {"status": DEFAULT_STATUSES})
        # Ansible refuses an exclude that is not a list (the option's type); its entries are not checked.
        self.exclusions = [Criteria(entry, f"exclude[{index}]") for index, entry in enumerate(exclude)]
        for index, exclusion in enumerate(self.exclusions):
            if not exclusion.values:
                raise AnsibleParserError(
                    f"cloudcompute inventory: exclude[{index}] gives no filter, so it would exclude every host"
                )

    def keeps(self, record, kind):
        return self.filters.keeps(record, kind) and not any(
            exclusion.excludes(record, kind) for exclusion in self.exclusions
        )


class InventoryModule(BaseInventoryPlugin, Constructable, Cacheable):
    NAME = "cloudcompute.cloud.cloudcompute"

    def verify_file(self, path):
        return super().verify_file(path) and path.endswith(CONFIG_SUFFIXES)

    def parse(self, inventory, loader, path, cache=True):
        super().parse(inventory, loader, path, cache)
        try:
            self._read_config_data(path)
        except AnsibleError as error:
            if not isinstance(error, REQUIRED_OPTION_ERROR) and MISSING_OPTION_TEXT not in str(error.message):
                raise
            # Ansible names the option; add where else it can come from.
            variables = ", ".join(CREDENTIAL_VARIABLES.values())
            raise AnsibleParserError(
                f"cloudcompute inventory: {error.message} Set it in {path} or in the environment ({variables})."
            )
        self.prefix = self.get_option("hostvars_prefix") or ""
        if not VARIABLE_PREFIX.match(self.prefix):
            raise AnsibleParserError(
                f"cloudcompute inventory: hostvars_prefix {self.prefix!r} is not the start of a variable name "
                "(letters, digits and _, not starting with a digit)"
            )
        try:
            _ssh.check_user(self.get_option("jump_host_user"))
            _ssh.check_port(self.get_option("jump_host_port"))
        except _ssh.SshValueError as error:
            raise AnsibleParserError(f"cloudcompute inventory: {error}")
        self.selection = Selection(self.get_option("filters"), self.get_option("exclude") or [])
        self._populate(self._load_listing(path, use_cache=cache))

    def update_cache_if_changed(self):
        """Write the inventory cache readable by its owner only, whatever the umask: it lists the
        project's hosts and addresses."""
        previous_umask = os.umask(0o077)
        try:
            super().update_cache_if_changed()
        finally:
            os.umask(previous_umask)
        # ansible-core 2.21 makes the file 0644 explicitly (and a file written before keeps its
        # mode): set it afterwards. File-based cache plugins name the file after the key, with
        # their prefix and, on recent versions, a schema version in front.
        cache_directory = getattr(getattr(self._cache, "_plugin", None), "_cache_dir", None)
        if self.cache_key and cache_directory and os.path.isdir(cache_directory):
            for name in os.listdir(cache_directory):
                if name.endswith(self.cache_key):
                    os.chmod(os.path.join(cache_directory, name), CACHE_FILE_MODE)

    # ------------------------------------------------------------------- API and cache

    def _templated(self, value):
        """An option value, templated: lookups, vaulted values and extra vars work."""
        if value is None or isinstance(value, (bool, int, float)):
            return value
        if self.templar.is_template(value):
            self.templar.available_variables = self._vars
            value = self.templar.template(value)
        # str() also decrypts a vault-encrypted value.
        return str(value)

    def _connections(self):
        """(name, connection options) of each project: ``projects``, else the top-level credentials."""
        projects = self.get_option("projects")
        if not projects:
            return [self._connection({name: self.get_option(name) for name in ("client_id", "client_secret")}, None)]
        connections = [self._connection(project, f"projects[{index}]") for index, project in enumerate(projects)]
        names = [name for name, _connection in connections]
        if len(set(names)) != len(names):
            raise AnsibleParserError(
                f"cloudcompute inventory: projects must have different names (or client ids): {', '.join(names)}"
            )
        return connections

    def _connection(self, project, where):
        """(name, connection options) of one project; ``where`` names its entry of ``projects``
        (None: the top-level credentials)."""
        _refuse_unknown_keys(project, where, PROJECT_OPTIONS, lambda names: f"unknown options {names} in {where}")
        connection = {name: self._templated(self.get_option(name)) for name in SHARED_CONNECTION_OPTIONS}
        connection.update(
            (name, self._templated(value)) for name, value in project.items() if name != "name" and value is not None
        )
        missing = [name for name in CREDENTIAL_VARIABLES if not connection.get(name)]
        if missing and where:
            raise AnsibleParserError("cloudcompute inventory: {} has no {}".format(where, " and no ".join(missing)))
        if missing:
            variables = ", ".join(CREDENTIAL_VARIABLES[name] for name in missing)
            raise AnsibleParserError(
                f"cloudcompute inventory: {' and '.join(missing)} empty (set in the configuration file or as {variables})"
            )
        connection["api_url"] = connection["api_url"].rstrip("/")
        return str(project.get("name") or connection["client_id"]), connection

    def _load_listing(self, path, use_cache):
        """The API's answers per project: from the cache when it holds fresh ones for this
        query, else fetched."""
        connections = self._connections()
        self.several_projects = len(connections) > 1
        # What the cached answers depend on: another project, credential or API-side filter
        # makes them a different listing.
        source = {
            "projects": [[name, connection["api_url"], connection["client_id"]] for name, connection in connections],
            "instances_query": self.selection.filters.instance_query(),
            "clusters": bool(self.get_option("include_clusters")),
        }
        self.cache_key = self.get_cache_key(path) if self.get_option("cache") else None
        cached = self._fresh_cache_entry(source) if self.cache_key else None
        if cached is not None and use_cache:
            display.vvv(f"cloudcompute inventory: using the cached API answers from {_age(cached)}")
            return decode_listing(cached, self.several_projects)
        try:
            fetched = self._fetch(connections, source)
        except FetchFailed as failure:
            if cached is None:
                raise AnsibleParserError(f"cloudcompute inventory: {failure}")
            display.warning(f"cloudcompute inventory: {failure}; using the cached API answers from {_age(cached)}")
            return decode_listing(cached, self.several_projects)
        listing = decode_listing(fetched, self.several_projects)
        if self.cache_key:
            self._cache[self.cache_key] = fetched
        return listing

    def _fresh_cache_entry(self, source):
        entry = self._cache.get(self.cache_key)
        if not isinstance(entry, dict) or entry.get("format") != CACHE_FORMAT or entry.get("source") != source:
            return None
        # Count the age from the fetch itself, whatever the cache plugin's own idea of expiry is
        # (a file's mtime, a backend TTL, or none for the memory plugin).
        timeout = self.get_option("cache_timeout")
        if timeout and time.time() - entry.get("fetched_at", 0) > timeout:
            return None
        return entry

    def _fetch(self, connections, source):
        # Imported here, not at the top: a load served from the cache needs no HTTP stack, and
        # importing requests costs a tenth of a second or more.
        from ansible_collections.cloudcompute.cloud.plugins.module_utils import _api

        if not _api.HAS_REQUESTS:
            raise AnsibleParserError(
                f"cloudcompute inventory: the requests Python library is required on the controller: {_api.REQUESTS_IMPORT_ERROR}"
            )
        started = time.time()
        projects = []
        stats = collections.Counter()
        for name, connection in connections:
            client = _api.ApiClient(
                max_rate_limit_retries=RATE_LIMIT_RETRIES, max_transient_retries=TRANSIENT_RETRIES, **connection
            )
            # The API's answers are kept as the text it sent: the cache stores and reloads one
            # string per list instead of tens of thousands of objects, and decoding happens once.
            try:
                instances = client.get_text("/instances", params=source["instances_query"])
                clusters = client.get_text("/clusters") if source["clusters"] else "[]"
            except _api.ApiError as error:
                raise FetchFailed(f"project {name}: {error}" if self.several_projects else str(error))
            for note in client.notes:
                display.vvv(f"cloudcompute inventory: {note}")
            stats.update(client.stats)
            projects.append({"name": name, "instances": without_secrets(instances), "clusters": clusters})
        display.vv(
            "cloudcompute inventory: %d API requests (%d token exchanges) in %.2f s"
            % (stats["requests"], stats["token_requests"], time.time() - started)
        )
        return {"format": CACHE_FORMAT, "fetched_at": time.time(), "source": source, "projects": projects}

    # --------------------------------------------------------------------------- hosts

    def _populate(self, listing):
        self.names_taken = set()
        # Hosts kept without ansible_host (by connect option) or without a way through their
        # jump host, by reason: named once, at -v, rather than dropped.
        self.unaddressed = collections.defaultdict(list)
        connect_with = self.get_option("connect_with")
        worker_connect_with = self.get_option("worker_connect_with")
        # Per kind of host: the connect option (as messages name it) and the API field it reads.
        self.address_fields = {
            "instance": (connect_with, INSTANCE_ADDRESS_FIELDS[connect_with]),
            "jump_host": (connect_with, INSTANCE_ADDRESS_FIELDS[connect_with]),
            "worker": ("worker " + worker_connect_with, WORKER_ADDRESS_FIELDS[worker_connect_with]),
        }
        self.known_hosts = self._known_hosts() if self.get_option("host_keys") else None
        hosts = []
        # The clusters answer is empty with include_clusters=false: it was not requested.
        for project, instances, clusters in listing:
            for instance in instances:
                if self.selection.keeps(instance, "instance"):
                    hosts.append(self._host(instance, project, "instance"))
            for cluster in clusters:
                if self.selection.keeps(cluster, "cluster"):
                    hosts.extend(self._cluster_hosts(cluster, project))
        self._add_to_inventory(hosts)
        for reason, names in sorted(self.unaddressed.items()):
            display.v("cloudcompute inventory: %d %s: %s" % (len(names), reason, _some(names)))

    def _cluster_hosts(self, cluster, project):
        """The cluster's jump host and (unless include_workers is false) its workers, reached
        through the jump host."""
        jump_host = self._host(cluster, project, "jump_host")
        hosts = [jump_host]
        if not self.get_option("include_workers"):
            return hosts
        proxy_jump = self._proxy_jump_argument(jump_host[1].get("ansible_host"), cluster)
        for worker in cluster.get("worker_nodes") or ():
            if self.selection.keeps(worker, "worker"):
                name, hostvars, _groups = worker_host = self._host(worker, project, "worker", cluster)
                if not proxy_jump:
                    self.unaddressed[NO_PROXY_JUMP].append(name)
                elif "ansible_host" in hostvars:  # a worker at an unusable address gets no connection variables
                    pinned = hostvars.get("ansible_ssh_common_args")
                    hostvars["ansible_ssh_common_args"] = f"{pinned} {proxy_jump}" if pinned else proxy_jump
                hosts.append(worker_host)
        return hosts

    def _host(self, record, project, kind, cluster=None):
        """(inventory name, host variables, default groups) of an instance, a cluster's jump host
        (the cluster's record) or a worker of ``cluster``: the record's API fields as host
        variables, grouped by kind, location, status and instance type or cluster."""
        owner = record if cluster is None else cluster  # whose location, tags and cluster these are
        variables = {key: value for key, value in record.items() if key not in UNEXPOSED_FIELDS}
        if cluster is not None:
            variables.update((name, cluster.get(field)) for name, field in WORKER_CLUSTER_FIELDS.items())
        variables.update(tags=_tags.current_tags(owner), host_kind=kind, project=project)
        hostvars = {self.prefix + name: value for name, value in variables.items()}
        groups = [
            KIND_GROUPS[kind],
            group_name("location", owner.get("location")),
            group_name("status", record.get("status")),
            group_name("instance_type", record.get("instance_type"))
            if kind == "instance"
            else group_name("cluster", owner.get("hostname")),
        ]
        if self.several_projects:
            groups.append(group_name("project", project))
        if API_DATA_TEMPLATED:
            # Every value came from the API: mark it unsafe, so that nothing in it is ever
            # templated (the hostname option and the constructed options template over them).
            hostvars = wrap_var(hostvars)
        connect_with, address_field = self.address_fields[kind]
        address = usable_address(record, record.get(address_field), connect_with)
        if address:
            hostvars["ansible_host"] = address
            pinned = self._host_key_options(record)
            if pinned:
                hostvars["ansible_ssh_common_args"] = _ssh.ssh_options_argument(pinned)
                hostvars[self.prefix + "host_key_alias"] = _ssh.host_key_alias(record["id"])
        name = self._inventory_name(record, hostvars)
        if not address:
            self.unaddressed[NO_ADDRESS.format(connect_with)].append(name)
        return name, hostvars, groups

    def _inventory_name(self, record, hostvars):
        template = self.get_option("hostname")
        name = record.get("hostname")
        if template:
            self.templar.available_variables = hostvars
            try:
                name = self.templar.template(template)
            except Exception as error:
                raise AnsibleParserError(
                    "cloudcompute inventory: the hostname template failed for {}: {}".format(record["id"], error)
                )
        name = str(name or record["id"])
        if not HOST_NAME_SAFE.match(name) or name in RESERVED_HOST_NAMES or name.startswith(ALL_HOSTS_GROUP + "_"):
            reason = f"{name!r} is reserved by Ansible or this plugin or is not a valid inventory host name"
            name = _renamed(name, record["id"], reason)
        if name in self.names_taken:
            name = _renamed(name, record["id"], f"the name {name} is taken by another host")
        self.names_taken.add(name)
        return name

    def _proxy_jump_argument(self, address, cluster):
        """SSH arguments that reach a worker through the jump host of ``cluster`` at ``address``
        (None when it has no usable address), checked and quoted as the roles' are (``_ssh``):
        a ProxyCommand pinned to the jump host's key, or a plain ProxyJump without host_keys."""
        if not address:
            return None
        user, port = self.get_option("jump_host_user"), self.get_option("jump_host_port")
        jump_options = self._host_key_options(cluster)
        if jump_options:
            return _ssh.proxy_command_argument(address, user, port, jump_options)
        return _ssh.proxy_jump_argument(address, user, port)

    def _known_hosts(self):
        """The collection's known_hosts file (created 0600 in a private directory) and the
        aliases pinned in it: (path, aliases)."""
        from ansible_collections.cloudcompute.cloud.plugins.module_utils import _api_errors, _locks

        try:
            path = _ssh.known_hosts_path(
                self.get_option("known_hosts"), self._templated(self.get_option("token_cache"))
            )
            _locks.ensure_private_directory(os.path.dirname(path))
            os.close(_locks.open_private_file(path))
        except (_ssh.SshValueError, _api_errors.LocalRefusal) as error:
            raise AnsibleParserError(f"cloudcompute inventory: {error}")
        return path, _ssh.known_aliases(path)

    def _host_key_options(self, record):
        """The ssh options that pin the key of the host with ``record``'s id (None without host_keys)."""
        if not self.known_hosts:
            return None
        path, known = self.known_hosts
        try:
            alias = _ssh.host_key_alias(record["id"])
        except _ssh.SshValueError as error:
            display.warning(f"cloudcompute inventory: {error}; its host key is left to your SSH configuration")
            return None
        return _ssh.host_key_options(alias, path, alias in known)

    def _add_to_inventory(self, hosts):
        inventory = self.inventory
        inventory.add_group(ALL_HOSTS_GROUP)
        for group in sorted(set(group for _name, _vars, groups in hosts for group in groups)):
            inventory.add_group(group)
        strict = self.get_option("strict")
        compose = self.get_option("compose")
        composed_groups = self.get_option("groups")
        keyed_groups = self.get_option("keyed_groups")
        for name, hostvars, groups in hosts:
            self._populate_host_vars([name], hostvars, group=ALL_HOSTS_GROUP)
            for group in groups:
                inventory.add_child(group, name)
            # The constructed options template per host; Ansible's helpers return at once when
            # theirs is empty, but compose's variables would be gathered first.
            if compose:
                self._set_composite_vars(compose, inventory.get_host(name).get_vars(), name, strict=strict)
            self._add_host_to_composed_groups(composed_groups, hostvars, name, strict=strict)
            self._add_host_to_keyed_groups(keyed_groups, hostvars, name, strict=strict)


def without_secrets(instances_text):
    """The instances answer without the fields that are secrets, so that the inventory cache
    never stores them. The text is kept verbatim when it holds none (the usual case for a
    project without Jupyter)."""
    if not any(field in instances_text for field in UNEXPOSED_FIELDS):
        return instances_text
    try:
        instances = json.loads(instances_text)
    except ValueError:
        return instances_text  # refused by decode_listing with the API's own text
    if isinstance(instances, list):
        for instance in instances:
            if isinstance(instance, dict):
                for field in UNEXPOSED_FIELDS:
                    instance.pop(field, None)
    return json.dumps(instances)


def decode_listing(entry, several):
    """[(project, instances, clusters)] from the API's answers as stored by ``_fetch``; ``several``:
    whether there are several projects, named in messages."""
    return [
        (project["name"], decoded_answer(project, "instances", several), decoded_answer(project, "clusters", several))
        for project in entry["projects"]
    ]


def decoded_answer(project, key, several_projects):
    """One stored answer decoded, each record (and each worker of a cluster) checked to have the
    shape this plugin reads."""
    request = f"GET /{key}"
    if several_projects:
        request += " (project {})".format(project["name"])
    try:
        records = json.loads(project[key])
    except ValueError as error:
        raise AnsibleParserError(f"cloudcompute inventory: the API's answer to {request} is not JSON: {error}")
    check_records(records, request)
    for cluster in records if key == "clusters" else ():
        check_records(
            cluster.get("worker_nodes") or [], "{} (worker_nodes of cluster {})".format(request, cluster["id"])
        )
    return records


def check_records(items, request):
    """Refuse, with a message naming the request, an answer that is not a list of records with
    an id and text (or null) in each field this plugin reads."""
    if not isinstance(items, list):
        raise AnsibleParserError(
            f"cloudcompute inventory: the API answered {_json_type(items)} to {request} where a list of objects was expected"
        )
    for index, item in enumerate(items):
        if not isinstance(item, dict):
            raise AnsibleParserError(
                f"cloudcompute inventory: the API answered {_json_type(item)} as element {index} of {request} "
                "where a list of objects was expected"
            )
        problem = _record_problem(item)
        if problem:
            raise AnsibleParserError(
                f"cloudcompute inventory: the API answered a record with {problem} as element {index} of {request}"
            )


def _record_problem(record):
    """What makes the record unreadable, described (None: nothing)."""
    if not isinstance(record.get("id"), str) or not record["id"]:
        return "an id of {}".format(_json_type(record.get("id")))
    for field in TEXT_FIELDS:
        if not _is_a(record.get(field), str):
            return f"{field} {_json_type(record[field])}"
    tags = record.get("tags")
    if not _is_a(tags, list) or not all(_is_tag(tag) for tag in tags or ()):
        return "tags that are not a list of {key, value} objects"
    if not _is_a(record.get("worker_nodes"), list):
        return "worker_nodes of {}".format(_json_type(record["worker_nodes"]))
    return None


def _is_tag(tag):
    return isinstance(tag, dict) and isinstance(tag.get("key"), str) and _is_a(tag.get("value"), str)


def usable_address(record, address, connect_with):
    """The address when it is a DNS host name or an IP address (the check the roles share,
    ``_ssh.usable_address``), so nothing else can reach SSH with it; otherwise None, with a warning."""
    if not address or _ssh.usable_address(address):
        return address
    display.warning(
        f"cloudcompute inventory: the {connect_with} of {record['id']} is {address!r}, neither an IP address "
        "nor a host name; the host is listed without connection variables"
    )
    return None


def _renamed(name, record_id, reason):
    """``<name>_<id>``, with every character a host name cannot hold replaced by ``_``: the host's
    name made safe and unique, with a warning giving the reason."""
    safe = HOST_NAME_UNSAFE_CHARACTER.sub("_", f"{name.lstrip('.-')}_{record_id}").lstrip("_") or "host"
    display.warning(f"cloudcompute inventory: {reason}; {record_id} is named {safe}")
    return safe


# Thousands of hosts share a handful of values: each group is named once.
@functools.lru_cache(maxsize=1024)
def group_name(category, value):
    """``cloudcompute_<category>_<value>`` as a safe group name."""
    return GROUP_NAME_UNSAFE.sub("_", (f"{ALL_HOSTS_GROUP}_{category}_{value}").lower())


def _refuse_unknown_keys(value, option, known, describe_unknown):
    """Refuse a dictionary option that is no dictionary or has keys that are not ``known``
    (``describe_unknown(names)`` says so)."""
    if not isinstance(value, dict):
        raise AnsibleParserError(f"cloudcompute inventory: {option} must be a dictionary, got {value!r}")
    unknown = sorted(str(name) for name in set(value) - set(known))
    if unknown:
        raise AnsibleParserError(
            f"cloudcompute inventory: {describe_unknown(', '.join(unknown))} (known: {', '.join(known)})"
        )


def _is_a(value, kind):
    """Is the value of that type, or null?"""
    return value is None or isinstance(value, kind)


def _json_type(value):
    if value is None:
        return "null"
    return next(name for kind, name in JSON_TYPES if isinstance(value, kind))


def _string_set(value, name):
    if value is None:
        return frozenset()
    if isinstance(value, str):
        value = [value]
    if not isinstance(value, list) or not all(isinstance(item, str) for item in value):
        raise AnsibleParserError(f"cloudcompute inventory: {name} must be a string or a list of strings, got {value!r}")
    return frozenset(value)


def _age(entry):
    return "%d s ago" % max(0, time.time() - entry.get("fetched_at", 0))


def _some(names):
    shown = ", ".join(names[:MAX_NAMES_IN_A_MESSAGE])
    unshown = len(names) - MAX_NAMES_IN_A_MESSAGE
    return "%s and %d more" % (shown, unshown) if unshown > 0 else shown
