"""`spanload serve`: run the API (and the local Spanner it targets by default) under uvicorn."""

from __future__ import annotations

import ipaddress
import logging
import socket
import sys
from pathlib import Path
from types import SimpleNamespace

from pydantic import ValidationError

from spanload.model.settings import Settings
from spanload.spanner.local_server import (
    ExternalLocalSpanner,
    ServeLocalSpanner,
    describe_holder,
    local_spanner_at,
    local_spanner_data_dir,
    supervise_local_spanner,
)


def _is_loopback(host: str) -> bool:
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def _listen(host: str, port: int) -> socket.socket:
    """The dashboard's socket, bound and listening as uvicorn's own would be (SO_REUSEADDR)."""
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    return socket.create_server((host, port), family=family, backlog=2048)


def serve(args: SimpleNamespace) -> int:
    overrides: dict[str, object] = {}
    if args.host:
        overrides["host"] = args.host
    if args.port:
        overrides["port"] = args.port
    if args.data_dir:
        overrides["data_dir"] = Path(args.data_dir)
    if args.no_local_spanner:
        overrides["local_spanner_start"] = False
    if args.ray_address:
        overrides["ray_address"] = args.ray_address
    try:
        settings = Settings(**overrides)  # type: ignore[arg-type]
    except ValidationError as err:
        for error in err.errors():
            name = "SPANLOAD_" + "_".join(str(part) for part in error["loc"]).upper()
            print(f"spanload serve: {name}: {error['msg'].removeprefix('Value error, ')}.", file=sys.stderr)
        return 2
    if not _is_loopback(settings.host) and not settings.api_token:
        print(
            f"spanload serve: binding {settings.host} exposes the API beyond this machine; "
            "set SPANLOAD_API_TOKEN to require a token.",
            file=sys.stderr,
        )
        return 2
    try:  # held from here, handed to uvicorn: a port in use is told before anything starts
        listener = _listen(settings.host, settings.port)
    except OSError:
        print(
            f"spanload serve: {settings.host}:{settings.port}, where the dashboard is to listen, is in use; "
            "stop what holds it, or choose another port with --port.",
            file=sys.stderr,
        )
        return 1
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(levelname)s %(name)s: %(message)s")
    local: ServeLocalSpanner | None = None
    if settings.local_spanner_start:
        # before the app, so that a port or data directory held by another server is one sentence
        # and exit 1 at once (a LocalSpannerError), not a traceback from the app's startup
        found = local_spanner_at(
            settings.local_spanner_host, settings.local_spanner_port, local_spanner_data_dir(settings)
        )
        if found is not None:
            print(
                f"Using {describe_holder(found)}, already listening on {found.address}; "
                "serve does not supervise it and leaves it running.",
                flush=True,
            )
            local = ExternalLocalSpanner(found)
        else:
            local = supervise_local_spanner(settings)
    print(f"Spanload dashboard: http://{settings.host}:{settings.port}", flush=True)
    # the web stack is imported here, after the checks above: a usage problem or a held port is
    # told in a fraction of a second, not after the 2.8 CPU-s its import costs
    import uvicorn

    from spanload.main import create_app

    try:
        app = create_app(settings, local_spanner=local)
        uvicorn.Server(uvicorn.Config(app, host=settings.host, port=settings.port, log_level="info")).run([listener])
    except KeyboardInterrupt:  # Ctrl-C or SIGTERM: uvicorn re-raises it once shut down, as uvicorn.run expects
        pass
    finally:
        listener.close()
        if local is not None:  # the app stops it too; this is for an app that never started up
            local.stop()
    return 0
