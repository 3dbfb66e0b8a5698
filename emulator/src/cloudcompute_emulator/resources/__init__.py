"""Resource families: records, views and state machines shared by routes and the control API.

Importing this package registers every transition hook and seeder (state.py does), so jobs
restored from a state file find their hooks before any route module is loaded. A new resource
module with hooks or a seeder is added to the import below.
"""

from cloudcompute_emulator.resources import clusters, instances, seeding, serverless, volumes  # noqa: F401 - registration
