# Copyright: cloudcompute.cloud contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)

"""Expiry of resources: the ``expires-at`` tag, durations such as ``90m`` and the timestamps
in it, and which resources have expired.

The tag holds a UTC timestamp in ISO 8601 (``2026-11-24T18:00:00Z``). Anyone may write the
tag by hand, so reading it is tolerant (offsets, fractions of a second, a bare date) and a
value that is not a date is reported, never guessed at.

No Ansible imports: the ``expired`` filter, the modules and the roles share this file.
"""

import re
from datetime import datetime, timedelta, timezone

EXPIRY_TAG = "expires-at"

_DURATION_UNITS = {"s": 1, "m": 60, "h": 3600, "d": 86400, "w": 604800}
# re.ASCII: \d alone would take any Unicode digit (full-width, Devanagari...), which int() reads.
_DURATION = re.compile(r"^(?:\s*(\d+(?:\.\d+)?)\s*([smhdw]))+\s*$", re.ASCII)
_DURATION_PART = re.compile(r"(\d+(?:\.\d+)?)\s*([smhdw])", re.ASCII)
_TIMESTAMP = re.compile(
    r"^(\d{4})-(\d{2})-(\d{2})"
    r"(?:[Tt ](\d{2}):(\d{2})(?::(\d{2})(?:[.,](\d{1,9}))?)?"
    r"\s*(Z|z|[+-](?:[01]\d|2[0-3]):?[0-5]\d)?)?$",
    re.ASCII,
)


def parse_duration(text):
    """Seconds in a duration such as ``90m``, ``8h``, ``3d``, ``1w`` or ``1h30m``.

    Raises ``ValueError`` with a message saying what is accepted.
    """
    value = str(text).strip().lower()
    if not _DURATION.match(value):
        raise ValueError(f"{text!r} is not a duration: use a number and a unit, s, m, h, d or w (90m, 8h, 3d, 1h30m)")
    return sum(float(number) * _DURATION_UNITS[unit] for number, unit in _DURATION_PART.findall(value))


def parse_timestamp(text):
    """An aware UTC ``datetime`` from an ISO 8601 timestamp or date; ``ValueError`` otherwise.

    A timestamp without an offset is taken as UTC, the zone the API writes.
    """
    match = _TIMESTAMP.match(str(text).strip())
    if not match:
        raise ValueError(f"{text!r} is not an ISO 8601 date or timestamp (e.g. 2026-11-24T18:00:00Z)")
    *date_and_time, fraction, offset = match.groups()  # year, month, day, then what the text gives of the time
    microseconds = int((fraction or "0").ljust(6, "0")[:6])
    try:
        moment = datetime(*(int(part or 0) for part in date_and_time), microseconds, tzinfo=timezone.utc)
    except ValueError as error:
        raise ValueError(f"{text!r} is not an ISO 8601 date or timestamp: {error}")
    if offset and offset.upper() != "Z":
        sign = -1 if offset[0] == "-" else 1
        digits = offset[1:].replace(":", "")
        try:
            moment -= sign * timedelta(hours=int(digits[:2]), minutes=int(digits[2:]))
        except OverflowError:
            raise ValueError(f"{text!r} is not an ISO 8601 date or timestamp: it lies outside the years 1 to 9999")
    return moment


def format_timestamp(moment):
    """``moment`` in the form the ``expires-at`` tag holds: UTC, whole seconds, ``Z``."""
    return moment.astimezone(timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")


def utc_now():
    return datetime.now(timezone.utc)


def expiry_tag_value(expires_in=None, expires_at=None, now=None):
    """The ``expires-at`` tag value for ``expires_in`` (a duration from ``now``) or
    ``expires_at`` (a timestamp), normalised to UTC; None when neither is given."""
    if expires_in is not None:
        try:
            return format_timestamp((now or utc_now()) + timedelta(seconds=parse_duration(expires_in)))
        except OverflowError:
            raise ValueError(f"{expires_in!r} is too far in the future: the calendar ends with the year 9999")
    if expires_at is not None:
        return format_timestamp(parse_timestamp(expires_at))
    return None


def _tag_value(resource, key):
    """The value of the tag ``key`` on ``resource``, its tags a dict or the API's list of
    ``{key, value}``; keys match whatever their case and surrounding spaces, as the API
    lowercases them. None when there is no such tag; ``ValueError`` when two tags of that key
    disagree (written by hand), which must not be guessed at."""
    tags = resource.get("tags") if isinstance(resource, dict) else None
    if isinstance(tags, dict):
        pairs = tags.items()
    else:
        pairs = [(tag.get("key"), tag.get("value")) for tag in tags or [] if isinstance(tag, dict)]
    values = []
    for name, value in pairs:
        if name is not None and str(name).strip().lower() == key and value not in values:
            values.append(value)
    if len(values) > 1:
        raise ValueError(f"the {key} tag is given twice, with different values")
    return values[0] if values else None


def sort_by_expiry(resources, now, grace_seconds=0.0):
    """Split ``resources`` (API records with ``tags``) by their ``expires-at`` tag.

    Returns ``(expired, unreadable)``: the resources whose expiry plus ``grace_seconds`` lies at
    or before ``now``, each with ``expires_at`` (normalised) added; and those whose tag is not a
    date, each with ``expires_at`` (the raw value) and ``reason``. Resources without the tag
    are in neither list: nothing without the tag is ever touched.
    """
    expired, unreadable = [], []
    try:
        deadline = now - timedelta(seconds=grace_seconds)
    except OverflowError:  # a grace reaching before the calendar: nothing has expired that long ago
        return expired, unreadable
    for resource in resources or []:
        raw = None
        try:
            raw = _tag_value(resource, EXPIRY_TAG)
            if raw is None:
                continue
            moment = parse_timestamp(raw)
        except ValueError as error:
            unreadable.append(dict(resource, expires_at=raw, reason=str(error)))
            continue
        if moment <= deadline:
            expired.append(dict(resource, expires_at=format_timestamp(moment)))
    return expired, unreadable
