"""Instances: records, the view the API returns, address allocation, the state machine of
decisions.md ("Instance") and spot eviction.

create -> ``ordered`` -> ``provisioning`` (address assigned) -> ``running``;
shutdown/force_shutdown: ``running`` -> ``offline`` and start/boot: ``offline`` -> ``running``, the
status flipping when the power action completes (``pending_power`` meanwhile);
delete/discontinue/delete_stuck/hibernate -> ``deleting`` -> gone; evicted spot -> ``discontinued`` -> gone.
"""

from __future__ import annotations

import ipaddress
import secrets
from typing import TYPE_CHECKING, Any

from cloudcompute_emulator import catalog, kinds, tags
from cloudcompute_emulator.audit import record_system_event
from cloudcompute_emulator.clock import isoformat, new_id
from cloudcompute_emulator.errors import ApiError, invalid, not_found
from cloudcompute_emulator.lifecycle import transition_hook
from cloudcompute_emulator.projects import close_charges, register_billable
from cloudcompute_emulator.resources import volumes
from cloudcompute_emulator.store import Record

if TYPE_CHECKING:
    from cloudcompute_emulator.context import ApiContext
    from cloudcompute_emulator.state import EmulatorState

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


def _instance_rate(instance: Record) -> float | None:
    return None if instance["status"] in NOT_BILLED else instance["price_per_hour"]


register_billable(kinds.INSTANCES, _instance_rate)


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


def allocate_address(state: EmulatorState) -> str:
    """A public address (instances, cluster jump hosts and workers share one sequence)."""
    index = state.store.next_counter("instance_ip_counter") - 1
    if state.settings.instance_ip_mode == "loopback":
        return _loopback_address(index)
    return _public_address(index)


_PRIVATE_POOL = ipaddress.ip_network("10.0.0.0/8")


def allocate_private_address(state: EmulatorState) -> str:
    """A private-network address (cluster workers), 10.0.0.1 upward, .0 and .255 skipped."""
    index = state.store.next_counter("private_ip_counter") - 1
    block, offset = divmod(index % (_PRIVATE_POOL.num_addresses // 256 * 254), 254)
    return str(_PRIVATE_POOL.network_address + block * 256 + offset + 1)


# -- records and view ----------------------------------------------------------------------------


def new_record(
    state: EmulatorState,
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


def view(state: EmulatorState, instance: Record) -> dict[str, Any]:
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


def find(ctx: ApiContext, instance_id: str) -> Record:
    instance = ctx.store.get(kinds.INSTANCES, instance_id)
    if instance is None or instance["project_id"] != ctx.project_id:
        raise not_found(f"Instance {instance_id}")
    return instance


# -- transitions ---------------------------------------------------------------------------------


def start_lifecycle(state: EmulatorState, instance: Record, start: float | None = None) -> None:
    state.scheduler.schedule_step(
        state, kinds.INSTANCES, instance, "instance.ordered", start=start, hook="instance.provisioning"
    )


@transition_hook("instance.provisioning")
def _provisioning(state: EmulatorState, instance: Record, at: float, _params: dict) -> None:
    instance["status"] = "provisioning"
    if instance["ip"] is None:
        instance["ip"] = allocate_address(state)
    state.store.save(kinds.INSTANCES, instance)
    state.scheduler.schedule_step(
        state, kinds.INSTANCES, instance, "instance.provisioning", start=at, to_status="running"
    )


@transition_hook("instance.power_done")
def _power_done(state: EmulatorState, instance: Record, _at: float, params: dict) -> None:
    instance["status"] = params["to"]
    instance["pending_power"] = None
    state.store.save(kinds.INSTANCES, instance)


@transition_hook("instance.remove")
def _remove(state: EmulatorState, instance: Record, at: float, _params: dict) -> None:
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


def begin_removal(state: EmulatorState, instance: Record, status: str, step: str, at: float | None = None) -> None:
    """Stop charging now and remove the instance after ``step``."""
    moment = state.clock.now() if at is None else at
    close_charges(state, kinds.INSTANCES, instance, moment)
    instance["status"] = status
    instance["pending_power"] = None
    state.store.save(kinds.INSTANCES, instance)
    state.scheduler.schedule_step(state, kinds.INSTANCES, instance, step, start=moment, hook="instance.remove")


# -- actions (PUT /v1/instances) -----------------------------------------------------------------


def _power(state: EmulatorState, instance: Record, action: str) -> bool:
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


def _delete(state: EmulatorState, instance: Record, action: str, volume_ids: list[str] | None, permanently: bool) -> bool:
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


def _hibernate(state: EmulatorState, instance: Record) -> bool:
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
    state: EmulatorState, instance: Record, action: str, volume_ids: list[str] | None, permanently: bool
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


# -- spot eviction (control API) -----------------------------------------------------------------


def evict(state: EmulatorState, instance: Record) -> None:
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
