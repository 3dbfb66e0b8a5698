"""Projects and their balance: charging of instances and volumes.

A project's balance is computed when it is read, not ticked: ``balance`` (as last set) minus the
charges of items that stopped billing since (``closed_charges``) minus what every live billable
item has accrued since it started billing (or since the balance was last set). Charging an item
is therefore O(1) to start and stop, and a balance read is one pass over the project's items.

A billable kind has a rate function in ``state.billables`` (registered by the app factory); it
returns the item's price per hour, or ``None`` once the item no longer bills (an instance being
deleted). Before an item's rate changes (volume resize) or it stops billing, call
:func:`close_charges`.
"""

from __future__ import annotations

from cloudcompute_emulator.ports import Domain
from cloudcompute_emulator.store import Record

PROJECT_KIND = "projects"
CURRENCY = "usd"


def ensure_project(state: Domain, project_id: str) -> Record:
    project = state.store.get(PROJECT_KIND, project_id)
    if project is None:
        project = state.store.insert(
            PROJECT_KIND,
            {
                "id": project_id,
                "balance": state.settings.balance,
                "balance_set_at": state.clock.now(),
                "closed_charges": 0.0,
            },
        )
    return project


def set_balance(state: Domain, project_id: str, amount: float) -> None:
    project = ensure_project(state, project_id)
    project.update(balance=float(amount), balance_set_at=state.clock.now(), closed_charges=0.0)
    state.store.save(PROJECT_KIND, project)


def _accrued(record: Record, rate: float, project: Record, at: float) -> float:
    since = max(record.get("billed_from", at), project["balance_set_at"])
    return rate * max(0.0, at - since) / 3600.0


def close_charges(state: Domain, kind: str, record: Record, at: float | None = None) -> None:
    """Book what ``record`` accrued so far and restart its accrual at ``at`` (default now).

    Call it before changing anything its rate depends on, and when it stops billing.
    """
    moment = state.clock.now() if at is None else at
    rate = state.billables[kind](record)
    if rate:
        project = ensure_project(state, record["project_id"])
        project["closed_charges"] += _accrued(record, rate, project, moment)
        state.store.save(PROJECT_KIND, project)
    record["billed_from"] = moment
    state.store.save(kind, record)


def balance(state: Domain, project_id: str) -> float:
    project = ensure_project(state, project_id)
    now = state.clock.now()
    amount = project["balance"] - project["closed_charges"]
    for kind, rate_of in state.billables.items():
        for record in state.store.records(kind, project_id):
            rate = rate_of(record)
            if rate:
                amount -= _accrued(record, rate, project, now)
    return round(amount, 4)
