"""The API's error model: ``{code, message}`` bodies with the codes of the spec's section 7.

Domain functions and handlers raise :class:`ApiError` (or one of the helpers below). Free of
HTTP: http_errors.py turns these into responses, FastAPI's own validation errors into 400
``invalid_request`` naming the offending field, and anything unexpected into a 500
``server_error`` JSON body instead of a traceback page.
"""

from __future__ import annotations

import json

# HTTP status -> the spec's error code.
CODE_FOR_STATUS = {
    400: "invalid_request",
    401: "unauthorized_request",
    402: "insufficient_funds",
    403: "forbidden_action",
    404: "not_found",
    405: "invalid_request",
    409: "conflict",
    429: "rate_limit_exceeded",
    500: "server_error",
    503: "service_unavailable",
}

DEFAULT_MESSAGE = {
    400: "Invalid request",
    401: "Access token missing or invalid",
    402: "Not enough funds for the action",
    403: "The action cannot be performed",
    404: "Resource not found",
    409: "Conflict",
    429: "Too many requests",
    500: "Internal server error",
    503: "Not enough resources at the moment; retry later or choose another resource",
}


def code_for_status(status: int) -> str:
    if status in CODE_FOR_STATUS:
        return CODE_FOR_STATUS[status]
    return "server_error" if status >= 500 else "invalid_request"


class ApiError(Exception):
    def __init__(
        self,
        status: int,
        message: str | None = None,
        code: str | None = None,
        headers: dict[str, str] | None = None,
    ) -> None:
        self.status = status
        self.code = code or code_for_status(status)
        self.message = message or DEFAULT_MESSAGE.get(status, "Error")
        self.headers = headers or {}
        super().__init__(f"{self.status} {self.code}: {self.message}")

    def body(self) -> dict[str, str]:
        return {"code": self.code, "message": self.message}


def invalid(message: str) -> ApiError:
    return ApiError(400, message)


def unauthorized(message: str) -> ApiError:
    return ApiError(401, message)


def forbidden(message: str) -> ApiError:
    return ApiError(403, message)


def not_found(what: str) -> ApiError:
    # Clients match on the phrase: every 404 message contains 'not found'.
    return ApiError(404, f"{what} not found")


def conflict(message: str) -> ApiError:
    return ApiError(409, message)


def error_body_bytes(status: int, message: str | None = None, code: str | None = None) -> bytes:
    error = ApiError(status, message, code)
    return json.dumps(error.body()).encode()


def describe_validation_errors(errors: list[dict]) -> str:
    """One readable sentence per pydantic error, each naming the field it is about."""
    parts = []
    for error in errors:
        location = list(error.get("loc", ()))
        source = location.pop(0) if location else "body"
        field = ".".join(str(item) for item in location)
        message = error.get("msg", "invalid value")
        if error.get("type") == "json_invalid":
            parts.append("request body is not valid JSON")
        elif source == "body":
            parts.append(f"{field}: {message}" if field else f"request body: {message}")
        else:
            parts.append(f"{source} parameter '{field}': {message}")
    return "; ".join(parts) or "Invalid request"
