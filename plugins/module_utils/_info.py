# Copyright: cloudcompute.cloud contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)

"""What the read-only ``_info`` modules share: read a list, narrow it with local filters, and
return it under the module's plural key, changing nothing (so check mode is the same run).

An info module is a declaration: its path, its server-side query, whether the endpoint is
public, and its ``Filter`` options; ``exit_list_info`` does the rest. Public catalog endpoints
are read without a token, so they need no credentials and cost no token exchange. A resource
module's ``id`` option reads that one resource (an empty list when the API does not know it).

Filters compare one way in every info module:

- codes of the public catalogs — instance and cluster type codes, GPU models, manufacturers,
  location and country codes, image types and categories — match whatever their case, as a
  user types ``h100`` or ``fin-01`` (``equals_any_case``, the default, and ``includes``);
- what a user names or the API reports — ids, names, hostnames, statuses, tag values — matches
  exactly, as the API spells it (``exactly``, ``contains_text``, ``carries_tags``); tag keys
  match whatever their case, as the API lowercases them;
- numbers compare as numbers (``at_least``, ``at_most``), and several filters combine with AND.
"""

from contextlib import contextmanager

from ansible_collections.cloudcompute.cloud.plugins.module_utils._api import ApiError, api_path, path_value
from ansible_collections.cloudcompute.cloud.plugins.module_utils._module import CloudComputeModule
from ansible_collections.cloudcompute.cloud.plugins.module_utils._offers import as_number
from ansible_collections.cloudcompute.cloud.plugins.module_utils._resource import fetch_or_none
from ansible_collections.cloudcompute.cloud.plugins.module_utils._tags import (
    matches_tag_filter,
    normalize_tag_filter,
    shown_tags,
)


def field_value(item, path):
    """The value at a dotted ``path`` in a nested dict (``gpu.number_of_gpus``); None if absent;
    the item itself for the path None."""
    for part in path.split(".") if path else ():
        item = item.get(part) if isinstance(item, dict) else None
    return item


def _folded(value):
    return value.lower() if isinstance(value, str) else value


# Tests: test(value of the item's field, the option's value) -> keep the item?
def equals_any_case(value, wanted):
    """The field equals the wanted value, or one of them for a list option; text compares
    whatever its case (catalog codes)."""
    wanted = wanted if isinstance(wanted, list) else [wanted]
    return _folded(value) in [_folded(entry) for entry in wanted]


def exactly(value, wanted):
    """The field is the wanted value as the API spells it (names, ids, hostnames, statuses)."""
    return value == wanted


def contains_text(value, wanted):
    """The field is text holding the wanted text, in the same case (a part of a name)."""
    return isinstance(value, str) and wanted in value


def includes(values, wanted):
    """The field is a list that holds the wanted value, whatever its case (catalog codes)."""
    return isinstance(values, list) and equals_any_case(wanted, values)


def carries_tags(tags, wanted):
    """The field is the API's tag records and holds every tag of the wanted ``{key: value}``:
    keys whatever their case (the API lowercases them), values exactly; a null value matches
    the key with any value."""
    return matches_tag_filter({"tags": tags}, normalize_tag_filter(wanted))


def at_least(value, wanted):
    number = as_number(value)  # catalog prices are numeric strings, counts are integers
    return number is not None and number >= wanted


def at_most(value, wanted):
    number = as_number(value)
    return number is not None and number <= wanted


class Filter:
    """A filter option of an info module: keep the items whose ``field`` (a dotted path; None for
    the whole item) passes ``test(value, option value)``. An option left unset (None, or an
    empty list or dict) keeps all. ``spec`` is the option's argument spec, for ``filter_options``;
    a filter without one (those shared by options of different specs) leaves its option to the
    module to declare."""

    def __init__(self, option, field, test=equals_any_case, **spec):
        self.option = option
        self.field = field
        self.test = test
        self.spec = spec

    def keeps(self, item, wanted):
        return self.test(field_value(item, self.field), wanted)


def filter_options(filters, **options):
    """An info module's argument spec: the option of each filter that declares it, and the other ``options``."""
    return dict({item_filter.option: item_filter.spec for item_filter in filters if item_filter.spec}, **options)


def apply_filters(items, filters, params):
    for item_filter in filters:
        wanted = params.get(item_filter.option)
        if wanted not in (None, [], {}):
            items = [item for item in items if item_filter.keeps(item, wanted)]
    return items


@contextmanager
def hinted(hints):
    """Append advice to the text of an API error by its HTTP status (``hints``: status -> text);
    the ``failure`` keeps the API's code and message."""
    try:
        yield
    except ApiError as error:
        hint = (hints or {}).get(error.status)
        if hint:
            raise error.with_hint(hint)
        raise


def unknown_type_hints(kind, code):
    """``hints`` for a request about the instance or cluster type ``code`` (``kind``): a 404 says
    the API does not know it, and where the valid codes are."""
    return {
        404: f"The API does not know the {kind} type {code!r}; cloudcompute.cloud.{kind}_type_info lists the valid codes."
    }


