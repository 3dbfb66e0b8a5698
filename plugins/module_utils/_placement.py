# Copyright: cloudcompute.cloud contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)

"""Capacity-aware placement of a new instance or cluster, shared by ``instance`` and ``cluster``.

GPU capacity is scarce and moves by the minute. Given candidate locations and types (the
``placement`` option), the module reads availability once for all of them, deploys to the first
candidate that has capacity (or the cheapest, with ``strategy: cheapest``), and when that deploy
still answers 503 (another customer took the last unit in between) it moves on to the next
candidate that had capacity, reading availability again before it deploys there (every deploy
is sent on a yes read after the last 503). With ``on_no_capacity: wait`` it polls availability, never by
deploying and failing, until a candidate has capacity, within the task's one ``wait_timeout``.
With a price cap, the candidates whose plan would cost more are skipped without asking for
their availability.

Candidates are taken type by type, each in every location in order (the type is usually the
choice that matters: an H100 anywhere before an H200 anywhere); with ``on_demand_fallback`` the
same candidates as on-demand follow all the spot ones.
"""

import functools

from ansible_collections.cloudcompute.cloud.plugins.module_utils._api import ApiError
from ansible_collections.cloudcompute.cloud.plugins.module_utils._cost import over_cap
from ansible_collections.cloudcompute.cloud.plugins.module_utils._cost_report import money
from ansible_collections.cloudcompute.cloud.plugins.module_utils._module import ModuleFailure
from ansible_collections.cloudcompute.cloud.plugins.module_utils._offers import availability_entry

# How often availability is read again while waiting (seconds): soon at first, then every 15
# seconds at most, since freed capacity is often taken again within a minute (four reads a
# minute per waiting task; the rate-limit headers stretch it further when the quota runs low).
FIRST_POLL_INTERVAL = 2.0
MAX_POLL_INTERVAL = 15.0

# ``tried[].outcome`` values
DEPLOYED = "deployed"
PREDICTED = "predicted"
NO_CAPACITY = "no_capacity"
TAKEN = "no_capacity_on_deploy"  # availability said yes, the deploy said 503: a race lost
OVER_PRICE_CAP = "over_price_cap"
NOT_OFFERED = "not_offered"  # the type is not in the catalog: no capacity will ever appear for it


