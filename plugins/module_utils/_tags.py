# Copyright: cloudcompute.cloud contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)

"""Tags on instances, volumes and clusters: one way to validate, compare and converge them,
used by those modules and by the ``tag`` module.

The API lowercases keys, stores a freeform tag with the value ``""``, refuses an 11th tag and a
second tag with the same key (409), and deletes a tag by id or key.
"""

from ansible_collections.cloudcompute.cloud.plugins.module_utils._failure import ModuleFailure

MAX_TAGS = 10
MAX_KEY_LENGTH = 63
MAX_VALUE_LENGTH = 127


def normalize_tags(tags, any_value=False):
    """User tags (dict, or list of ``{key, value}``) as the API will store them: ``{key: value}``
    with lowercase keys and ``""`` for freeform tags. Raises ModuleFailure on what the API
    would refuse, so no call is made for it.

    ``any_value`` is for tags to remove: a missing or null value then stays None, meaning "this
    key, whatever its value" (as in the ``_info`` filters), while ``""`` means a freeform tag."""
    if tags is None:
        return None
    if isinstance(tags, dict):
        pairs = list(tags.items())
    elif isinstance(tags, list):
        pairs = []
        for tag in tags:
            if not isinstance(tag, dict) or "key" not in tag:
                raise ModuleFailure(f"each tag must be a dict with a key (and an optional value), got {tag!r}")
            pairs.append((tag["key"], tag.get("value")))
    else:
        raise ModuleFailure(f"tags must be a dictionary of key to value or a list of {{key, value}}, got {tags!r}")
    normalized = {}
    for key, value in pairs:
        key = str(key).strip().lower()
        if value is not None or not any_value:
            value = "" if value is None else str(value)
        if not key:
            raise ModuleFailure("tag keys must not be empty")
        if len(key) > MAX_KEY_LENGTH:
            raise ModuleFailure("tag key %r is longer than %d characters" % (key, MAX_KEY_LENGTH))
        if value is not None and len(value) > MAX_VALUE_LENGTH:
            raise ModuleFailure("the value of tag %r is longer than %d characters" % (key, MAX_VALUE_LENGTH))
        if key in normalized and normalized[key] != value:
            raise ModuleFailure(f"tag key {key!r} is given twice with different values (keys are not case-sensitive)")
        normalized[key] = value
    if len(normalized) > MAX_TAGS:
        raise ModuleFailure("at most %d tags are allowed per resource, got %d" % (MAX_TAGS, len(normalized)))
    return normalized


def desired_tags(params, resource=None):
    """The tags that the ``tags``, ``expires_in`` and ``expires_at`` options ask ``resource`` (None
    for one about to be created) to carry, as ``{key: value}``; None means leave them alone.

    The expiry is the ``expires-at`` tag, added to the tags given or, when ``tags`` is omitted,
    to the tags the resource already has (so nothing is purged). ``expires_in`` counts from the
    run that first sets the tag: a resource that already carries one keeps it, so running the
    same task again neither changes nor postpones it (``expires_at`` sets it exactly).
    """
    tags = normalize_tags(params.get("tags"))
    expires_in, expires_at = params.get("expires_in"), params.get("expires_at")
    if expires_in is None and expires_at is None:
        return tags
    # imported only by a task that sets an expiry: each task compiles what it imports
    from ansible_collections.cloudcompute.cloud.plugins.module_utils._expiry import EXPIRY_TAG, expiry_tag_value

    if expires_in is not None and expires_at is not None:
        raise ModuleFailure("expires_in and expires_at are mutually exclusive")
    option = "expires_in" if expires_in is not None else "expires_at"
    if tags and EXPIRY_TAG in tags:
        raise ModuleFailure(f"the expiry is given twice: by the {EXPIRY_TAG} tag and by {option}; give one")
    try:
        expiry = expiry_tag_value(expires_in=expires_in, expires_at=expires_at)
    except ValueError as error:
        raise ModuleFailure(f"{option}: {error}")
    current = current_tags(resource) if resource else {}
    if expires_in is not None and current.get(EXPIRY_TAG):
        expiry = current[EXPIRY_TAG]
    wanted = {**(current if tags is None else tags), EXPIRY_TAG: expiry}
    if len(wanted) > MAX_TAGS:
        raise ModuleFailure(
            f"at most {MAX_TAGS} tags are allowed per resource; with the {EXPIRY_TAG} tag there would be {len(wanted)}"
        )
    return wanted


