"""Clusters: records, the view the API returns, the cluster state machine
and node actions.

create -> ``ordered`` -> ``provisioning`` -> ``running``: when it is running the jump host has its
address (``ip``) and the worker nodes appear, as many as the cluster type's ``node_details`` say,
each with a public and a private address. One shared volume (``NVMe_Shared_Cluster``) is mounted
at ``/home`` from the start, plus any existing shared volumes named on deploy.

Node actions (``boot``/``shutdown``/``force_shutdown``) address a worker by its id, or the jump
host by the cluster's own id (the Cluster shape has no separate jump host id); the node's status
flips when the action completes. The jump host's status is the cluster's status (``running`` /
``offline``).

discontinue -> ``deleting`` (charging and capacity stop at once) -> gone; its shared volumes then
become ``detached`` and stay, to be deleted by hand (spec section 3).
"""

from __future__ import annotations

from typing import Any

from cloudcompute_emulator import capacity, catalog, kinds, projects, tags
from cloudcompute_emulator.audit import record_event
from cloudcompute_emulator.clock import isoformat, new_id
from cloudcompute_emulator.errors import ApiError, invalid, not_found
from cloudcompute_emulator.ports import Domain, Principal
from cloudcompute_emulator.projects import close_charges
from cloudcompute_emulator.resources import references, volumes
from cloudcompute_emulator.resources.instances import HOSTNAME, allocate_address, allocate_private_address
from cloudcompute_emulator.resources.ownership import find_owned, get_owned
from cloudcompute_emulator.schemas.clusters import ClusterDeploy
from cloudcompute_emulator.store import Record

# Statuses of a provisioned cluster: it has a jump host address and worker nodes.
PROVISIONED = frozenset({"running", "offline"})
NOT_BILLED = frozenset({"deleting"})
POWER_TARGET = {"boot": "running", "shutdown": "offline", "force_shutdown": "offline"}
EXTENSION_SETTINGS = ("auto_renew", "pay_as_you_go", "end_contract")


def hourly_rate(cluster: Record) -> float | None:
    return None if cluster["status"] in NOT_BILLED else cluster["price_per_hour"]


# -- records and view ----------------------------------------------------------------------------


def new_record(
    state: Domain,
    project_id: str,
    *,
    hostname: str,
    cluster_type: catalog.ClusterType,
    image: str,
    location: str,
    user_id: str | None,
    description: str = "",
    ssh_key_ids: list[str] | None = None,
    startup_script_id: str | None = None,
    tag_ids: list[str] | None = None,
    extension_settings: str = "end_contract",
    worker_count: int | None = None,
    status: str = "ordered",
    created_at: float | None = None,
) -> Record:
    """A cluster record (not stored yet)."""
    now = state.clock.now() if created_at is None else created_at
    return {
        "id": new_id(),
        "project_id": project_id,
        "hostname": hostname,
        "description": description,
        "cluster_type": cluster_type.code,
        "image": image,
        "location": location,
        "status": status,
        "contract": "PAY_AS_YOU_GO",
        "price_per_hour": cluster_type.price_per_hour,
        "ip": None,
        "ssh_key_ids": list(ssh_key_ids or []),
        "startup_script_id": startup_script_id,
        "tag_ids": list(tag_ids or []),
        "extension_settings": extension_settings,
        "long_term_period": None,
        # [{id, mount_point}]; names and sizes are read from the volumes themselves
        "shared_volumes": [],
        "worker_count": worker_count if worker_count is not None else cluster_type.nodes,
        "worker_nodes": [],
        "pending_power": None,
        "created_at": isoformat(now),
        "created_by_user_id": user_id,
        "billed_from": now,
    }


def attach_shared_volume(state: Domain, cluster: Record, volume: Record, mount_point: str) -> None:
    volume["cluster_id"] = cluster["id"]
    volume["status"] = "attached"
    volume["target"] = None
    cluster["shared_volumes"].append({"id": volume["id"], "mount_point": mount_point})
    state.store.save(kinds.VOLUMES, volume)
    state.store.save(kinds.CLUSTERS, cluster)


# Hardware descriptions are the same for every cluster of a type: build them once.
_HARDWARE: dict[str, dict[str, Any]] = {
    cluster_type.code: {
        "cpu": cluster_type.cpu(),
        "gpu": cluster_type.gpu(),
        "gpu_memory": cluster_type.gpu_memory(),
        "memory": cluster_type.memory(),
    }
    for cluster_type in catalog.CLUSTER_TYPES
}


