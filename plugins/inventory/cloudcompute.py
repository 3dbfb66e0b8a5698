# -*- coding: utf-8 -*-
# Copyright: cloudcompute.cloud contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)

from __future__ import absolute_import, division, print_function

__metaclass__ = type

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
    C(ansible_ssh_common_args) with an SSH C(ProxyJump) through its jump host, so
    C(ansible -m ping) on a worker works without any hand-written SSH configuration.
  - Every refresh makes one request for the instances and one for the clusters (none with
    O(include_clusters=false)), however many hosts there are, plus a token exchange when the
    token cache shared with the modules holds no valid token. With O(cache) enabled, a load within O(cache_timeout) makes no request at
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
  - The instance field C(jupyter_token) is a credential and is not made a host variable.
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
    inventory fails with one line naming the request and the API's error. If O(cache) is
    enabled and the cached answers are younger than O(cache_timeout), they are used instead,
    with a warning (for example on C(--flush-cache) during an outage).
  - The C(ProxyJump) connection to the jump host takes its options from your SSH client
    configuration and C(known_hosts), not from Ansible's command line; keep the jump hosts'
    keys in C(known_hosts) (or configure them in C(~/.ssh/config)).
"""

EXAMPLES = r"""
# cloudcompute.yml: running instances and clusters, credentials from CLOUDCOMPUTE_* variables.
plugin: cloudcompute.cloud.cloudcompute

---
# prod.cloudcompute.yml: a filtered, cached inventory with extra groups and variables.
plugin: cloudcompute.cloud.cloudcompute
api_url: https://api.example.com/v1
client_id: "{{ lookup('ansible.builtin.env', 'PROD_CLIENT_ID') }}"
client_secret: "{{ lookup('ansible.builtin.file', '~/.config/cloudcompute/prod-secret') }}"
filters:
  status: [running, offline]
  location: [FIN-01, FIN-03]
  tags:
    env: prod
    gpu:          # any value
connect_with: public_ip
jump_host_user: ubuntu
compose:
  ansible_user: "'ubuntu'"
  gpu_count: cloudcompute_gpu.number_of_gpus | default(0)
groups:
  gpu_hosts: (cloudcompute_gpu.number_of_gpus | default(0)) > 0
  spot: cloudcompute_is_spot | default(false)
keyed_groups:
  - key: cloudcompute_tags.role | default(omit)
    prefix: role
  - key: cloudcompute_image
    prefix: image
cache: true
cache_plugin: ansible.builtin.jsonfile
cache_connection: ~/.cache/ansible-inventory
cache_timeout: 600

---
# private.cloudcompute.yml: from a controller inside the private network, instances only.
plugin: cloudcompute.cloud.cloudcompute
connect_with: private_ip
include_clusters: false
hostname: "{{ cloudcompute_hostname }}-{{ cloudcompute_location | lower }}"
hostvars_prefix: cc_

---
# vaulted.cloudcompute.yml: the secret inline, encrypted with ansible-vault encrypt_string.
plugin: cloudcompute.cloud.cloudcompute
client_id: cc-3f0c8e
client_secret: !vault |
  $ANSIBLE_VAULT;1.1;AES256
  6238643532316566...
