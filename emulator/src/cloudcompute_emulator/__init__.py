"""A stateful local emulator of the Cloud Compute public API.

The HTTP application lives in :mod:`cloudcompute_emulator.app`; tests drive it through
:mod:`cloudcompute_emulator.testing` (a subprocess on a free loopback port) and
:mod:`cloudcompute_emulator.control` (a client of the ``/_emulator`` control API).
"""

__version__ = "0.1.0"
