"""Which paths are public, and which the ``cloud-api-v1`` scope reaches (spec section 5).

A valid token on a path outside :data:`SPEC_PATHS` answers 403 ``Insufficient scope`` (e.g.
``/v1/object-storage/...``), as production does; a path in the list that nothing serves yet
answers 404. The list holds every endpoint of the spec. ``{}`` stands for one path segment,
``/**`` for any deeper path.
"""

from __future__ import annotations

import re

PUBLIC_PATHS = {
    "/v1/oauth2/token",
    "/v1/instance-types",
    "/v1/cluster-types",
    "/v1/container-types",
    "/v1/volume-types",
    "/v1/long-term/periods",
    "/v1/long-term/periods/instances",
    "/v1/long-term/periods/clusters",
    "/v1/instance-types/price-history",
    # the emulator's machine-readable schema and reference page
    "/v1/openapi.json",
    "/v1/docs",
}
# public paths with a path parameter: one instance type, like the list
PUBLIC_PATTERNS = ["/v1/instance-types/{}"]

SPEC_PATHS = [
    "/v1/oauth2/token",
    "/v1/balance",
    "/v1/images",
    "/v1/images/cluster",
    "/v1/instance-types",
    "/v1/instance-types/price-history",
    "/v1/instance-types/{}",
    "/v1/cluster-types",
    "/v1/container-types",
    "/v1/volume-types",
    "/v1/locations",
    "/v1/long-term/periods",
    "/v1/long-term/periods/instances",
    "/v1/long-term/periods/clusters",
    "/v1/managed-endpoints/pricing",
    "/v1/container-registry/pricing",
    "/v1/instance-availability",
    "/v1/instance-availability/{}",
    "/v1/cluster-availability",
    "/v1/cluster-availability/{}",
    "/v1/volumes",
    "/v1/volumes/trash",
    "/v1/volumes/{}",
    "/v1/volumes/{}/tags",
    "/v1/volumes/{}/tags/{}",
    "/v1/instances",
    "/v1/instances/types",
    "/v1/instances/action",
    "/v1/instances/availability/{}",
    "/v1/instances/{}",
    "/v1/instances/{}/tags",
    "/v1/instances/{}/tags/{}",
    "/v1/clusters",
    "/v1/clusters/{}",
    "/v1/clusters/{}/tags",
    "/v1/clusters/{}/tags/{}",
    "/v1/clusters/{}/nodes/{}/actions",
    "/v1/ssh-keys",
    "/v1/ssh-keys/{}",
    "/v1/sshkeys",
    "/v1/sshkeys/{}",
    "/v1/scripts",
    "/v1/scripts/{}",
    "/v1/instance-groups",
    "/v1/instance-groups/{}",
    "/v1/audit/log",
    "/v1/audit/log/download",
    "/v1/job-deployments",
    "/v1/job-deployments/{}",
    "/v1/job-deployments/{}/scaling",
    "/v1/job-deployments/{}/purge-queue",
    "/v1/job-deployments/{}/pause",
    "/v1/job-deployments/{}/resume",
    "/v1/job-deployments/{}/status",
    "/v1/container-deployments",
    # "any further container-deployment paths: not shown" -> everything below a deployment
    "/v1/container-deployments/{}/**",
    "/v1/container-deployments/{}",
    "/v1/container-deployment-templates",
    "/v1/container-deployment-templates/{}",
    "/v1/container-deployment-templates/{}/deployments",
    "/v1/serverless-compute-resources",
    "/v1/secrets",
    "/v1/secrets/{}",
    "/v1/file-secrets",
    "/v1/file-secrets/{}",
    "/v1/container-registry-credentials",
    "/v1/container-registry-credentials/{}",
    "/v1/openapi.json",
    "/v1/docs",
]


def _compile(patterns: list[str]) -> re.Pattern[str]:
    alternatives = []
    for pattern in patterns:
        expression = re.escape(pattern).replace(r"/\*\*", "/.+").replace(r"\{\}", "[^/]+")
        alternatives.append(expression)
    return re.compile("^(?:" + "|".join(alternatives) + ")$")


_spec_path_expression = _compile(SPEC_PATHS)
_public_pattern_expression = _compile(PUBLIC_PATTERNS)


def register_spec_path(pattern: str) -> None:
    """Add an endpoint to the token scope (for endpoints the spec gains later)."""
    global _spec_path_expression
    if pattern not in SPEC_PATHS:
        SPEC_PATHS.append(pattern)
        _spec_path_expression = _compile(SPEC_PATHS)


def _normalise(path: str) -> str:
    return path[:-1] if len(path) > 1 and path.endswith("/") else path


def is_public(path: str) -> bool:
    path = _normalise(path)
    return path in PUBLIC_PATHS or _public_pattern_expression.match(path) is not None


def in_scope(path: str) -> bool:
    return _spec_path_expression.match(_normalise(path)) is not None


# Serverless management endpoints also take the project's inference API key as the bearer
# credential: section 4 marks them "bearer" (an access token, what the production SDK sends),
# while section 5.8 says serverless container endpoints are called with an inference key. Both
# are accepted here, for containers and jobs alike (jobs are serverless deployments too).
INFERENCE_KEY_PATHS = [
    "/v1/container-deployments",
    "/v1/container-deployments/{}",
    "/v1/container-deployments/{}/**",
    "/v1/container-deployment-templates",
    "/v1/container-deployment-templates/{}",
    "/v1/container-deployment-templates/{}/deployments",
    "/v1/job-deployments",
    "/v1/job-deployments/{}",
    "/v1/job-deployments/{}/**",
    "/v1/serverless-compute-resources",
    "/v1/secrets",
    "/v1/secrets/{}",
    "/v1/file-secrets",
    "/v1/file-secrets/{}",
    "/v1/container-registry-credentials",
    "/v1/container-registry-credentials/{}",
]
_inference_key_expression = _compile(INFERENCE_KEY_PATHS)


def accepts_inference_key(path: str) -> bool:
    return _inference_key_expression.match(_normalise(path)) is not None