"""

import json
import re
import time

from ansible.errors import AnsibleParserError, AnsibleRequiredOptionError
from ansible.plugins.inventory import BaseInventoryPlugin, Cacheable, Constructable
from ansible.utils.display import Display

display = Display()

CONFIG_SUFFIXES = ("cloudcompute.yml", "cloudcompute.yaml")
ALL_HOSTS_GROUP = "cloudcompute"
KIND_GROUPS = {"instance": "cloudcompute_instances", "jump_host": "cloudcompute_jump_hosts", "worker": "cloudcompute_workers"}
CREDENTIAL_VARIABLES = {"api_url": "CLOUDCOMPUTE_API_URL", "client_id": "CLOUDCOMPUTE_CLIENT_ID",
                        "client_secret": "CLOUDCOMPUTE_CLIENT_SECRET"}
FILTER_NAMES = ("status", "location", "instance_type", "cluster_type", "tags")
DEFAULT_STATUSES = ["running"]
# Fields of the API's records that are secrets rather than facts about a host.
UNEXPOSED_FIELDS = frozenset(["jupyter_token"])
# API field holding each connect_with address, per kind of host (clusters report no private
# address for their jump host, so private_ip finds none there).
INSTANCE_ADDRESS_FIELDS = {"public_ip": "ip", "private_ip": "private_ip", "hostname": "hostname"}
WORKER_ADDRESS_FIELDS = {"public_ip": "public_ip", "private_ip": "private_ip", "hostname": "hostname"}
# The inventory runs at the start of every playbook and has its cache to fall back on: it
# waits out fewer 429s and transient failures than a module task would.
RATE_LIMIT_RETRIES = 2
TRANSIENT_RETRIES = 2
# Version of the cache entry's layout; an entry of another version is fetched anew.
CACHE_FORMAT = 1
VARIABLE_PREFIX = re.compile(r"^([A-Za-z_][A-Za-z0-9_]*)?$")
GROUP_NAME_UNSAFE = re.compile(r"[^a-z0-9_]")
MAX_NAMES_IN_A_MESSAGE = 10


class FetchFailed(Exception):
    """The API could not be read (its error, described in one line)."""


class Selection:
    """The ``filters`` option: what the API is asked for, and what is kept of its answer."""

    def __init__(self, filters):
        if not isinstance(filters, dict):
            raise AnsibleParserError("cloudcompute inventory: filters must be a dictionary, got %r" % (filters,))
        unknown = sorted(set(filters) - set(FILTER_NAMES))
        if unknown:
            raise AnsibleParserError("cloudcompute inventory: unknown filters %s (known: %s)"
                                     % (", ".join(unknown), ", ".join(FILTER_NAMES)))
        self.statuses = _string_set(filters.get("status", DEFAULT_STATUSES), "status")
        self.locations = _string_set(filters.get("location"), "location")
        self.instance_types = _string_set(filters.get("instance_type"), "instance_type")
        self.cluster_types = _string_set(filters.get("cluster_type"), "cluster_type")
        tags = filters.get("tags") or {}
        if not isinstance(tags, dict):
            raise AnsibleParserError("cloudcompute inventory: filters.tags must be a dictionary {key: value}, got %r" % (tags,))
        self.tags = sorted((str(key).strip().lower(), None if value is None else str(value)) for key, value in tags.items())

    def instance_query(self):
        """Query parameters of GET /instances: what the API can filter itself."""
        query = {}
        if len(self.statuses) == 1:
            query["status"] = next(iter(self.statuses))
        if self.tags:
            query["tag"] = [key if value is None else "%s=%s" % (key, value) for key, value in self.tags]
        return query

    def keeps_instance(self, instance):
        return (self._keeps_status(instance)
                and (not self.locations or instance.get("location") in self.locations)
                and (not self.instance_types or instance.get("instance_type") in self.instance_types)
                and self._keeps_tags(instance))

    def keeps_cluster(self, cluster):
        return (self._keeps_status(cluster)
                and (not self.locations or cluster.get("location") in self.locations)
                and (not self.cluster_types or cluster.get("cluster_type") in self.cluster_types)
                and self._keeps_tags(cluster))

    def keeps_worker(self, worker):
        return self._keeps_status(worker)

    def _keeps_status(self, record):
        return not self.statuses or record.get("status") in self.statuses

    def _keeps_tags(self, record):
        # The API filters instances by tag already; clusters have no tag filter in the API.
        if not self.tags:
            return True
        present = tags_dict(record.get("tags"))
        return all(key in present if value is None else present.get(key) == value for key, value in self.tags)


class InventoryModule(BaseInventoryPlugin, Constructable, Cacheable):

    NAME = "cloudcompute.cloud.cloudcompute"

    def verify_file(self, path):
        return super(InventoryModule, self).verify_file(path) and path.endswith(CONFIG_SUFFIXES)

    def parse(self, inventory, loader, path, cache=True):
        super(InventoryModule, self).parse(inventory, loader, path, cache)
        try:
            self._read_config_data(path)
        except AnsibleRequiredOptionError as error:
            # Ansible names the option; add where else it can come from.
            raise AnsibleParserError("cloudcompute inventory: %s Set it in %s or in the environment (%s)."
                                     % (error.message, path, ", ".join(CREDENTIAL_VARIABLES.values())))
        prefix = self.get_option("hostvars_prefix") or ""
        if not VARIABLE_PREFIX.match(prefix):
            raise AnsibleParserError("cloudcompute inventory: hostvars_prefix %r is not the start of a variable name "
                                     "(letters, digits and _, not starting with a digit)" % prefix)
        self.prefix = prefix
        self.selection = Selection(self.get_option("filters"))
        listing = self._load_listing(path, use_cache=cache)
        self._populate(listing)

    # ------------------------------------------------------------------- API and cache

    def _connection(self):
        """The connection options, templated: lookups, vaulted values and extra vars work."""
        options = {}
        for name in ("api_url", "client_id", "client_secret", "token_cache"):
            value = self.get_option(name)
            if value is not None and not isinstance(value, (bool, int, float)):
                if self.templar.is_template(value):
                    self.templar.available_variables = self._vars
                    value = self.templar.template(value)
                # str() also decrypts a vault-encrypted value.
                value = str(value)
            options[name] = value
        missing = [name for name in CREDENTIAL_VARIABLES if not options[name]]
        if missing:
            raise AnsibleParserError("cloudcompute inventory: %s empty (set in the configuration file or as %s)"
                                     % (" and ".join(missing), ", ".join(CREDENTIAL_VARIABLES[name] for name in missing)))
        options["api_url"] = options["api_url"].rstrip("/")
        options["validate_certs"] = self.get_option("validate_certs")
        options["request_timeout"] = self.get_option("request_timeout")
        return options

    def _load_listing(self, path, use_cache):
        """The API's answers: from the cache when it holds fresh ones for this query, else fetched."""
        connection = self._connection()
        # What the cached answers depend on: another project, credential or API-side filter
        # makes them a different listing.
        source = {
            "api_url": connection["api_url"],
            "client_id": connection["client_id"],
            "instances_query": self.selection.instance_query(),
            "clusters": bool(self.get_option("include_clusters")),
        }
        caching = bool(self.get_option("cache"))
        cache_key = self.get_cache_key(path) if caching else None
        cached = self._fresh_cache_entry(cache_key, source) if caching else None
        if cached is not None and use_cache:
            display.vvv("cloudcompute inventory: using the cached API answers from %s" % _age(cached))
            return decode_listing(cached)
        try:
            fetched = self._fetch(connection, source)
        except FetchFailed as failure:
            if cached is None:
                raise AnsibleParserError("cloudcompute inventory: %s" % failure)
            display.warning("cloudcompute inventory: %s; using the cached API answers from %s" % (failure, _age(cached)))
            return decode_listing(cached)
        if caching:
            self._cache[cache_key] = fetched
        return decode_listing(fetched)

    def _fresh_cache_entry(self, cache_key, source):
        try:
            entry = self._cache[cache_key]
        except KeyError:
            return None
        if not isinstance(entry, dict) or entry.get("format") != CACHE_FORMAT or entry.get("source") != source:
            return None
        # Count the age from the fetch itself, whatever the cache plugin's own idea of expiry is
        # (a file's mtime, a backend TTL, or none for the memory plugin).
        timeout = self.get_option("cache_timeout")
        if timeout and time.time() - entry.get("fetched_at", 0) > timeout:
            return None
        return entry

    def _fetch(self, connection, source):
        # Imported here, not at the top: a load served from the cache needs no HTTP stack, and
        # importing requests costs a tenth of a second or more.
        from ansible_collections.cloudcompute.cloud.plugins.module_utils import _api

        if not _api.HAS_REQUESTS:
            raise AnsibleParserError("cloudcompute inventory: the requests Python library is required on the controller: %s"
                                     % _api.REQUESTS_IMPORT_ERROR)
        client = _api.ApiClient(max_rate_limit_retries=RATE_LIMIT_RETRIES, max_transient_retries=TRANSIENT_RETRIES,
                                **connection)
        started = time.time()
        # The API's answers are kept as the text it sent: the cache stores and reloads one
        # string per list instead of tens of thousands of objects, and decoding happens once.
        try:
            instances = client.get_text("/instances", params=source["instances_query"])
            clusters = client.get_text("/clusters") if source["clusters"] else "[]"
        except _api.ApiError as error:
            raise FetchFailed(str(error))
        for note in client.notes:
            display.vvv("cloudcompute inventory: %s" % note)
        display.vv("cloudcompute inventory: %d API requests (%d token exchanges) in %.2f s"
                   % (client.stats["requests"], client.stats["token_requests"], time.time() - started))
        return {"format": CACHE_FORMAT, "fetched_at": time.time(), "source": source,
                "instances": instances, "clusters": clusters}

    # --------------------------------------------------------------------------- hosts

    def _populate(self, listing):
        instances, clusters = listing
        connect_with = self.get_option("connect_with")
        worker_connect_with = self.get_option("worker_connect_with")
        selection = self.selection
        # Hosts kept without ansible_host (by connect option) or without a way through their
        # jump host: reported once, at -v, rather than dropped.
        self.unaddressed = {}
        self.workers_without_proxy_jump = []
        self.names_taken = set()
        self.group_names = {}
        hosts = []
        instance_address = INSTANCE_ADDRESS_FIELDS[connect_with]
        for instance in instances:
            if selection.keeps_instance(instance):
                hosts.append(self._resource_host(instance, "instance", ("instance_type", instance.get("instance_type")), instance_address, connect_with))
        if self.get_option("include_clusters"):
            include_workers = self.get_option("include_workers")
            worker_address = WORKER_ADDRESS_FIELDS[worker_connect_with]
            for cluster in clusters:
                if not selection.keeps_cluster(cluster):
                    continue
                jump_host = self._resource_host(cluster, "jump_host", ("cluster", cluster.get("hostname")), instance_address, connect_with)
                hosts.append(jump_host)
                if include_workers:
                    proxy_jump = self._proxy_jump_argument(jump_host)
                    for worker in cluster.get("worker_nodes") or ():
                        if selection.keeps_worker(worker):
                            worker_host = self._worker_host(worker, cluster, worker_address, worker_connect_with, proxy_jump)
                            hosts.append(worker_host)
                            if not proxy_jump:
                                self.workers_without_proxy_jump.append(worker_host[0])
        self._add_to_inventory(hosts)
        for connect_option, names in sorted(self.unaddressed.items()):
            display.v("cloudcompute inventory: %d hosts have no %s, so ansible_host is not set and Ansible connects "
                      "to their inventory name: %s" % (len(names), connect_option, _some(names)))
        if self.workers_without_proxy_jump:
            names = self.workers_without_proxy_jump
            display.v("cloudcompute inventory: %d workers have no ProxyJump because their jump host has no address: %s"
                      % (len(names), _some(names)))

    def _resource_host(self, resource, kind, own_group, address_field, connect_with):
        """An instance or a cluster's jump host, its API fields as host vars; grouped by kind,
        location, status and ``own_group`` (instance type, or cluster), a (name, value) pair."""
        prefix = self.prefix
        hostvars = {prefix + key: value for key, value in resource.items() if key not in UNEXPOSED_FIELDS}
        hostvars[prefix + "tags"] = tags_dict(resource.get("tags"))
        hostvars[prefix + "host_kind"] = kind
        groups = [
            KIND_GROUPS[kind],
            self._group_name("location", resource.get("location")),
            self._group_name("status", resource.get("status")),
            self._group_name(*own_group),
        ]
        return self._host(resource, hostvars, groups, resource.get(address_field), connect_with)

    def _worker_host(self, worker, cluster, address_field, connect_with, proxy_jump):
        prefix = self.prefix
        hostvars = {prefix + key: value for key, value in worker.items() if key not in UNEXPOSED_FIELDS}
        hostvars[prefix + "cluster_id"] = cluster.get("id")
        hostvars[prefix + "cluster_hostname"] = cluster.get("hostname")
        hostvars[prefix + "cluster_type"] = cluster.get("cluster_type")
        hostvars[prefix + "location"] = cluster.get("location")
        hostvars[prefix + "tags"] = tags_dict(cluster.get("tags"))
        hostvars[prefix + "host_kind"] = "worker"
        if proxy_jump:
            hostvars["ansible_ssh_common_args"] = proxy_jump
        groups = [
            KIND_GROUPS["worker"],
            self._group_name("location", cluster.get("location")),
            self._group_name("status", worker.get("status")),
            self._group_name("cluster", cluster.get("hostname")),
        ]
        return self._host(worker, hostvars, groups, worker.get(address_field), "worker " + connect_with)

    def _group_name(self, category, value):
        # Thousands of hosts share a handful of values: name each group once.
        key = (category, value)
        name = self.group_names.get(key)
        if name is None:
            name = self.group_names[key] = group_name(category, value)
        return name

    def _host(self, record, hostvars, groups, address, connect_with):
        """(inventory name, host variables, default groups) of one host."""
        if address:
            hostvars["ansible_host"] = address
        name = self._inventory_name(record, hostvars)
        if not address:
            self.unaddressed.setdefault(connect_with, []).append(name)
        return name, hostvars, groups

    def _inventory_name(self, record, hostvars):
        template = self.get_option("hostname")
        if template:
            self.templar.available_variables = hostvars
            try:
                name = self.templar.template(template)
            except Exception as error:
                raise AnsibleParserError("cloudcompute inventory: the hostname template failed for %s: %s"
                                         % (record.get("id"), error))
        else:
            name = record.get("hostname")
        name = str(name or record.get("id"))
        if name in self.names_taken:
            unique = "%s_%s" % (name, record.get("id"))
            display.warning("cloudcompute inventory: the name %s is taken by another host; %s is named %s"
                            % (name, record.get("id"), unique))
            name = unique
        self.names_taken.add(name)
        return name

    def _proxy_jump_argument(self, jump_host):
        """SSH arguments that reach a worker through the jump host (None when it has no address)."""
        address = jump_host[1].get("ansible_host")
        if not address:
            return None
        if ":" in address:  # IPv6
            address = "[%s]" % address
        user = self.get_option("jump_host_user")
        port = self.get_option("jump_host_port")
        target = "%s@%s" % (user, address) if user else address
        if port and port != 22:
            target += ":%d" % port
        return "-o ProxyJump=%s" % target

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
            inventory.add_host(name, group=ALL_HOSTS_GROUP)
            for variable, value in hostvars.items():
                inventory.set_variable(name, variable, value)
            for group in groups:
                inventory.add_child(group, name)
            # The constructed options template per host: skip them entirely when unused.
            if compose:
                self._set_composite_vars(compose, inventory.get_host(name).get_vars(), name, strict=strict)
            if composed_groups:
                self._add_host_to_composed_groups(composed_groups, hostvars, name, strict=strict)
            if keyed_groups:
                self._add_host_to_keyed_groups(keyed_groups, hostvars, name, strict=strict)