def _shared_volume_views(state: Domain, cluster: Record) -> list[dict[str, Any]]:
    table = state.store.table(kinds.VOLUMES)
    views = []
    for mount in cluster["shared_volumes"]:
        volume = table.get(mount["id"])
        if volume is not None:
            views.append(
                {"id": volume["id"], "name": volume["name"], "mount_point": mount["mount_point"], "size_in_gigabytes": volume["size"]}
            )
    return views


def view(state: Domain, cluster: Record) -> dict[str, Any]:
    image = catalog.IMAGES_BY_TYPE.get(cluster["image"])
    extension = cluster["extension_settings"]
    return {
        "id": cluster["id"],
        "hostname": cluster["hostname"],
        "description": cluster["description"],
        "status": cluster["status"],
        "created_at": cluster["created_at"],
        "location": cluster["location"],
        "cluster_type": cluster["cluster_type"],
        "image": cluster["image"],
        "os_name": image.os_name if image else cluster["image"],
        "ip": cluster["ip"],
        **_HARDWARE[cluster["cluster_type"]],
        "price_per_hour": cluster["price_per_hour"],
        "contract": cluster["contract"],
        "extension_settings": extension,
        # the deprecated flags, derived from extension_settings
        "auto_rental_extension": extension == "auto_renew",
        "turn_to_pay_as_you_go": extension == "pay_as_you_go",
        "long_term_period": cluster["long_term_period"],
        "ssh_key_ids": cluster["ssh_key_ids"],
        "startup_script_id": cluster["startup_script_id"],
        "tags": tags.views(state, cluster["tag_ids"]),
        "shared_volumes": _shared_volume_views(state, cluster),
        "worker_nodes": [
            {key: node[key] for key in ("id", "hostname", "public_ip", "private_ip", "status")} for node in cluster["worker_nodes"]
        ],
        "created_by_user_id": cluster["created_by_user_id"],
    }


# -- transitions ---------------------------------------------------------------------------------


def start_lifecycle(state: Domain, cluster: Record, start: float | None = None) -> None:
    state.scheduler.schedule_step(state, kinds.CLUSTERS, cluster, "cluster.ordered", start=start, hook="cluster.provisioning")


def _provisioning(state: Domain, cluster: Record, at: float, _params: dict) -> None:
    cluster["status"] = "provisioning"
    state.store.save(kinds.CLUSTERS, cluster)
    state.scheduler.schedule_step(state, kinds.CLUSTERS, cluster, "cluster.provisioning", start=at, hook="cluster.running")


def _running(state: Domain, cluster: Record, _at: float, _params: dict) -> None:
    provision(state, cluster, "running")


def provision(state: Domain, cluster: Record, status: str) -> None:
    """The jump host's address and the worker nodes (in ``status``), as a finished deploy has them."""
    if cluster["ip"] is None:
        cluster["ip"] = allocate_address(state)
    if not cluster["worker_nodes"]:
        loopback = state.settings.instance_ip_mode == "loopback"
        for number in range(1, cluster["worker_count"] + 1):
            public_ip = allocate_address(state)
            cluster["worker_nodes"].append(
                {
                    "id": new_id(),
                    "hostname": f"{cluster['hostname']}-worker-{number}",
                    "public_ip": public_ip,
                    # loopback mode: every node address reaches this machine's sshd, however a
                    # client chooses to connect
                    "private_ip": public_ip if loopback else allocate_private_address(state),
                    "status": status,
                    "pending_power": None,
                }
            )
    cluster["status"] = status
    state.store.save(kinds.CLUSTERS, cluster)


# -- node actions --------------------------------------------------------------------------------


def _find_node(cluster: Record, node_id: str) -> Record | None:
    return next((node for node in cluster["worker_nodes"] if node["id"] == node_id), None)


def node_action(state: Domain, cluster: Record, node_id: str, action: str) -> str:
    """Dispatch a power action to a worker or (``node_id`` = cluster id) the jump host.

    Returns the node's role (``worker`` or ``jump_host``). 404 for an unknown node; 400 when the
    cluster is not provisioned (or being deleted) or the node has the opposite action pending.
    Repeating an action already done or on its way changes nothing.
    """
    target = POWER_TARGET[action]
    if node_id == cluster["id"]:
        _require_provisioned(cluster, action, "the jump host of")
        _dispatch(state, cluster, cluster, action, target, node_id)
        return "jump_host"
    node = _find_node(cluster, node_id)
    if node is None:
        raise not_found(f"Node {node_id} of cluster {cluster['id']}")
    _require_provisioned(cluster, action, f"node {node_id} of")
    _dispatch(state, cluster, node, action, target, node_id)
    return "worker"


