# -*- coding: utf-8 -*-
# Copyright: cloudcompute.cloud contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)

"""What the read-only ``_info`` modules share: read a list, narrow it with local filters, and
return it under the module's plural key, changing nothing (so check mode is the same run).

A catalog module is a declaration: its path, its query, whether the endpoint is public, and its
``Filter`` options. Public catalog endpoints are read without a token, so they need no
credentials and cost no token exchange.
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

from contextlib import contextmanager

from ansible_collections.cloudcompute.cloud.plugins.module_utils._api import ApiError


def field_value(item, path):
    """The value at a dotted ``path`` in a nested dict (``gpu.number_of_gpus``); None if absent."""
    for part in path.split("."):
        item = item.get(part) if isinstance(item, dict) else None
    return item


def _folded(value):
    return value.lower() if isinstance(value, str) else value


def _number(value):
    """Catalog prices are numeric strings, counts are integers: compare both as numbers."""
    try:
        return float(value)
    except (TypeError, ValueError):
        return None


# Tests: test(value of the item's field, the option's value) -> keep the item?
def one_of(value, wanted):
    """The field equals one of the wanted values (a list option); text compares case-insensitively."""
    return _folded(value) in [_folded(entry) for entry in wanted]


def equals(value, wanted):
    return _folded(value) == _folded(wanted)


def includes(values, wanted):
    """The field is a list that holds the wanted value (case-insensitively)."""
    return isinstance(values, list) and one_of(wanted, values)


def at_least(value, wanted):
    number = _number(value)
    return number is not None and number >= wanted


def at_most(value, wanted):
    number = _number(value)
    return number is not None and number <= wanted


class Filter:
    """A filter option of an info module: keep the items whose ``field`` (a dotted path) passes
    ``test(value, option value)``. An option left unset (None, or an empty list) keeps all."""

    def __init__(self, option, field, test=one_of):
        self.option = option
        self.field = field
        self.test = test

    def keeps(self, item, wanted):
        return self.test(field_value(item, self.field), wanted)


def apply_filters(items, filters, params):
    for item_filter in filters:
        wanted = params.get(item_filter.option)
        if wanted is None or wanted == []:
            continue
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


def exit_list_info(module, key, path, query=None, filters=(), public=False, hints=None):
    """The whole behaviour of a plain catalog info module: read ``path``, keep what the filter
    options ask for, and exit with the list under ``key``."""
    def read_results():
        items = read_list(module.client, path, query=query, public=public, hints=hints)
        return {key: apply_filters(items, filters, module.params)}
    exit_info(module, read_results)
