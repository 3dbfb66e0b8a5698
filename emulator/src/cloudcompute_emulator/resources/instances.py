"""Instances: records, the view the API returns, address allocation, the instance state machine
(ordered, provisioning, running, ...) and spot eviction.

create -> ``ordered`` -> ``provisioning`` (address assigned) -> ``running``;
shutdown/force_shutdown: ``running`` -> ``offline`` and start/boot: ``offline`` -> ``running``, the
status flipping when the power action completes (``pending_power`` meanwhile);
delete/discontinue/delete_stuck/hibernate -> ``deleting`` -> gone; evicted spot -> ``discontinued`` -> gone.
"""

from __future__ import annotations

import ipaddress
import re
import secrets
from typing import Any

from cloudcompute_emulator import capacity, catalog, kinds, projects, tags
from cloudcompute_emulator.audit import record_event, record_system_event
from cloudcompute_emulator.clock import isoformat, new_id
from cloudcompute_emulator.errors import ApiError, invalid
from cloudcompute_emulator.ports import Domain, Principal
from cloudcompute_emulator.projects import close_charges
from cloudcompute_emulator.resources import references, volumes
from cloudcompute_emulator.resources.ownership import find_owned, get_owned
from cloudcompute_emulator.schemas.instances import InstanceAction, InstanceDeploy
from cloudcompute_emulator.store import Record

HOSTNAME = re.compile(r"^[A-Za-z0-9]([A-Za-z0-9.-]*[A-Za-z0-9])?$")
# Statuses in which an instance no longer bills (deleting stops charging, spec section 1).
NOT_BILLED = frozenset({"deleting", "discontinued"})
# Plain delete/discontinue are allowed from every settled status; delete_stuck also while the
# instance is being set up. A plain delete is accepted while ``ordered`` or ``provisioning`` too:
# clients delete right after a deploy.
DELETABLE = frozenset({"running", "offline", "error", "installation_failed", "no_capacity", "unknown", "notfound", "new"})
DELETABLE_WHEN_STUCK = DELETABLE | {"ordered", "validating", "provisioning", "deleting"}
DELETABLE_BY_ACTION = {
    "delete": DELETABLE | {"ordered", "provisioning"},
    "discontinue": DELETABLE,
    "delete_stuck": DELETABLE_WHEN_STUCK,
}
POWER_TARGET = {"start": "running", "boot": "running", "shutdown": "offline", "force_shutdown": "offline"}
UNAVAILABLE_ACTIONS = frozenset({"deploy", "transfer"})
# audit action recorded per instance action
AUDIT_ACTION = {
    "start": "start", "boot": "start", "shutdown": "shutdown", "force_shutdown": "shutdown",
    "delete": "delete", "discontinue": "delete", "delete_stuck": "delete", "hibernate": "delete",
    "configure_spot": "configure_spot",
}


def hourly_rate(instance: Record) -> float | None:
    return None if instance["status"] in NOT_BILLED else instance["price_per_hour"]


# -- addresses -----------------------------------------------------------------------------------

# Documentation ranges first (RFC 5737), then the benchmarking range (RFC 2544) once 762
# instances exist: realistic-looking public addresses that never belong to anyone.
_PUBLIC_POOLS = [ipaddress.ip_network(net) for net in ("192.0.2.0/24", "198.51.100.0/24", "203.0.113.0/24", "198.18.0.0/15")]


def _public_address(index: int) -> str:
    # skip network (.0) and broadcast-looking (.255) last octets in every pool
    for pool in _PUBLIC_POOLS:
        usable = pool.num_addresses // 256 * 254
        if index < usable:
            block, offset = divmod(index, 254)
            return str(pool.network_address + block * 256 + offset + 1)
        index -= usable
    return _public_address(index % (3 * 254))


def _loopback_address(index: int) -> str:
    # 127.1.0.1 upward: every 127/8 address reaches the local host, so an sshd on this machine
    # answers on each instance address
    block, offset = divmod(index, 254)
    return str(ipaddress.ip_address("127.1.0.0") + block * 256 + offset + 1)


def allocate_address(state: Domain) -> str:
    """A public address (instances, cluster jump hosts and workers share one sequence)."""
    index = state.store.next_counter("instance_ip_counter") - 1
    if state.settings.instance_ip_mode == "loopback":
        return _loopback_address(index)
    return _public_address(index)


