"""The ASGI layer in front of every route: request log, due transitions, faults,
authentication, rate limits, scope, and committing the store before a response goes out.

Order for a ``/v1`` request:

1. log entry opened (every ``/v1`` request is logged exactly once, whatever happens next);
2. due state transitions applied (statuses advance lazily, before the request is served);
3. an injected fault may fire: latency, then an error answer or a dropped connection
   (``after_commit: false``), or the handler runs first (``after_commit: true``);
4. bearer token resolved (an access token, or an inference key on the serverless paths); a
   non-public path without a valid one -> 401;
5. rate limits counted for authenticated requests -> 429 or ``RateLimit*`` headers;
6. a path outside the token scope -> 403 ``Insufficient scope``;
7. the route runs; the store is flushed (committed) just before the response starts.

``/_emulator`` (control API) requests skip the log, faults, auth and rate limits.

The emulator is served as ``EmulatorMiddleware(fastapi_app)`` (outside Starlette's own
middleware), so the ``send`` it receives is the server's: that is what lets a fault close the
TCP connection with no response at all.
"""

from __future__ import annotations

import asyncio
import json
import logging
import time
from collections.abc import Awaitable, Callable, MutableMapping
from typing import Any

from cloudcompute_emulator import auth, scopes
from cloudcompute_emulator.clock import isoformat
from cloudcompute_emulator.errors import DEFAULT_MESSAGE, code_for_status
from cloudcompute_emulator.faults import Fault
from cloudcompute_emulator.ports import Principal
from cloudcompute_emulator.state import EmulatorState

log = logging.getLogger("cloudcompute_emulator")

Scope = MutableMapping[str, Any]
Message = MutableMapping[str, Any]
Receive = Callable[[], Awaitable[Message]]
Send = Callable[[Message], Awaitable[None]]
ASGIApp = Callable[[Scope, Receive, Send], Awaitable[None]]

UNAUTHORIZED_MESSAGES = {
    "none": "Access token missing",
    "invalid_token": "Access token invalid",
    "expired_token": "Access token expired",
}


class ConnectionDropped(Exception):
    """Raised where the server offers no way to close the connection (e.g. an in-process
    test client): the response is then abandoned mid-way, which clients also see as a failure."""


def _header(scope: Scope, name: bytes) -> str | None:
    for key, value in scope.get("headers", ()):
        if key.lower() == name:
            return value.decode("latin-1")
    return None


async def drop_connection(send: Send) -> None:
    """Close the client's TCP connection without answering.

    uvicorn's ``send`` is a bound method of its per-request cycle object, which holds the
    asyncio transport; aborting it closes the socket at once. Marking the cycle disconnected
    stops uvicorn from trying to write a 500 afterwards.
    """
    owner = getattr(send, "__self__", None)
    transport = getattr(owner, "transport", None)
    if transport is None:
        raise ConnectionDropped("connection dropped by an injected fault")
    transport.abort()
    if hasattr(owner, "disconnected"):
        owner.disconnected = True
    await asyncio.sleep(0)


