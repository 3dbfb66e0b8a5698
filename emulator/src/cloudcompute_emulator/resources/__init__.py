"""Resource families: records, views, business rules and state machines, free of HTTP.

Each family takes the emulator through :class:`cloudcompute_emulator.ports.Domain` and the caller
as a plain :class:`~cloudcompute_emulator.ports.Principal`; routes parse, call and render. A
family's transition hooks (``TRANSITION_HOOKS``), billable rate (``hourly_rate``) and seeder
(``seeding.SEEDERS``) are registered by the app factory (:func:`cloudcompute_emulator.app.register_domain`).
"""