class Placement:
    """Where a new instance or cluster (``resource``, the module's ``Compute``) goes. A task that
    gives neither ``placement`` nor ``on_no_capacity: wait`` has none: it deploys to its one
    ``location_code``, without the extra availability and catalog reads."""

    def __init__(self, resource):
        self.resource = resource
        self.module = resource.module
        self.client = resource.client
        self.budget = resource.budget
        self.kind = resource.key
        self.type_field = resource.type_option
        self.types_option = f"{self.type_field}s"
        params = resource.params
        self.options = params["placement"] or {}
        self.on_no_capacity = params["on_no_capacity"]
        self.spot = bool(params.get("spot") or params.get("contract") == "SPOT")
        # the candidates: those placement lists, else the one the task names
        self.locations = self.options.get("locations") or [code for code in [params["location_code"]] if code]
        self.types = self.options.get(self.types_option) or [code for code in [params[self.type_field]] if code]

    # ------------------------------------------------------------------- validation

    def validate(self):
        """Refuse contradictory placement input before any API call."""
        params = self.module.params
        for option, listed, candidates in (
            ("location_code", "locations", self.locations),
            (self.type_field, self.types_option, self.types),
        ):
            if self.options.get(listed) and params[option] and params[option] not in self.options[listed]:
                raise ModuleFailure(
                    f"{option}={params[option]} is not among placement.{listed} ({', '.join(self.options[listed])}): "
                    "give one or the other"
                )
            if len(set(candidates)) != len(candidates):
                raise ModuleFailure(f"placement.{listed} lists the same entry twice: {', '.join(candidates)}")
        if self.options.get("on_demand_fallback") and not self.spot:
            raise ModuleFailure("placement.on_demand_fallback only applies to a spot request (spot=true)")
        if len(self.locations) > 1 and params.get("existing_volumes"):
            raise ModuleFailure("existing_volumes live in one location: with them, give a single location")
        if len(self.locations) > 1 and params.get("existing_os_volume"):
            raise ModuleFailure("existing_os_volume lives in one location: with it, give a single location")

    def supplies(self, option):
        """Does the placement give what the deploy option ``option`` would (a location, a type)?"""
        return bool((option == "location_code" and self.locations) or (option == self.type_field and self.types))

    # ------------------------------------------------------------------- candidates

    def candidates(self, in_order=True):
        """Every candidate, ``[(location_code, type, spot)]``; ``in_order``: in the order it is tried
        (``strategy: cheapest`` reads the catalog prices for it)."""
        spot_values = [self.spot] + ([False] if self.options.get("on_demand_fallback") else [])
        ordered = [(location, code, spot) for spot in spot_values for code in self.types for location in self.locations]
        if in_order and self.options.get("strategy") == "cheapest":
            # stable: equal prices keep the order given
            # one without a price goes last (deploying it, the cost guard refuses it)
            ordered.sort(key=lambda candidate: (candidate[2] != self.spot, *unpriced_last(self.price(candidate))))
        return ordered

    def candidate_of(self, resource):
        """Where an existing resource is, as a candidate."""
        return (resource.get("location"), resource.get(self.type_field), bool(resource.get("is_spot")))

    def accepts(self, resource):
        """Is an existing resource in one of the candidates (so it is the one the task means)?"""
        return self.candidate_of(resource) in self.candidates(in_order=False)

    @functools.cached_property
    def catalog_prices(self):
        """``{(type, spot): price per hour}`` from the catalog of the types (None: no price)."""
        return {
            (item.get(self.type_field), spot): price_or_none(item.get("spot_price" if spot else "price_per_hour"))
            for item in self.resource.prices.catalog(f"/{self.kind}-types")
            for spot in (False, True)
            if isinstance(item.get(self.type_field), str)
        }

    def price(self, candidate):
        return self.catalog_prices.get(candidate[1:])

    def offered(self, candidate):
        """Does the catalog sell the candidate's type (spot or not)? The API says which types it
        sells, not in which locations: a type sold elsewhere only is told by availability."""
        return candidate[1:] in self.catalog_prices

    def available(self):
        """The candidates with capacity now: one availability read per spot value in play. An
        answer of the wrong shape is an ``ApiError`` naming it."""
        found = set()
        path = f"/{self.kind}-availability"
        for spot in sorted(set(candidate[2] for candidate in self.candidates())):
            params = {"is_spot": "true"} if spot else None
            if len(self.locations) == 1:
                params = dict(params or {}, location_code=self.locations[0])
            for entry in self.client.get_list(path, params=params):
                location, codes = availability_entry(entry, path)
                found.update((location, code, spot) for code in codes)
        return found

    # -------------------------------------------------------------------- placement

    def body_for(self, body, location, code, spot):
        """The deploy request ``body`` aimed at one candidate."""
        placed = dict(body, location_code=location, **{self.type_field: code})
        if self.kind == "instance":
            placed.pop("is_spot", None)
            if placed.get("contract") == "SPOT":
                del placed["contract"]
            if spot:
                placed["is_spot"] = True
        return placed

    def where(self, candidate):
        return dict(zip(("location_code", self.type_field, "spot"), candidate))

    def describe(self, candidate, outcome, cost_value=None):
        described = dict(self.where(candidate), outcome=outcome)
        if cost_value is not None:
            described["price_per_hour"] = cost_value["price_per_hour"]
        return described

    def name(self, candidate):
        location, code, spot = candidate
        return f"{code}{' (spot)' if spot else ''} in {location}"

    def tried_with(self, costs, outcome):
        """Every candidate as ``tried`` reports it: ``outcome`` with its price for those in
        ``costs``, ``not_offered`` for the others."""
        return [
            self.describe(candidate, outcome, costs[candidate])
            if candidate in costs
            else self.describe(candidate, NOT_OFFERED)
            for candidate in self.candidates()
        ]

    def result(self, candidate, tried, price=None):
        return dict(
            self.where(candidate), price_per_hour=self.price(candidate) if price is None else price, tried=tried
        )

    def of_existing(self, resource):
        """The ``placement`` result of a resource that already exists (nothing tried)."""
        return self.result(self.candidate_of(resource), [], price=price_or_none(resource.get("price_per_hour")))

    def over_cap_candidates(self, body):
        """``{candidate: cost}`` of the candidates for which deploying ``body`` would cost more than
        ``max_price_per_hour``; a failure when all are (those the catalog sells): one sentence
        naming the cheapest, every candidate's price in ``placement.tried``."""
        cap = self.module.params["max_price_per_hour"]
        if cap is None:
            return {}

        candidates = [candidate for candidate in self.candidates() if self.offered(candidate)]
        costs = {candidate: self.resource.deploy_cost(self.body_for(body, *candidate)) for candidate in candidates}
        over = {candidate: cost_value for candidate, cost_value in costs.items() if over_cap(cost_value, cap, "")}
        if candidates and len(over) == len(candidates):
            cheapest = min(candidates, key=lambda candidate: costs[candidate]["price_per_hour"])
            cheapest_cost = costs[cheapest]
            raise ModuleFailure(
                f"every placement candidate of {self.kind} {self.module.params['hostname']} is over max_price_per_hour "
                f"{cap}: the cheapest, {self.name(cheapest)}, would cost {cheapest_cost['price_per_hour']} "
                f"{cheapest_cost['currency']}/h; nothing was changed (each candidate's price in placement.tried, the "
                "cheapest one's basis in deploy_cost)",
                deploy_cost=cheapest_cost,
                placement={"tried": self.tried_with(costs, OVER_PRICE_CAP)},
            )
        return over

    def place(self, body):
        """Deploy ``body`` (``Compute.create_deployed``) to the first candidate that takes it; return
        ``(id, placement)``. In check mode nothing is deployed and the id is None: the placement is
        the one the availability read predicts. The candidates where ``body`` would cost more than
        the task's cap are skipped without asking for their capacity."""
        interval = FIRST_POLL_INTERVAL
        over_the_cap = self.over_cap_candidates(body)
        while True:
            tried = []
            candidate, resource_id = self.first_taker(body, over_the_cap, tried)
            if candidate:
                return resource_id, self.result(candidate, tried)
            remaining = self.budget.remaining()
            never = all(item["outcome"] == NOT_OFFERED for item in tried)  # waiting would not help
            if self.on_no_capacity != "wait" or remaining <= 0 or never:
                raise self.no_capacity(tried)
            if self.module.check_mode:
                # a real run would wait: say so rather than guess where capacity will appear
                self.module.warn(
                    f"no candidate has capacity now; a real run would wait up to {self.budget.timeout}s for one"
                )
                return None, dict(self.where((None, None, self.spot)), price_per_hour=None, tried=tried)
            self.budget.sleep(min(remaining, max(interval, self.client.pacing_delay())))
            interval = min(MAX_POLL_INTERVAL, interval * 1.5)

    def first_taker(self, body, over_the_cap, tried):
        """One pass over the candidates, from a fresh availability read: ``(candidate, id)`` of the
        first that takes the deploy (in check mode, that would: the id is None), ``(None, None)``
        when none does. Each candidate's outcome is added to ``tried``."""
        available, stale = self.available(), False
        for candidate in self.candidates():
            if not self.offered(candidate):
                tried.append(self.describe(candidate, NOT_OFFERED))
                continue
            if candidate in over_the_cap:
                tried.append(self.describe(candidate, OVER_PRICE_CAP, over_the_cap[candidate]))
                continue
            if stale and candidate in available:
                # a deploy answered 503 after this read, so the capacity it shows here may be
                # gone too: deploy only if a fresh read still shows it
                available, stale = self.available(), False
            if candidate not in available:
                tried.append(self.describe(candidate, NO_CAPACITY))
                continue
            if self.module.check_mode:
                tried.append(self.describe(candidate, PREDICTED))
                return candidate, None
            try:
                resource_id = self.resource.create_deployed(self.body_for(body, *candidate))
            except ApiError as error:
                if error.status != 503:
                    raise
                tried.append(self.describe(candidate, TAKEN))
                stale = True
                continue
            tried.append(self.describe(candidate, DEPLOYED))
            return candidate, resource_id
        return None, None

    def no_capacity(self, tried):
        outcomes = {
            NO_CAPACITY: "no capacity",
            TAKEN: "taken by another deploy (503)",
            OVER_PRICE_CAP: "over max_price_per_hour",
            NOT_OFFERED: "not in the catalog",
        }
        said = "; ".join(
            f"{item['location_code']} {item[self.type_field]}{' (spot)' if item['spot'] else ''}: "
            f"{outcomes[item['outcome']]}"
            for item in tried
        )
        what = f"{self.kind} {self.module.params['hostname']}"
        if self.on_no_capacity == "wait":
            said = (
                f"no capacity for {what} after waiting {self.budget.timeout}s (wait_timeout); every candidate: {said}. "
            )
            hint = "add locations or types to placement, or a longer wait_timeout."
        else:
            said = f"no capacity for {what} now; every candidate: {said}. "
            hint = "add locations or types to placement, retry later, or give on_no_capacity=wait to wait for capacity within wait_timeout."
        if all(item["outcome"] == NOT_OFFERED for item in tried):
            hint = f"cloudcompute.cloud.{self.kind}_type_info lists the types the catalog sells."
        else:
            hint = "cloudcompute.cloud.offers lists what is available now; " + hint
        return ModuleFailure(said + hint, placement={"tried": tried})


def price_or_none(value):
    """A price from the API as reported in ``placement`` (None when it is no price): only the
    cost guard decides on prices, and it refuses what it cannot read."""
    try:
        return money(value, "price")
    except ValueError:
        return None


def unpriced_last(price):
    return (price is None, price or 0.0)