_PRIVATE_POOL = ipaddress.ip_network("10.0.0.0/8")


def allocate_private_address(state: Domain) -> str:
    """A private-network address (cluster workers), 10.0.0.1 upward, .0 and .255 skipped."""
    index = state.store.next_counter("private_ip_counter") - 1
    block, offset = divmod(index % (_PRIVATE_POOL.num_addresses // 256 * 254), 254)
    return str(_PRIVATE_POOL.network_address + block * 256 + offset + 1)


# -- records and view ----------------------------------------------------------------------------


def new_record(
    state: Domain,
    project_id: str,
    *,
    hostname: str,
    instance_type: catalog.InstanceType,
    image: str,
    location: str,
    is_spot: bool,
    contract: str,
    user_id: str | None,
    description: str = "",
    ssh_key_ids: list[str] | None = None,
    startup_script_id: str | None = None,
    tag_ids: list[str] | None = None,
    status: str = "ordered",
    coupon: str | None = None,
    created_at: float | None = None,
) -> Record:
    now = state.clock.now() if created_at is None else created_at
    return {
        "id": new_id(),
        "project_id": project_id,
        "hostname": hostname,
        "description": description,
        "instance_type": instance_type.code,
        "image": image,
        "location": location,
        "status": status,
        "is_spot": is_spot,
        "contract": contract,
        "pricing": "FIXED_PRICE",
        "price_per_hour": instance_type.spot_price if is_spot else instance_type.price_per_hour,
        "ip": None,
        "private_ip": None,
        "os_volume_id": None,
        "volume_ids": [],
        "ssh_key_ids": list(ssh_key_ids or []),
        "startup_script_id": startup_script_id,
        "tag_ids": list(tag_ids or []),
        "jupyter_token": secrets.token_hex(16),
        "coupon": coupon,
        "created_at": isoformat(now),
        "created_by_user_id": user_id,
        "billed_from": now,
        "pending_power": None,
    }


# Hardware descriptions are the same for every instance of a type: build them once.
_HARDWARE: dict[str, dict[str, Any]] = {
    instance_type.code: {
        "cpu": instance_type.cpu(),
        "gpu": instance_type.gpu(),
        "gpu_memory": instance_type.gpu_memory(),
        "memory": instance_type.memory(),
        "storage": instance_type.storage(),
    }
    for instance_type in catalog.INSTANCE_TYPES
}


def view(state: Domain, instance: Record) -> dict[str, Any]:
    image = catalog.IMAGES_BY_TYPE.get(instance["image"])
    return {
        "id": instance["id"],
        "instance_type": instance["instance_type"],
        "image": instance["image"],
        "hostname": instance["hostname"],
        "description": instance["description"],
        "status": instance["status"],
        "created_at": instance["created_at"],
        "location": instance["location"],
        "ip": instance["ip"],
        "private_ip": instance["private_ip"],
        **_HARDWARE[instance["instance_type"]],
        "os_name": image.os_name if image else instance["image"],
        "os_volume_id": instance["os_volume_id"],
        "price_per_hour": instance["price_per_hour"],
        "pricing": instance["pricing"],
        "is_spot": instance["is_spot"],
        "contract": instance["contract"],
        "jupyter_token": instance["jupyter_token"],
        "ssh_key_ids": instance["ssh_key_ids"],
        "startup_script_id": instance["startup_script_id"],
        "tags": tags.views(state, instance["tag_ids"]),
        "volume_ids": instance["volume_ids"],
        "created_by_user_id": instance["created_by_user_id"],
    }


# -- transitions ---------------------------------------------------------------------------------


def start_lifecycle(state: Domain, instance: Record, start: float | None = None) -> None:
    state.scheduler.schedule_step(
        state, kinds.INSTANCES, instance, "instance.ordered", start=start, hook="instance.provisioning"
    )


def _provisioning(state: Domain, instance: Record, at: float, _params: dict) -> None:
    instance["status"] = "provisioning"
    if instance["ip"] is None:
        instance["ip"] = allocate_address(state)
    state.store.save(kinds.INSTANCES, instance)
    state.scheduler.schedule_step(
        state, kinds.INSTANCES, instance, "instance.provisioning", start=at, to_status="running"
    )


def _power_done(state: Domain, instance: Record, _at: float, params: dict) -> None:
    instance["status"] = params["to"]
    instance["pending_power"] = None
    state.store.save(kinds.INSTANCES, instance)


def _remove(state: Domain, instance: Record, at: float, _params: dict) -> None:
    volume_table = state.store.table(kinds.VOLUMES)
    for volume_id in list(instance["volume_ids"]):
        if volume_id in volume_table:
            volumes.unlink(state, volume_table[volume_id], instance)
    # gone from the API; kept for raw dumps (tests that look for duplicates)
    state.store.retire(kinds.INSTANCES, instance["id"], isoformat(at))
    record_system_event(
        state, instance["project_id"], "compute", "delete_complete", instance["id"],
        location_code=instance["location"], at=at, compute=view(state, instance),
    )


def begin_removal(state: Domain, instance: Record, status: str, step: str, at: float | None = None) -> None:
    """Stop charging now and remove the instance after ``step``."""
    moment = state.clock.now() if at is None else at
    close_charges(state, kinds.INSTANCES, instance, moment)
    instance["status"] = status
    instance["pending_power"] = None
    state.store.save(kinds.INSTANCES, instance)
    state.scheduler.schedule_step(state, kinds.INSTANCES, instance, step, start=moment, hook="instance.remove")


# -- actions (PUT /v1/instances) -----------------------------------------------------------------


def _power(state: Domain, instance: Record, action: str) -> bool:
    target = POWER_TARGET[action]
    pending = instance.get("pending_power")
    if pending == target:
        return True  # already on its way there: accepted again, nothing new to do
    if pending is not None:
        raise invalid(f"Instance {instance['id']} has a pending power action (to {pending})")
    if instance["status"] == target:
        return False
    source = "offline" if target == "running" else "running"
    if instance["status"] != source:
        raise invalid(f"Cannot {action} instance {instance['id']} while it is {instance['status']}")
    instance["pending_power"] = target
    state.store.save(kinds.INSTANCES, instance)
    state.scheduler.schedule_step(
        state, kinds.INSTANCES, instance, "instance.power",
        hook="instance.power_done", expect={"status": source, "pending_power": target}, params={"to": target},
    )
    return True


def _delete(state: Domain, instance: Record, action: str, volume_ids: list[str] | None, permanently: bool) -> bool:
    status = instance["status"]
    if status == "deleting" and action != "delete_stuck":
        return False
    if status not in DELETABLE_BY_ACTION[action]:
        hint = " (use delete_stuck for an instance stuck in setup)" if status in DELETABLE_WHEN_STUCK else ""
        raise invalid(f"Cannot {action} instance {instance['id']} while it is {status}{hint}")
    if status == "deleting":
        return True
    attached = list(instance["volume_ids"])
    if volume_ids is None:
        doomed = [instance["os_volume_id"]] if instance["os_volume_id"] in attached else []
    else:
        doomed = [volume_id for volume_id in volume_ids if volume_id in attached]
    volume_table = state.store.table(kinds.VOLUMES)
    for volume_id in attached:
        volume = volume_table.get(volume_id)
        if volume is None:
            continue
        volumes.unlink(state, volume, instance)
        if volume_id in doomed:
            if permanently:
                volumes.delete_permanently(state, volume)
            else:
                volumes.move_to_trash(state, volume)
        elif volume["status"] in ("attached", "attaching", "detaching"):
            volumes.mark_detached(state, volume)
    begin_removal(state, instance, "deleting", "instance.deleting")
    return True


def _hibernate(state: Domain, instance: Record) -> bool:
    if instance["status"] != "offline" or instance.get("pending_power"):
        raise invalid(f"Instance {instance['id']} must be shut down before it can hibernate (it is {instance['status']})")
    volume_table = state.store.table(kinds.VOLUMES)
    for volume_id in list(instance["volume_ids"]):
        volume = volume_table.get(volume_id)
        if volume is not None:
            volumes.unlink(state, volume, instance)
            volumes.mark_detached(state, volume)
    begin_removal(state, instance, "deleting", "instance.deleting")
    return True


def perform_action(
    state: Domain, instance: Record, action: str, volume_ids: list[str] | None, permanently: bool
) -> bool:
    """Apply one action to one instance. True: accepted (202); False: already so (204)."""
    if action in UNAVAILABLE_ACTIONS:
        raise invalid(f"The action '{action}' is not available for instance {instance['id']}")
    if action in POWER_TARGET:
        return _power(state, instance, action)
    if action in ("delete", "discontinue", "delete_stuck"):
        return _delete(state, instance, action, volume_ids, permanently)
    if action == "hibernate":
        return _hibernate(state, instance)
    if action == "configure_spot":
        if not instance["is_spot"]:
            raise invalid(f"Instance {instance['id']} is not a spot instance")
        return True
    raise invalid(f"Unknown action '{action}'")


def check_volume_ids(instances: list[Record], volume_ids: list[str] | None) -> None:
    """Every volume named for deletion must be attached to one of the targeted instances."""
    if not volume_ids:
        return
    attached = {volume_id for instance in instances for volume_id in instance["volume_ids"]}
    stray = [volume_id for volume_id in volume_ids if volume_id not in attached]
    if stray:
        raise invalid(f"volume_ids: not attached to the instance: {', '.join(stray)}")


def _audit(state: Domain, caller: Principal, action: str, instance: Record, **extra: Any) -> None:
    record_event(
        state, caller, "compute", action, instance["id"], location_code=instance["location"],
        compute=view(state, instance), **extra,
    )


def _act(state: Domain, caller: Principal, instance: Record, body: InstanceAction) -> bool:
    changed = perform_action(state, instance, body.action, body.volume_ids, bool(body.delete_permanently))
    if changed:
        _audit(state, caller, AUDIT_ACTION[body.action], instance, operation=body.action)
    return changed


def act_on_one(state: Domain, caller: Principal, body: InstanceAction) -> bool:
    """A single action (``body.id`` one id): errors raise; False when already so (nothing done)."""
    instance = get_owned(state, kinds.INSTANCES, body.id, caller.project_id)
    check_volume_ids([instance], body.volume_ids)
    return _act(state, caller, instance, body)


def act_on_many(state: Domain, caller: Principal, body: InstanceAction) -> list[dict[str, Any]]:
    """A bulk action (``body.id`` a list): one result per id, an error result instead of raising."""
    if not body.id:
        raise invalid("id: at least one instance id is required")
    owned = [find_owned(state, kinds.INSTANCES, instance_id, caller.project_id) for instance_id in body.id]
    check_volume_ids([instance for instance in owned if instance is not None], body.volume_ids)
    results = []
    for instance_id in body.id:
        try:
            _act(state, caller, get_owned(state, kinds.INSTANCES, instance_id, caller.project_id), body)
            results.append(_result(body.action, instance_id))
        except ApiError as error:
            results.append(_result(body.action, instance_id, error))
    return results


def _result(action: str, instance_id: str, error: ApiError | None = None) -> dict[str, Any]:
    if error is None:
        return {"action": action, "instanceId": instance_id, "status": "success"}
    return {"action": action, "instanceId": instance_id, "status": "error", "error": error.message, "statusCode": error.status}


# -- deploy (POST /v1/instances) --------------------------------------------------------------------


def _resolve_image(state: Domain, caller: Principal, body: InstanceDeploy, instance_type: catalog.InstanceType) -> tuple[str, Record | None]:
    """(image type, customised OS volume to boot from or None)."""
    image = catalog.IMAGES_BY_TYPE.get(body.image)
    if image is not None:
        if image.is_cluster or image.image_type not in instance_type.supported_os:
            raise invalid(f"image: '{body.image}' is not supported by instance type {instance_type.code}")
        return image.image_type, None
    volume = find_owned(state, kinds.VOLUMES, body.image, caller.project_id)
    if volume is None or not volume["is_os_volume"]:
        raise invalid(f"image: '{body.image}' is neither an image type from GET /v1/images nor an OS volume id")
    if volume["status"] != "detached":
        raise invalid(f"image: OS volume {volume['id']} must be detached (it is {volume['status']})")
    if volume["location"] != body.location_code:
        raise invalid(f"image: OS volume {volume['id']} is in {volume['location']}, not {body.location_code}")
    return volume["os_image"] or instance_type.default_image(), volume


def _resolve_ssh_keys(state: Domain, caller: Principal, ssh_key_ids: str | list[str] | None) -> list[str]:
    if not any(True for _ in state.store.records(kinds.SSH_KEYS, caller.project_id)):
        raise invalid("At least one SSH key must exist in the project before deploying")
    return references.ssh_key_ids(state, caller.project_id, ssh_key_ids)


def _resolve_existing_volumes(state: Domain, caller: Principal, volume_ids: list[str] | None, location: str) -> list[Record]:
    found = []
    for volume_id in dict.fromkeys(volume_ids or []):
        volume = find_owned(state, kinds.VOLUMES, volume_id, caller.project_id)
        if volume is None:
            raise invalid(f"existing_volumes: volume {volume_id} not found")
        if volume["status"] != "detached" or volume["is_os_volume"]:
            raise invalid(f"existing_volumes: volume {volume_id} must be a detached data volume (it is {volume['status']})")
        if volume["location"] != location:
            raise invalid(f"existing_volumes: volume {volume_id} is in {volume['location']}, not {location}")
        found.append(volume)
    return found


def _check_deploy_request(state: Domain, caller: Principal, body: InstanceDeploy) -> dict[str, Any]:
    """Everything a deploy needs, validated before anything is created (400/402/503)."""
    volumes.check_location(body.location_code)
    instance_type = catalog.INSTANCE_TYPES_BY_CODE.get(body.instance_type)
    if instance_type is None:
        raise invalid(f"instance_type: unknown instance type '{body.instance_type}'")
    if not HOSTNAME.match(body.hostname):
        raise invalid("hostname: letters, digits, '-' and '.' only, starting and ending with a letter or digit")
    is_spot = bool(body.is_spot) or body.contract == "SPOT"
    if is_spot and body.contract == "LONG_TERM":
        raise invalid("contract: a spot instance cannot have a LONG_TERM contract")
    if body.pricing == "DYNAMIC_PRICE":
        raise invalid("pricing: only FIXED_PRICE is supported")
    image_type, os_source = _resolve_image(state, caller, body, instance_type)
    ssh_key_ids = _resolve_ssh_keys(state, caller, body.ssh_key_ids)
    references.startup_script_id(state, caller.project_id, body.startup_script_id)
    existing = _resolve_existing_volumes(state, caller, body.existing_volumes, body.location_code)
    for spec in body.volumes or []:
        volumes.check_standalone_type(spec.type, "volumes[].type")
        tags.check_inputs(spec.tags)
    tags.check_inputs(body.tags)
    if body.os_volume is not None:
        tags.check_inputs(body.os_volume.tags)
    if projects.balance(state, caller.project_id) <= 0:
        raise ApiError(402, "Not enough funds to deploy: the project balance is not positive")
    if capacity.available(state, (instance_type.code, body.location_code, is_spot)) < 1:
        kind = "spot " if is_spot else ""
        raise ApiError(503, f"No {kind}capacity for {instance_type.code} in {body.location_code}; retry later or choose another location")
    return {
        "instance_type": instance_type, "image_type": image_type, "os_source": os_source,
        "ssh_key_ids": ssh_key_ids, "existing": existing, "is_spot": is_spot,
        "contract": "SPOT" if is_spot else (body.contract or "PAY_AS_YOU_GO"),
    }


def _create_attached_volume(state: Domain, caller: Principal, instance: Record, **fields: Any) -> Record:
    volume = volumes.new_record(
        state, caller.project_id, location=instance["location"], status="attached", user_id=caller.user_id, **fields
    )
    state.store.insert(kinds.VOLUMES, volume)
    volumes.link(state, volume, instance)
    return volume


def deploy(state: Domain, caller: Principal, body: InstanceDeploy) -> Record:
    """A new instance, ``ordered``, with its OS volume and the volumes asked for (all checked first)."""
    plan = _check_deploy_request(state, caller, body)
    instance_type: catalog.InstanceType = plan["instance_type"]
    instance = new_record(
        state, caller.project_id, hostname=body.hostname, instance_type=instance_type, image=plan["image_type"],
        location=body.location_code, is_spot=plan["is_spot"], contract=plan["contract"], user_id=caller.user_id,
        description=body.description or "", ssh_key_ids=plan["ssh_key_ids"], startup_script_id=body.startup_script_id,
        tag_ids=tags.resolve_inputs(state, caller.project_id, body.tags), coupon=body.coupon,
    )
    state.store.insert(kinds.INSTANCES, instance)
    new_volumes = []
    os_volume: Record | None = plan["os_source"]
    if os_volume is not None:
        volumes.link(state, os_volume, instance)
        os_volume["status"] = "attached"
    else:
        os_spec = body.os_volume
        os_volume = _create_attached_volume(
            state, caller, instance,
            name=os_spec.name if os_spec else f"OS-NVMe-{body.hostname}"[:255],
            size=os_spec.size if os_spec else instance_type.default_os_volume_gb,
            volume_type=catalog.OS_VOLUME_TYPE, is_os_volume=True, os_image=plan["image_type"],
            ssh_key_ids=plan["ssh_key_ids"],
            on_spot_discontinue=(os_spec.on_spot_discontinue if os_spec else None) or "keep_detached",
            tag_ids=tags.resolve_inputs(state, caller.project_id, os_spec.tags if os_spec else None),
        )
        new_volumes.append(os_volume)
    instance["os_volume_id"] = os_volume["id"]
    for spec in body.volumes or []:
        new_volumes.append(
            _create_attached_volume(
                state, caller, instance, name=spec.name, size=spec.size, volume_type=spec.type,
                on_spot_discontinue=spec.on_spot_discontinue or "keep_detached",
                tag_ids=tags.resolve_inputs(state, caller.project_id, spec.tags),
            )
        )
    for volume in plan["existing"]:
        volumes.link(state, volume, instance)
        volume["status"] = "attached"
    start_lifecycle(state, instance)
    _audit(state, caller, "create", instance)
    for volume in new_volumes:
        record_event(state, caller, "volume", "create", volume["id"], location_code=volume["location"], volume=volumes.view(state, volume))
    return instance


# -- spot eviction (control API) -----------------------------------------------------------------


# What a deploy can end in instead of running (the statuses a client waiting for a fleet must name).
SETUP_FAILURES = ("error", "installation_failed", "no_capacity")
BEING_SET_UP = frozenset({"new", "ordered", "validating", "provisioning"})


def fail_setup(state: Domain, instance: Record, status: str) -> None:
    """End an instance's setup in ``status`` (one of ``SETUP_FAILURES``) instead of running: the
    setup's scheduled steps no longer apply (they expect the status it had)."""
    if status not in SETUP_FAILURES:
        raise invalid(f"status must be one of {', '.join(SETUP_FAILURES)}")
    if instance["status"] not in BEING_SET_UP:
        raise ApiError(400, f"Instance {instance['id']} is {instance['status']}, not being set up")
    instance["status"] = status
    state.store.save(kinds.INSTANCES, instance)


def evict(state: Domain, instance: Record) -> None:
    if not instance["is_spot"]:
        raise ApiError(400, f"Instance {instance['id']} is not a spot instance")
    if instance["status"] in NOT_BILLED:
        raise ApiError(400, f"Instance {instance['id']} is already {instance['status']}")
    volume_table = state.store.table(kinds.VOLUMES)
    for volume_id in list(instance["volume_ids"]):
        volume = volume_table.get(volume_id)
        if volume is None:
            continue
        volumes.unlink(state, volume, instance)
        policy = volume["on_spot_discontinue"]
        if policy == "delete_permanently":
            volumes.delete_permanently(state, volume)
            action = "delete"
        elif policy == "move_to_trash":
            volumes.move_to_trash(state, volume)
            action = "trash"
        else:
            volumes.mark_detached(state, volume)
            action = "detach_complete"
        record_system_event(
            state, volume["project_id"], "volume", action, volume_id,
            location_code=volume["location"], volume=volumes.view(state, volume),
        )
    begin_removal(state, instance, "discontinued", "instance.discontinued")
    # the eviction is the service's own doing: an audit event without an actor
    record_system_event(
        state, instance["project_id"], "compute", "delete", instance["id"],
        location_code=instance["location"], compute=view(state, instance),
    )


TRANSITION_HOOKS = {
    "instance.provisioning": _provisioning,
    "instance.power_done": _power_done,
    "instance.remove": _remove,
}