class EmulatorMiddleware:
    def __init__(self, app: ASGIApp, state: EmulatorState) -> None:
        self.app = app
        self.state = state

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        path = scope["path"]
        if path == "/v1" or path.startswith("/v1/"):
            await self._serve_api(scope, receive, send)
        else:
            self.state.advance()
            await self._run_app(scope, receive, send, [])

    # -- plumbing ------------------------------------------------------------------------------

    async def _run_app(self, scope: Scope, receive: Receive, send: Send, extra_headers: list[tuple[bytes, bytes]]) -> None:
        started = False

        async def committing_send(message: Message) -> None:
            nonlocal started
            if message["type"] == "http.response.start":
                started = True
                self.state.commit()
                if extra_headers:
                    message = {**message, "headers": [*message.get("headers", []), *extra_headers]}
            await send(message)

        try:
            await self.app(scope, receive, committing_send)
        except Exception:
            # Starlette already answered 500 through http_errors.py and logged the traceback;
            # only an error before any response still needs an answer here.
            if not started:
                log.exception("unhandled error")
                await self._send_error(send, 500, "Internal server error")

    async def _send_error(
        self,
        send: Send,
        status: int,
        message: str | None = None,
        code: str | None = None,
        headers: list[tuple[bytes, bytes]] | None = None,
    ) -> None:
        self.state.commit()
        body = json.dumps({"code": code or code_for_status(status), "message": message or DEFAULT_MESSAGE.get(status, "Error")}).encode()
        await send(
            {
                "type": "http.response.start",
                "status": status,
                "headers": [
                    (b"content-type", b"application/json"),
                    (b"content-length", str(len(body)).encode()),
                    *(headers or []),
                ],
            }
        )
        await send({"type": "http.response.body", "body": body})

    # -- /v1 -----------------------------------------------------------------------------------

    async def _serve_api(self, scope: Scope, receive: Receive, send: Send) -> None:
        state = self.state
        started = time.perf_counter()
        peer = scope.get("client")
        entry = state.request_log.start(
            scope["method"],
            scope["path"],
            scope.get("query_string", b"").decode("latin-1"),
            isoformat(state.clock.now()),
            client_address=f"{peer[0]}:{peer[1]}" if peer else None,
        )
        # which client sent it (the collection's unit tests check its User-Agent)
        entry["user_agent"] = _header(scope, b"user-agent")
        request_state = scope.setdefault("state", {})

        async def logging_send(message: Message) -> None:
            if message["type"] == "http.response.start":
                entry["status"] = message["status"]
            await send(message)

        try:
            await self._handle_api(scope, receive, logging_send, send, entry)
        finally:
            entry["duration_ms"] = round((time.perf_counter() - started) * 1000, 3)
            # the token endpoint reports what it exchanged
            if request_state.get("log_grant_type"):
                entry["grant_type"] = request_state["log_grant_type"]
            if entry["client_id"] is None and request_state.get("log_client_id"):
                entry["client_id"] = request_state["log_client_id"]

    async def _handle_api(self, scope: Scope, receive: Receive, send: Send, raw_send: Send, entry: dict) -> None:
        state = self.state
        method = scope["method"]
        path = scope["path"]
        state.advance()

        fault = state.faults.fire(method, path)
        if fault is not None:
            entry["fault_id"] = fault.id
            if fault.spec.latency_ms:
                await asyncio.sleep(fault.spec.latency_ms / 1000)
            if fault.answers and not fault.spec.after_commit:
                await self._answer_fault(fault, send, raw_send, entry)
                return

        principal = None
        token = auth.bearer_token(_header(scope, b"authorization"))
        if token is not None:
            resolved = auth.resolve_access_token(state, token)
            if isinstance(resolved, Principal):
                principal = resolved
                entry["auth"] = "bearer"
                entry["client_id"] = principal.client_id
            elif scopes.accepts_inference_key(path) and (key_holder := auth.resolve_inference_key(state, token)) is not None:
                principal = key_holder
                entry["auth"] = "inference_key"
            else:
                entry["auth"] = resolved
        public = scopes.is_public(path)
        if principal is None and not public:
            await self._send_error(
                send, 401, UNAUTHORIZED_MESSAGES[entry["auth"]], headers=[(b"www-authenticate", b'Bearer realm="cloud-api"')]
            )
            return

        rate_headers: list[tuple[bytes, bytes]] = []
        if principal is not None:
            decision = state.rate_limiter.check(principal.project_id, method, path)
            if decision is not None:
                rate_headers = decision.headers
                if not decision.allowed:
                    entry["rate_limited"] = True
                    await self._send_error(
                        send, 429, "Rate limit exceeded; retry after the number of seconds in Retry-After",
                        headers=[*rate_headers, (b"retry-after", str(decision.retry_after).encode())],
                    )
                    return
            if not public and not scopes.in_scope(path):
                await self._send_error(send, 403, "Insufficient scope", headers=rate_headers)
                return

        scope["state"]["principal"] = principal
        if fault is not None and fault.answers:
            await self._run_then_fault(scope, receive, send, raw_send, fault, entry)
            return
        await self._run_app(scope, receive, send, rate_headers)

    async def _answer_fault(self, fault: Fault, send: Send, raw_send: Send, entry: dict) -> None:
        if fault.spec.drop_connection:
            entry["connection_dropped"] = True
            self.state.commit()
            await drop_connection(raw_send)
            return
        status = fault.spec.status
        headers = []
        retry_after = fault.spec.retry_after if fault.spec.retry_after is not None else (1 if status == 429 else None)
        if retry_after is not None:
            headers.append((b"retry-after", str(retry_after).encode()))
        await self._send_error(send, status, fault.spec.message, fault.spec.code, headers)

    async def _run_then_fault(self, scope: Scope, receive: Receive, send: Send, raw_send: Send, fault: Fault, entry: dict) -> None:
        """Run the real handler (its change is committed), then lose its response."""

        async def swallow(message: Message) -> None:
            if message["type"] == "http.response.start":
                entry["handler_status"] = message["status"]

        try:
            await self.app(scope, receive, swallow)
        except Exception:
            log.debug("handler failed under an after-commit fault", exc_info=True)
        self.state.commit()
        await self._answer_fault(fault, send, raw_send, entry)