def tag_inputs(tags):
    """``{key: value}`` tags as the API's create requests take them: ``[{key, value}]``."""
    return [{"key": key, "value": value} for key, value in sorted((tags or {}).items())]


def current_tags(resource):
    """``{key: value}`` of the tags on a resource, as the API returns them (a list of ``{id, key,
    value}``) or as a module returns them (a dict); a tag without a value (missing or null) is a
    freeform tag, ``""``. Keys are lowercase, as the API stores them. ``TypeError`` when the tags
    are neither (a record whose tags cannot be read is never taken for one without tags)."""
    tags = resource.get("tags")
    if tags is None:
        tags = []
    if isinstance(tags, dict):
        pairs = tags.items()
    elif not isinstance(tags, list):
        raise TypeError(f"tags are {type(tags).__name__}, neither a list nor a dict")
    else:
        pairs = [(tag["key"], tag.get("value")) for tag in tags if isinstance(tag, dict) and tag.get("key") is not None]
    return {str(key).strip().lower(): "" if value is None else value for key, value in pairs}


def shown_tags(record):
    """A record as module results show it: its ``tags`` as ``{key: value}`` (as the ``tags``
    option takes them and the inventory gives them) and the ids of those tags as ``tag_ids``
    (``{key: id}``; None for a tag check mode predicts). A record whose tags are not the API's
    list (none, or one that cannot be read) is shown as it is; an entry that is no tag is left out."""
    tags = record.get("tags") if isinstance(record, dict) else None
    if not isinstance(tags, list):
        return record
    entries = [tag for tag in tags if isinstance(tag, dict) and tag.get("key") is not None]
    return dict(
        record,
        tags=current_tags({"tags": entries}),
        tag_ids={str(tag["key"]).strip().lower(): tag.get("id") for tag in entries},
    )


def tag_changes(resource, desired, purge):
    """What must change so the resource carries ``desired`` tags: ``(to_add, to_remove)``.

    ``to_add`` is ``{key: value}``; ``to_remove`` is a list of the API's tag records. A tag
    whose value changes is removed and added again (the API refuses a second tag per key).
    With ``purge`` false, tags not listed stay. ``desired`` None means leave tags alone."""
    if desired is None:
        return {}, []
    present = current_tags(resource)
    to_add = {key: value for key, value in desired.items() if present.get(key) != value}
    to_remove = [
        tag for tag in resource.get("tags") or [] if tag["key"] in to_add or (purge and tag["key"] not in desired)
    ]
    remaining = len(present) - len(to_remove) + len(to_add)
    if remaining > MAX_TAGS:
        raise ModuleFailure(
            "the resource would carry %d tags, more than the %d allowed; remove some or use purge_tags"
            % (remaining, MAX_TAGS)
        )
    return to_add, to_remove


def tags_to_remove(resource, selection):
    """The resource's tag records that ``selection`` (``normalize_tags(..., any_value=True)``)
    names: a key with a None value whatever its value, otherwise only with that value."""
    return [
        tag
        for tag in resource.get("tags") or []
        if tag["key"] in selection and selection[tag["key"]] in (None, tag.get("value") or "")
    ]


def predicted_tags(resource, to_add, to_remove):
    """The tag list after the changes, for check mode and diffs."""
    removed = set(tag["key"] for tag in to_remove)
    tags = [tag for tag in resource.get("tags") or [] if tag["key"] not in removed]
    tags.extend({"id": None, "key": key, "value": value} for key, value in sorted(to_add.items()))
    return tags


def normalize_tag_filter(tags):
    """An ``_info`` module's tag filter ``{key: value}`` as ``[(key, value)]``, keys lowercased.

    A value of None matches the key with any value; ``""`` matches a freeform tag only."""
    if not tags:
        return []
    return sorted((str(key).strip().lower(), None if value is None else str(value)) for key, value in tags.items())


def tag_filter_query(tag_filter):
    """The API's repeatable ``tag`` query parameter: ``key`` (any value) or ``key=value``."""
    return [key if value is None else f"{key}={value}" for key, value in tag_filter]


def matches_tag_filter(resource, tag_filter):
    """Does the resource carry every tag of the filter (for lists the API cannot filter)?"""
    present = current_tags(resource)
    return all(key in present and (value is None or present[key] == value) for key, value in tag_filter)