def _require_provisioned(cluster: Record, action: str, what: str) -> None:
    if cluster["status"] not in PROVISIONED:
        raise invalid(f"Cannot {action} {what} cluster {cluster['id']} while the cluster is {cluster['status']}")


def _dispatch(state: Domain, cluster: Record, node: Record, action: str, target: str, node_id: str) -> None:
    pending = node.get("pending_power")
    if pending == target:
        return
    if pending is not None:
        raise invalid(f"Node {node_id} has a pending power action (to {pending})")
    if node["status"] == target:
        return
    node["pending_power"] = target
    state.store.save(kinds.CLUSTERS, cluster)
    # no "expect" on the cluster's status: a worker's action completes whatever the jump host does;
    # the hook itself checks that the node still waits for it
    state.scheduler.schedule_step(
        state, kinds.CLUSTERS, cluster, "cluster.node_power",
        hook="cluster.node_power_done", expect={}, params={"node_id": node_id, "to": target},
    )


def _node_power_done(state: Domain, cluster: Record, _at: float, params: dict) -> None:
    if cluster["status"] not in PROVISIONED:
        return
    node = cluster if params["node_id"] == cluster["id"] else _find_node(cluster, params["node_id"])
    if node is None or node.get("pending_power") != params["to"]:
        return
    node["status"] = params["to"]
    node["pending_power"] = None
    state.store.save(kinds.CLUSTERS, cluster)


# -- discontinue ---------------------------------------------------------------------------------


def discontinue(state: Domain, cluster: Record) -> bool:
    """Stop charging now and remove the cluster after a while. False when already on its way."""
    if cluster["status"] == "deleting":
        return False
    now = state.clock.now()
    close_charges(state, kinds.CLUSTERS, cluster, now)
    cluster["status"] = "deleting"
    cluster["pending_power"] = None
    for node in cluster["worker_nodes"]:
        node["status"] = "deleting"
        node["pending_power"] = None
    state.store.save(kinds.CLUSTERS, cluster)
    state.scheduler.schedule_step(state, kinds.CLUSTERS, cluster, "cluster.deleting", start=now, hook="cluster.remove")
    return True


def _remove(state: Domain, cluster: Record, at: float, _params: dict) -> None:
    table = state.store.table(kinds.VOLUMES)
    for mount in cluster["shared_volumes"]:
        volume = table.get(mount["id"])
        if volume is not None and volume.get("cluster_id") == cluster["id"]:
            volume["cluster_id"] = None
            if volume["status"] == "attached":
                volume["status"] = "detached"
            state.store.save(kinds.VOLUMES, volume)
    # gone from the API; kept for raw dumps
    state.store.retire(kinds.CLUSTERS, cluster["id"], isoformat(at))


# -- deploy (POST /v1/clusters), discontinue and node actions of the caller ----------------------


def _resolve_existing_volumes(state: Domain, caller: Principal, body: ClusterDeploy) -> list[Record]:
    found = []
    for volume_id in dict.fromkeys(ref.id for ref in body.existing_volumes or []):
        volume = find_owned(state, kinds.VOLUMES, volume_id, caller.project_id)
        if volume is None or volume["is_permanently_deleted"]:
            raise invalid(f"existing_volumes: volume {volume_id} not found")
        if not catalog.VOLUME_TYPES_BY_NAME[volume["type"]].is_shared_fs:
            raise invalid(f"existing_volumes: volume {volume_id} is a {volume['type']} volume, not a shared file system")
        if volume["status"] != "detached":
            raise invalid(f"existing_volumes: volume {volume_id} must be detached (it is {volume['status']})")
        if volume["location"] != body.location_code:
            raise invalid(f"existing_volumes: volume {volume_id} is in {volume['location']}, not {body.location_code}")
        found.append(volume)
    return found


def _extension_settings(body: ClusterDeploy) -> str:
    """``extension_settings`` wins over the deprecated flags; neither flag set ends the contract."""
    if body.extension_settings is not None:
        return body.extension_settings
    if body.turn_to_pay_as_you_go:
        return "pay_as_you_go"
    if body.auto_rental_extension:
        return "auto_renew"
    return "end_contract"