def set_only(values):
    """The entries of a query or body that are set: the API treats null as absent, we omit it."""
    return dict((name, value) for name, value in (values or {}).items() if value is not None)


def read(client, path, query=None, public=False, hints=None):
    """GET ``path`` with the query parameters that are set. ``public`` endpoints are read without
    a token. ``hints`` as for ``hinted``."""
    with hinted(hints):
        return client.get(path, params=set_only(query) or None, authenticated=not public)


def read_list(client, path, query=None, public=False, hints=None):
    with hinted(hints):
        return client.get_list(path, params=set_only(query) or None, authenticated=not public)


def exit_info(module, read_results):
    """Run ``read_results()`` (a dict of result keys) and exit unchanged, or fail cleanly."""
    module.exit_json(changed=False, **module.run(read_results))


def run_info(argument_spec, read_results):
    """The whole ``main()`` of an info module: the module with these options, then ``exit_info``
    with ``read_results(module)``."""
    module = CloudComputeModule(argument_spec=argument_spec)
    exit_info(module, lambda: read_results(module))


def exit_list_info(
    module, key, path, query=None, filters=(), public=False, hints=None, paged=False, list_all=None, shown=None
):
    """The whole behaviour of an info module that returns a list under ``key``:

    - when the module's ``id`` option is set, the one item at ``path``/id, or none when the API
      answers 404;
    - otherwise the list at ``path`` with the entries of ``query`` that are set (the API's own
      filters), every page of it when ``paged``; ``list_all()`` instead where the list takes
      more than one read;
    - of those, the items every filter option keeps (the API's filters are applied again, so
      an API that ignores one still gives the right answer), passed through ``shown`` (to mask
      credentials) when given; tags as ``{key: value}``, their ids as ``tag_ids``
      (``_tags.shown_tags``).
    """
    params = module.params

    def read_items():
        client = module.client  # built inside module.run, which reports what building it refuses
        if params.get("id"):
            found = fetch_or_none(client, api_path(path, path_value(params["id"], "id")))
            return [found] if found else []
        if list_all:
            return list_all()
        if paged:
            return client.get_all_pages(path, params=set_only(query))
        return read_list(client, path, query=query, public=public, hints=hints)

    # Only the module's own options: the alias ``name`` of a ``hostname`` option is no name filter.
    own_filters = [item_filter for item_filter in filters if item_filter.option in module.argument_spec]

    def read_results():
        items = [shown_tags(item) for item in apply_filters(read_items(), own_filters, params)]
        return {key: shown(items) if shown else items}

    exit_info(module, read_results)


def list_info(key, path, filters=(), options=None, query=None, **listing):
    """The whole ``main()`` of an info module that returns a list: the module, whose options are
    those of its ``filters`` and ``options`` (``filter_options``), then ``exit_list_info``, with the
    API's filters ``query(params)`` made from the module's options when the query depends on them
    and the rest (``public``, ``paged``...) as there."""
    module = CloudComputeModule(argument_spec=filter_options(filters, **(options or {})))
    query = query(module.params) if query else None
    exit_list_info(module, key, path, query=query, filters=filters, **listing)


# The hardware catalogs (instance types, cluster types): public, priced in the chosen currency,
# and filtered alike by GPU model, manufacturer, price and supported image.
PRICED_CATALOG_FILTERS = (
    Filter("gpu_model", "model", type="list", elements="str"),
    Filter("manufacturer", "manufacturer", type="list", elements="str"),
    Filter("max_price_per_hour", "price_per_hour", at_most, type="float"),
    Filter("image", "supported_os", includes, type="str"),
)
PRICED_CATALOG_OPTIONS = dict(currency=dict(type="str", choices=["usd", "eur"], default="usd"))


def priced_catalog_info(key, path, filters):
    """The ``main()`` of a hardware catalog, with the module's own ``filters``, in the chosen currency."""

    def in_currency(params):
        return {"currency": params["currency"]}

    list_info(key, path, PRICED_CATALOG_FILTERS + filters, PRICED_CATALOG_OPTIONS, query=in_currency, public=True)


# The filter options of the resource info modules, each filtering the same way in every module
# that has it (the API's records of instances, clusters and volumes name the location
# ``location``). A module passes them all; those of options it does not declare are skipped.
RESOURCE_FILTERS = (
    Filter("name", "name", exactly),
    Filter("hostname", "hostname", exactly),
    Filter("status", "status", exactly),
    Filter("location_code", "location"),
    Filter("instance_type", "instance_type"),
    Filter("cluster_type", "cluster_type"),
    Filter("tags", "tags", carries_tags),
)
# The options the info modules of instances, clusters and volumes share: the one by id, or those
# in a status, in a location and carrying tags.
DEPLOYED_RESOURCE_OPTIONS = dict(
    id=dict(type="str"),
    status=dict(type="str"),
    location_code=dict(type="str", aliases=["location"]),
    tags=dict(type="dict"),
)