def decode_listing(entry):
    """(instances, clusters) from the API's answers as stored by ``_fetch``."""
    lists = []
    for key in ("instances", "clusters"):
        try:
            items = json.loads(entry[key])
        except ValueError as error:
            raise AnsibleParserError("cloudcompute inventory: the API's %s answer is not JSON: %s" % (key, error))
        if not isinstance(items, list):
            raise AnsibleParserError("cloudcompute inventory: the API's %s answer is not a list" % key)
        lists.append(items)
    return lists


def tags_dict(tags):
    """The API's tag list ``[{id, key, value}]`` as ``{key: value}``."""
    return dict((tag.get("key"), tag.get("value", "")) for tag in tags or () if isinstance(tag, dict))


def group_name(category, value):
    """``cloudcompute_<category>_<value>`` as a safe group name."""
    return GROUP_NAME_UNSAFE.sub("_", ("%s_%s_%s" % (ALL_HOSTS_GROUP, category, value)).lower())


def _string_set(value, name):
    if value is None:
        return frozenset()
    if isinstance(value, str):
        value = [value]
    if not isinstance(value, list) or not all(isinstance(item, str) for item in value):
        raise AnsibleParserError("cloudcompute inventory: filters.%s must be a string or a list of strings, got %r" % (name, value))
    return frozenset(value)


def _age(entry):
    return "%d s ago" % max(0, time.time() - entry.get("fetched_at", 0))


def _some(names):
    shown = ", ".join(names[:MAX_NAMES_IN_A_MESSAGE])
    return shown if len(names) <= MAX_NAMES_IN_A_MESSAGE else "%s and %d more" % (shown, len(names) - MAX_NAMES_IN_A_MESSAGE)
