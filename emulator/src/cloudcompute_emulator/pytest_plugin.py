"""pytest plugin (entry point ``pytest11``): an emulator for your tests.

Fixtures:

- ``emulator`` (session): a :class:`~cloudcompute_emulator.testing.RunningEmulator` started with
  the ``test`` timing profile and production rate limits, unless configured otherwise;
- ``emulator_reset`` (function): the same emulator, reset before the test (resources, faults,
  request log and settings back to the session's);
- ``emulator_settings`` (session): the settings used; override this fixture, or set the ini
  option ``cloudcompute_emulator_settings`` to a JSON object, to change them.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import pytest

from cloudcompute_emulator.testing import RunningEmulator, run_emulator

DEFAULT_SETTINGS: dict[str, Any] = {"profile": "test"}


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.addini(
        "cloudcompute_emulator_settings",
        "JSON object of emulator settings for the 'emulator' fixture (see the emulator README)",
        default="",
    )


@pytest.fixture(scope="session")
def emulator_settings(pytestconfig: pytest.Config) -> dict[str, Any]:
    configured = pytestconfig.getini("cloudcompute_emulator_settings")
    return {**DEFAULT_SETTINGS, **(json.loads(configured) if configured else {})}


@pytest.fixture(scope="session")
def emulator(emulator_settings: dict[str, Any]) -> Iterator[RunningEmulator]:
    with run_emulator(**emulator_settings) as running:
        yield running


@pytest.fixture
def emulator_reset(emulator: RunningEmulator) -> RunningEmulator:
    emulator.control.reset(settings=True)
    return emulator
