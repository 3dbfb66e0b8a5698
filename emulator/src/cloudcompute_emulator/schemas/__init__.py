"""Pydantic models of the API: request bodies (validated) and response shapes (documented).

Request models derive from :class:`~cloudcompute_emulator.schemas.common.RequestModel`, which
ignores unknown keys and treats ``null`` as absent. Response models only document the shapes in
``/v1/openapi.json``: handlers build plain dicts (fast for 10,000-item lists) that match them,
and the schemathesis run in the test suite checks that they do.
"""
