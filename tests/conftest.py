"""Fixtures shared by the unit and integration suites.

The ``emulator`` and ``emulator_reset`` fixtures (a real emulator subprocess on a free loopback
port, and that emulator reset to a clean state) come from the emulator package's pytest plugin.
"""

import pytest


@pytest.fixture
def control(emulator_reset):
    """The control API (``cloudcompute_emulator.control.EmulatorControl``) of a reset emulator."""
    yield emulator_reset.control
    emulator_reset.control.clear_faults()