def _check_deploy_request(state: Domain, caller: Principal, body: ClusterDeploy) -> dict[str, Any]:
    """Everything a deploy needs, validated before anything is created (400/402/503)."""
    volumes.check_location(body.location_code)
    cluster_type = catalog.CLUSTER_TYPES_BY_CODE.get(body.cluster_type)
    if cluster_type is None:
        raise invalid(f"cluster_type: unknown cluster type '{body.cluster_type}' (see GET /v1/cluster-types)")
    if not HOSTNAME.match(body.hostname):
        raise invalid("hostname: letters, digits, '-' and '.' only, starting and ending with a letter or digit")
    if body.image not in cluster_type.supported_os:
        if body.image in catalog.CLUSTER_IMAGES_BY_TYPE:
            raise invalid(f"image: '{body.image}' is not supported by cluster type {cluster_type.code}")
        raise invalid(f"image: '{body.image}' is not a cluster image type from GET /v1/images/cluster")
    if body.contract == "LONG_TERM":
        raise invalid("contract: only PAY_AS_YOU_GO is currently supported for clusters")
    ssh_key_ids = references.ssh_key_ids(state, caller.project_id, body.ssh_key_ids)
    if not ssh_key_ids:
        raise invalid("ssh_key_ids: at least one SSH key is required for the jump host")
    references.startup_script_id(state, caller.project_id, body.startup_script_id)
    existing = _resolve_existing_volumes(state, caller, body)
    tags.check_inputs(body.tags)
    if projects.balance(state, caller.project_id) <= 0:
        raise ApiError(402, "Not enough funds to deploy: the project balance is not positive")
    if capacity.available(state, (cluster_type.code, body.location_code, False)) < 1:
        raise ApiError(503, f"No capacity for cluster type {cluster_type.code} in {body.location_code}; retry later or choose another location")
    return {"cluster_type": cluster_type, "ssh_key_ids": ssh_key_ids, "existing": existing}


# audit action recorded per node action
NODE_AUDIT_ACTION = {"boot": "start", "shutdown": "shutdown", "force_shutdown": "shutdown"}


def _audit(state: Domain, caller: Principal, action: str, cluster: Record, **extra: Any) -> None:
    # clusters are compute objects in the audit log (its object types have no "cluster")
    record_event(state, caller, "compute", action, cluster["id"], location_code=cluster["location"], compute=view(state, cluster), **extra)


def deploy(state: Domain, caller: Principal, body: ClusterDeploy) -> Record:
    """A new cluster, ``ordered``, with its new shared volume and the existing ones asked for."""
    plan = _check_deploy_request(state, caller, body)
    cluster = new_record(
        state, caller.project_id, hostname=body.hostname, cluster_type=plan["cluster_type"], image=body.image,
        location=body.location_code, user_id=caller.user_id, description=body.description or "",
        ssh_key_ids=plan["ssh_key_ids"], startup_script_id=body.startup_script_id,
        tag_ids=tags.resolve_inputs(state, caller.project_id, body.tags), extension_settings=_extension_settings(body),
    )
    state.store.insert(kinds.CLUSTERS, cluster)
    shared = volumes.new_record(
        state, caller.project_id, name=body.shared_volume.name, size=body.shared_volume.size,
        volume_type=catalog.CLUSTER_SHARED_VOLUME_TYPE, location=body.location_code, status="attached",
        user_id=caller.user_id,
    )
    state.store.insert(kinds.VOLUMES, shared)
    attach_shared_volume(state, cluster, shared, catalog.CLUSTER_SHARED_MOUNT_POINT)
    for volume in plan["existing"]:
        attach_shared_volume(state, cluster, volume, volumes.default_mount_point(volume))
    start_lifecycle(state, cluster)
    _audit(state, caller, "create", cluster)
    record_event(
        state, caller, "volume", "create", shared["id"], location_code=shared["location"], volume=volumes.view(state, shared)
    )
    return cluster


def discontinue_all(state: Domain, caller: Principal, cluster_ids: list[str]) -> None:
    """All or nothing: every cluster is looked up before any is discontinued."""
    targets = {cluster_id: get_owned(state, kinds.CLUSTERS, cluster_id, caller.project_id) for cluster_id in cluster_ids}
    for cluster in targets.values():
        if discontinue(state, cluster):
            _audit(state, caller, "delete", cluster, operation="discontinue")


def act_on_node(state: Domain, caller: Principal, cluster_id: str, node_id: str, action: str) -> None:
    cluster = get_owned(state, kinds.CLUSTERS, cluster_id, caller.project_id)
    role = node_action(state, cluster, node_id, action)
    _audit(state, caller, NODE_AUDIT_ACTION[action], cluster, node_id=node_id, node_role=role, operation=action)


TRANSITION_HOOKS = {
    "cluster.provisioning": _provisioning,
    "cluster.running": _running,
    "cluster.node_power_done": _node_power_done,
    "cluster.remove": _remove,
}
