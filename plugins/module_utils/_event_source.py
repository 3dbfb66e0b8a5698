# Copyright: cloudcompute.cloud contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)

"""What the Event-Driven Ansible sources (``extensions/eda/plugins/event_source/``) share: the
API client built from a source's arguments (with the ``CLOUDCOMPUTE_*`` variables as fallback,
as for the modules), a poll that outlives transient failures, and a JSON state file written
atomically. Like ``_api.py`` it imports nothing from Ansible: ansible-rulebook loads the
sources in its own Python.
"""

import asyncio
import json
import logging
import math
import os
import tempfile

from ansible_collections.cloudcompute.cloud.plugins.module_utils._api import (
    DEFAULT_TOKEN_CACHE,
    ApiClient,
    ApiError,
)

# option -> (environment variable, default); the same names and fallbacks as the modules' options
CONNECTION_OPTIONS = {
    "api_url": ("CLOUDCOMPUTE_API_URL", None),
    "client_id": ("CLOUDCOMPUTE_CLIENT_ID", None),
    "client_secret": ("CLOUDCOMPUTE_CLIENT_SECRET", None),
    "validate_certs": ("CLOUDCOMPUTE_VALIDATE_CERTS", True),
    "request_timeout": ("CLOUDCOMPUTE_REQUEST_TIMEOUT", 30),
    "token_cache": ("CLOUDCOMPUTE_TOKEN_CACHE", DEFAULT_TOKEN_CACHE),
}

# Answers that polling again will not change: wrong credentials, a caller who may not read the
# resource, a bad request. The source stops with the API's message instead of retrying forever.
PERMANENT_STATUSES = (400, 401, 403, 404)
MAX_FAILURE_DELAY = 300.0
# A boolean argument as ansible-rulebook may pass it: a bool, or one of these words.
BOOLEAN_WORDS = dict.fromkeys(("1", "true", "yes", "on"), True) | dict.fromkeys(("0", "false", "no", "off"), False)
LOGGER = logging.getLogger(__name__)
# Fields of the API's records that are credentials, and what an event shows in their place (the
# mask the modules' results show, _module.JUPYTER_TOKEN_MASK): events land in extra-vars files,
# rule audits and logs.
SECRET_FIELDS = frozenset(["jupyter_token"])
SECRET_MASK = "********"


class SourceError(Exception):
    """A source's arguments are wrong, or the API refused it for good."""


def build_client(args, environ=None):
    """The API client of a source: its connection arguments, else the ``CLOUDCOMPUTE_*`` variables."""
    environ = os.environ if environ is None else environ
    settings = {
        option: environ.get(variable, default) if args.get(option) is None else args[option]
        for option, (variable, default) in CONNECTION_OPTIONS.items()
    }
    missing = [option for option in ("api_url", "client_id", "client_secret") if not settings[option]]
    if missing:
        variables = ", ".join(CONNECTION_OPTIONS[option][0] for option in missing)
        raise SourceError(f"missing {', '.join(missing)}: set the source argument or {variables}")
    settings["validate_certs"] = boolean(settings["validate_certs"], "validate_certs")
    settings["request_timeout"] = positive_number(settings["request_timeout"], "request_timeout")
    return ApiClient(**settings)


def hide_secrets(value):
    """``value`` (a record or an event, at any depth) with every credential field masked."""
    if isinstance(value, dict):
        return {
            key: SECRET_MASK if key in SECRET_FIELDS and item else hide_secrets(item) for key, item in value.items()
        }
    if isinstance(value, list):
        return [hide_secrets(item) for item in value]
    return value


def positive_number(value, name):
    try:
        number = float(value)
    except (TypeError, ValueError, OverflowError):
        number = 0
    if not (number > 0 and math.isfinite(number)):  # an infinite interval would never poll
        raise SourceError(f"{name} must be a positive number, got {value!r}")
    return number


def boolean(value, name):
    if isinstance(value, bool):
        return value
    try:
        return BOOLEAN_WORDS[str(value).strip().lower()]
    except KeyError:
        raise SourceError(f"{name} must be a boolean, got {value!r}") from None


async def poll_forever(name, interval, poll, deliver):
    """Every ``interval`` seconds, ``poll()`` for events (in a thread: it makes blocking requests)
    and ``await deliver(event)`` for each. A poll that fails is logged and tried again after a
    delay that doubles with each failure in a row, up to ``MAX_FAILURE_DELAY`` (or ``interval`` if
    longer); an API answer that polling again will not change stops the source (``name``) with the
    API's message."""
    failures = 0
    while True:
        try:
            events = await asyncio.to_thread(poll)
        except Exception as error:  # pylint: disable=broad-except
            if isinstance(error, ApiError) and error.status in PERMANENT_STATUSES:
                raise SourceError(f"{name}: {error.describe()}") from None
            failures += 1
            delay = min(interval * 2 ** min(failures, 16), max(interval, MAX_FAILURE_DELAY))
            LOGGER.warning("%s poll failed (%s); trying again in %.0f s", name, error, delay)
            await asyncio.sleep(delay)
            continue
        failures = 0
        for event in events:
            await deliver(event)
        await asyncio.sleep(interval)


def load_state(path):
    if not path:
        return None
    try:
        with open(path) as handle:
            return json.load(handle)
    except FileNotFoundError:  # the first run: nothing delivered yet
        return None
    except ValueError as error:
        raise SourceError(f"state_file {path} is not the JSON this source writes: {error}")


def save_state(path, state):
    """Replace the file in one step (write a sibling, rename): a crash leaves the old or the new."""
    directory = os.path.dirname(os.path.abspath(path))
    os.makedirs(directory, exist_ok=True)
    handle, temporary = tempfile.mkstemp(prefix=".state-", dir=directory)
    try:
        with os.fdopen(handle, "w") as output:
            json.dump(state, output)
        os.replace(temporary, path)
    except BaseException:
        os.unlink(temporary)
        raise
