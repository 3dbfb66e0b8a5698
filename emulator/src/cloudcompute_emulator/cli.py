"""``cloudcompute-emulator``: run the emulator with uvicorn.

It binds the socket itself before anything else, so ``--port 0`` works (the chosen port is in
the banner and the credentials file), and the credentials file only appears once the server
accepts connections.
"""

from __future__ import annotations

import argparse
import json
import logging
import os
import socket
import sys
import tempfile
from typing import Any

from cloudcompute_emulator import __version__

DEFAULT_PORT = 8400


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="cloudcompute-emulator",
        description="A stateful local emulator of the Cloud Compute public API (fake credentials, no cloud).",
    )
    parser.add_argument("--version", action="version", version=f"%(prog)s {__version__}")
    parser.add_argument("--host", default="127.0.0.1", help="address to listen on (default 127.0.0.1)")
    parser.add_argument("--port", type=int, default=DEFAULT_PORT, help=f"port (default {DEFAULT_PORT}; 0 picks a free one)")
    parser.add_argument("--profile", choices=("realistic", "demo", "test", "client"), help="timing profile (default demo)")
    parser.add_argument("--state-file", metavar="PATH", help="SQLite file keeping all state across restarts")
    parser.add_argument("--token-ttl", type=int, metavar="SECONDS", help="access token lifetime (default 3600)")
    parser.add_argument("--no-rate-limit", action="store_true", help="switch rate limiting off")
    parser.add_argument("--rate-window", type=int, metavar="SECONDS", help="rate-limit window length (default 60)")
    parser.add_argument("--project-quota", type=int, metavar="N", help="requests per window per project (default 500)")
    parser.add_argument("--endpoint-quota", type=int, metavar="N", help="requests per window per method+path (default 60)")
    parser.add_argument("--instance-ip-mode", choices=("public", "loopback"), help="instance addresses (default public)")
    parser.add_argument("--balance", type=float, metavar="USD", help="starting balance of every project (default 10000)")
    parser.add_argument("--client-id", help="fixed client id of the demo credential (random when omitted)")
    parser.add_argument("--client-secret", help="fixed client secret of the demo credential (random when omitted)")
    parser.add_argument("--credentials-file", metavar="PATH", help="write {api_url, client_id, client_secret, inference_api_key} here (mode 0600)")
    parser.add_argument("--settings-json", metavar="JSON", help="any settings of PUT /_emulator/settings, as a JSON object")
    parser.add_argument("--log-requests", action="store_true", help="log one line per request (quiet by default)")
    parser.add_argument("--ssl-certfile", metavar="PATH", help="serve HTTPS with this certificate (PEM; the chain may follow it)")
    parser.add_argument("--ssl-keyfile", metavar="PATH", help="private key of --ssl-certfile (PEM)")
    parser.add_argument(
        "--issued-tokens-file",
        metavar="PATH",
        help="test-only: append every access and refresh token issued to this file (JSON lines, mode 0600), "
        "so a test can search a client's output, logs and caches for leaked tokens",
    )
    return parser


def settings_patch(args: argparse.Namespace) -> dict[str, Any]:
    patch: dict[str, Any] = json.loads(args.settings_json) if args.settings_json else {}
    rate_limits: dict[str, Any] = dict(patch.get("rate_limits") or {})
    for option, key in (("profile", "profile"), ("token_ttl", "token_ttl"), ("instance_ip_mode", "instance_ip_mode"), ("balance", "balance")):
        if getattr(args, option) is not None:
            patch[key] = getattr(args, option)
    for option, key in (("rate_window", "window_seconds"), ("project_quota", "project_quota"), ("endpoint_quota", "endpoint_quota")):
        if getattr(args, option) is not None:
            rate_limits[key] = getattr(args, option)
    if args.no_rate_limit:
        rate_limits["enabled"] = False
    if rate_limits:
        patch["rate_limits"] = rate_limits
    return patch


def write_credentials_file(path: str, content: dict[str, str]) -> None:
    """Atomically, mode 0600: a reader never sees a partial file, nobody else can read it."""
    directory = os.path.dirname(os.path.abspath(path))
    descriptor, temporary = tempfile.mkstemp(dir=directory, prefix=".credentials-")
    try:
        os.fchmod(descriptor, 0o600)
        with os.fdopen(descriptor, "w") as handle:
            json.dump(content, handle, indent=2)
            handle.write("\n")
        os.replace(temporary, path)
    except BaseException:
        if os.path.exists(temporary):
            os.unlink(temporary)
        raise


def bind_socket(host: str, port: int) -> socket.socket:
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    # proto IPPROTO_TCP (not 0): asyncio only sets TCP_NODELAY on accepted sockets whose proto
    # says TCP; without it every response pays Nagle + delayed ACK (~40 ms per request).
    sock = socket.socket(family, socket.SOCK_STREAM, socket.IPPROTO_TCP)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
    sock.bind((host, port))
    sock.listen(2048)
    sock.set_inheritable(True)
    return sock


def main(argv: list[str] | None = None) -> None:
    args = build_parser().parse_args(argv)
    # imported after argument parsing so that --help and --version answer instantly
    import uvicorn

    from cloudcompute_emulator.app import create_app
    from cloudcompute_emulator.state import EmulatorState

    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(name)s %(levelname)s %(message)s")
    if bool(args.ssl_certfile) != bool(args.ssl_keyfile):
        sys.exit("cloudcompute-emulator: --ssl-certfile and --ssl-keyfile go together")
    try:
        patch = settings_patch(args)
        state = EmulatorState(patch, args.state_file)
    except (ValueError, TypeError) as error:
        sys.exit(f"cloudcompute-emulator: invalid settings: {error}")
    credentials = state.bootstrap(args.client_id, args.client_secret)
    state.issued_tokens_file = args.issued_tokens_file
    sock = bind_socket(args.host, args.port)
    port = sock.getsockname()[1]
    url_host = "127.0.0.1" if args.host in ("0.0.0.0", "") else (f"[{args.host}]" if ":" in args.host else args.host)
    scheme = "https" if args.ssl_certfile else "http"
    base_url = f"{scheme}://{url_host}:{port}"
    published = {
        "api_url": f"{base_url}/v1",
        "base_url": base_url,
        "client_id": credentials["client_id"],
        "client_secret": credentials["client_secret"],
        "inference_api_key": credentials["inference_api_key"],
        "project_id": credentials["project_id"],
    }
    if args.credentials_file:
        write_credentials_file(args.credentials_file, published)
    print(
        f"cloudcompute-emulator {__version__} ({state.settings.profile} profile"
        f"{', state file ' + args.state_file if args.state_file else ', in memory'})\n"
        f"  API URL:          {published['api_url']}\n"
        f"  control API:      {base_url}/_emulator/\n"
        f"  reference:        {base_url}/v1/docs\n"
        "  demo credentials (fake, emulator only):\n"
        f"    client_id:         {published['client_id']}\n"
        f"    client_secret:     {published['client_secret']}\n"
        f"    inference_api_key: {published['inference_api_key']}",
        flush=True,
    )
    config = uvicorn.Config(
        create_app(state),
        log_level="info" if args.log_requests else "warning",
        access_log=args.log_requests,
        lifespan="off",
        server_header=False,
        ssl_certfile=args.ssl_certfile,
        ssl_keyfile=args.ssl_keyfile,
    )
    try:
        uvicorn.Server(config).run(sockets=[sock])
    finally:
        state.store.close()


if __name__ == "__main__":
    main()
