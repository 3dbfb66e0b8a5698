# Copyright: cloudcompute.cloud contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)

DOCUMENTATION = r"""
name: offers
short_description: What can be deployed now, where, and at what price
version_added: 0.2.0
description:
  - Joins the instance type catalog (hardware and prices) with live availability per location
    in one call and returns the matching offers, cheapest first.
  - One offer is one instance type in one location, on-demand or spot. Its price is the
    catalog's hourly price for that contract (the spot price for spot offers).
  - Costs two API calls whatever the filters (one more with O(spot) unset, which reads spot and
    on-demand availability).
author:
  - cloudcompute.cloud maintainers (@cloudcompute)
extends_documentation_fragment:
  - cloudcompute.cloud.common.plugin
options:
  gpu_model:
    description:
      - Only this GPU model, such as V(H100), V(A100) or V(L40S); case does not matter.
    type: str
  gpus:
    description:
      - Only instance types with exactly this many GPUs.
    type: int
  min_gpus:
    description:
      - Only instance types with at least this many GPUs.
    type: int
  min_gpu_memory_gb:
    description:
      - Only GPUs with at least this much memory each, in GB (V(80) for the 80 GB H100).
    type: int
  cpu_only:
    description:
      - V(true) for CPU instance types only, V(false) for GPU ones only; both when unset.
    type: bool
  spot:
    description:
      - V(true) for spot offers only, V(false) for on-demand only; both when unset.
    type: bool
  locations:
    description:
      - Only these location codes.
    type: list
    elements: str
  max_price_per_hour:
    description:
      - Only offers at most this hourly price (in the catalog's currency).
    type: float
  available:
    description:
      - V(true) returns only the offers with capacity now. V(false) returns every offer of the
        catalog in every location, with RV(_raw[].available) saying which have capacity.
    type: bool
    default: true
notes:
  - The credentials are needed (availability is not public); like the modules, they come from
    the options or the E(CLOUDCOMPUTE_API_URL), E(CLOUDCOMPUTE_CLIENT_ID) and
    E(CLOUDCOMPUTE_CLIENT_SECRET) environment variables, and the token cache is shared with them.
  - An instance type whose catalog price for a contract is not a finite amount of zero or more
    has no offer for that contract. An answer of another shape than the API documents (such as
    V(availabilities) that is not a list of type codes) fails the lookup, naming it.
  - Capacity moves by the minute, so an offer is a good first candidate, not a promise. Give the
    M(cloudcompute.cloud.instance) module several candidates in O(cloudcompute.cloud.instance#module:placement)
    so a lost race moves on to the next one.
seealso:
  - module: cloudcompute.cloud.instance
  - module: cloudcompute.cloud.availability_info
  - module: cloudcompute.cloud.instance_type_info
"""

EXAMPLES = r"""
- name: The cheapest 8x H100 that can be deployed now, on-demand
  ansible.builtin.set_fact:
    h100_offers: "{{ query('cloudcompute.cloud.offers', gpu_model='H100', gpus=8, spot=false) }}"

- name: Deploy it there, the next offers as fallbacks should the first be taken meanwhile
  cloudcompute.cloud.instance:
    hostname: trainer-1
    image: ubuntu-24.04-cuda-12.8-open-docker
    ssh_keys: [alice-laptop]
    placement:
      locations: "{{ h100_offers | map(attribute='location_code') | unique | list }}"
      instance_types: "{{ h100_offers | map(attribute='instance_type') | unique | list }}"
      strategy: cheapest
    on_no_capacity: wait
    wait_timeout: 1800
  when: h100_offers | length > 0

- name: Spot GPUs with at least 48 GB each under 1 USD an hour, in Finland
  ansible.builtin.debug:
    msg: "{{ item.instance_type }} in {{ item.location_code }}: {{ item.price_per_hour }} {{ item.currency }}/h"
  loop: "{{ query('cloudcompute.cloud.offers', spot=true, min_gpu_memory_gb=48, max_price_per_hour=1.0,
                  locations=['FIN-01', 'FIN-02', 'FIN-03']) }}"
"""

RETURN = r"""
_raw:
  description: The matching offers, cheapest first (equal prices by instance type, then location).
  type: list
  elements: dict
  contains:
    instance_type:
      description: Instance type code.
      type: str
      sample: 8H100.80S.176V
    location_code:
      description: Location code.
      type: str
      sample: FIN-01
    spot:
      description: Whether this is the spot offer.
      type: bool
    price_per_hour:
      description: Hourly price for this contract.
      type: float
      sample: 18.32
    currency:
      description: Currency of the price.
      type: str
      sample: usd
    gpu_model:
      description: GPU model (null for CPU types).
      type: str
      sample: H100
    gpus:
      description: Number of GPUs.
      type: int
      sample: 8
    gpu_memory_gb:
      description: Memory of each GPU in GB.
      type: int
      sample: 80
    gpu_memory_total_gb:
      description: Memory of all its GPUs together in GB.
      type: int
      sample: 640
    cpu_cores:
      description: Number of vCPUs.
      type: int
      sample: 176
    memory_gb:
      description: System memory in GB.
      type: int
      sample: 1480
    available:
      description: Whether it has capacity now (always true with O(available=true)).
      type: bool
"""

from ansible.errors import AnsibleLookupError
from ansible.plugins.lookup import LookupBase

from ansible_collections.cloudcompute.cloud.plugins.module_utils import _api
from ansible_collections.cloudcompute.cloud.plugins.module_utils._offers import filter_offers, offers_from

CONNECTION_OPTIONS = ("api_url", "client_id", "client_secret", "validate_certs", "request_timeout", "token_cache")


class LookupModule(LookupBase):
    def run(self, terms, variables=None, **kwargs):
        if terms:
            raise AnsibleLookupError(
                "cloudcompute.cloud.offers takes no terms, only options (such as gpu_model='H100')"
            )
        self.set_options(var_options=variables, direct=kwargs)
        if not _api.HAS_REQUESTS:
            raise AnsibleLookupError(
                f"cloudcompute.cloud.offers needs the requests Python library: {_api.REQUESTS_IMPORT_ERROR}"
            )
        options = self.get_options()
        connection = {name: options[name] for name in CONNECTION_OPTIONS}
        if not connection["api_url"]:
            raise AnsibleLookupError("cloudcompute.cloud.offers: api_url is missing (option or CLOUDCOMPUTE_API_URL)")
        try:
            client = _api.ApiClient(**connection)
            catalog = client.get_list("/instance-types", authenticated=False)
            availability = {}
            for spot in (False, True) if options["spot"] is None else (options["spot"],):
                availability[spot] = client.get_list(
                    "/instance-availability", params={"is_spot": "true"} if spot else None
                )
            # an answer of the wrong shape is an ApiError here too, never a crash or a guess
            offers = offers_from(catalog, availability)
        except _api.MissingCredentials as error:
            raise AnsibleLookupError(
                f"cloudcompute.cloud.offers: {error} (options client_id and client_secret, or "
                "CLOUDCOMPUTE_CLIENT_ID and CLOUDCOMPUTE_CLIENT_SECRET)"
            )
        except _api.ApiError as error:
            raise AnsibleLookupError(f"cloudcompute.cloud.offers: {error}")
        return filter_offers(offers, options)
