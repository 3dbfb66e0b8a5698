"""The ``/v1`` route modules, one per resource family.

:data:`API_ROUTERS` is the list app.py mounts, in order (``catalogs`` comes before ``instances``
so that ``/v1/instances/types`` is not taken for an instance id).
"""

from cloudcompute_emulator.routes import (
    account,
    audit,
    catalogs,
    clusters,
    container_deployments,
    instance_groups,
    instances,
    job_deployments,
    oauth,
    scripts,
    secrets,
    ssh_keys,
    volumes,
)

API_ROUTERS = [
    oauth.router,
    account.router,
    catalogs.router,
    ssh_keys.router,
    scripts.router,
    volumes.router,
    instances.router,
    clusters.router,
    instance_groups.router,
    container_deployments.router,
    job_deployments.router,
    secrets.router,
    audit.router,
]
