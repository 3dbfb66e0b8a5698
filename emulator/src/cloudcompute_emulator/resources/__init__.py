"""Resource families: records, views and state machines shared by routes and the control API.

Importing this package registers every transition hook and seeder (state.py does), so jobs
restored from a state file find their hooks before any route module is loaded. Part 2 adds its
modules (clusters, ...) to the import below.
"""

from cloudcompute_emulator.resources import instances, seeding, volumes  # noqa: F401 - registration
