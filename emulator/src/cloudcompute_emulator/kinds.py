"""Names of the stored record kinds (tables of :class:`~cloudcompute_emulator.store.Store`).

A name is all a kind needs. ``GET /_emulator/resources/{kind}`` dumps any of them.
"""

INSTANCES = "instances"
VOLUMES = "volumes"
SSH_KEYS = "ssh_keys"
SCRIPTS = "scripts"
TAGS = "tags"
AUDIT_EVENTS = "audit_events"
AUDIT_EXPORTS = "audit_exports"
CAPACITY = "capacity"
CAPACITY_CHANGES = "capacity_changes"
CLUSTERS = "clusters"
INSTANCE_GROUPS = "instance_groups"
CONTAINER_DEPLOYMENTS = "container_deployments"
JOB_DEPLOYMENTS = "job_deployments"
SECRETS = "secrets"
FILE_SECRETS = "file_secrets"
REGISTRY_CREDENTIALS = "registry_credentials"
