"""Host and Origin checks: what keeps other web pages in the user's browser away from the API.

- Host: a page whose domain re-resolves to 127.0.0.1 (DNS rebinding) is "same origin" with the API
  in the browser's eyes, but its requests carry its own name in ``Host``. Only the names the server
  is reachable as pass: loopback, the bound address, SPANLOAD_ALLOWED_HOSTS. The matching is
  Starlette's TrustedHostMiddleware's (host names; the port is not compared, so SSH tunnels and
  port mappings keep working); the refusal is a JSON 400 like the API's other errors.
- Origin: browsers apply no CORS to websockets, and a cross-site form or fetch can still send a
  POST. Websockets and state-changing requests whose ``Origin`` is neither the API's own nor in
  SPANLOAD_ALLOWED_ORIGINS are refused (403; websockets are closed before they are accepted).
  Requests without an Origin (CLI, curl, CI) are not browsers' cross-site requests and pass.
"""

from __future__ import annotations

import ipaddress
import socket

from fastapi import FastAPI, status
from starlette.datastructures import Headers
from starlette.middleware.trustedhost import TrustedHostMiddleware
from starlette.responses import JSONResponse
from starlette.types import ASGIApp, Message, Receive, Scope, Send
from starlette.websockets import WebSocket

from spanload.model.settings import Settings, origin_key

LOOPBACK_HOSTS = ("127.0.0.1", "localhost", "[::1]")
WILDCARD_BINDS = ("0.0.0.0", "::", "")
STATE_CHANGING_METHODS = frozenset({"POST", "PUT", "PATCH", "DELETE"})
HTTP_SCHEME_OF = {"http": "http", "https": "https", "ws": "http", "wss": "https"}
_TRUSTED = "spanload.trusted_host"


def trusted_hosts(settings: Settings) -> list[str]:
    """Host names the API answers to: loopback, the bound address (or this machine's name when
    bound to every address), and SPANLOAD_ALLOWED_HOSTS."""
    bound = settings.host.strip().lower()
    if bound in WILDCARD_BINDS:
        own = [socket.gethostname().lower()]
    else:
        try:
            own = [f"[{bound}]" if ipaddress.ip_address(bound).version == 6 else bound]
        except ValueError:
            own = [bound]
    return list(dict.fromkeys([*LOOPBACK_HOSTS, *own, *settings.allowed_hosts]))


async def _refuse(scope: Scope, receive: Receive, send: Send, status_code: int, sentence: str, reason: str) -> None:
    """A JSON error for HTTP; for a websocket, a policy-violation close before it is accepted."""
    if scope["type"] == "websocket":
        await WebSocket(scope, receive, send).close(code=status.WS_1008_POLICY_VIOLATION, reason=reason)
    else:
        await JSONResponse({"detail": sentence}, status_code=status_code)(scope, receive, send)


async def _mark_trusted(scope: Scope, receive: Receive, send: Send) -> None:
    scope[_TRUSTED] = True


async def _nothing_to_receive() -> Message:
    return {"type": "http.disconnect"}


async def _discard(message: Message) -> None:
    return None


class HostCheck:
    """Refuses requests and websockets whose Host is not a trusted name, with a sentence."""

    def __init__(self, app: ASGIApp, allowed_hosts: list[str]) -> None:
        self.app = app
        # Used as the matcher only: it calls _mark_trusted on a copy of the scope when the Host passes.
        self.matcher = TrustedHostMiddleware(_mark_trusted, allowed_hosts=allowed_hosts, www_redirect=False)

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] not in ("http", "websocket"):
            await self.app(scope, receive, send)
            return
        probe = dict(scope)
        await self.matcher(probe, _nothing_to_receive, _discard)
        if probe.get(_TRUSTED):
            await self.app(scope, receive, send)
            return
        host = Headers(scope=scope).get("host", "")
        sentence = (
            f"Host {host!r} is not a name this server answers to: a page that points its own domain at "
            "this address is refused. Add the name to SPANLOAD_ALLOWED_HOSTS to allow it."
        )
        await _refuse(scope, receive, send, status.HTTP_400_BAD_REQUEST, sentence, "Host not allowed")


class OriginCheck:
    """Refuses websockets and POST/PUT/PATCH/DELETE from an origin that is neither the API's own
    (the request's scheme and Host) nor allowed; requests without an Origin pass."""

    def __init__(self, app: ASGIApp, allowed_origins: list[str]) -> None:
        self.app = app
        self.allowed = frozenset(allowed_origins)

    def _allowed(self, scope: Scope, headers: Headers, origin: str) -> bool:
        key = origin_key(origin)
        if key is None:  # "null" (sandboxed frames, file: pages) or garbage
            return False
        own = origin_key(f"{HTTP_SCHEME_OF.get(scope['scheme'], 'http')}://{headers.get('host', '')}")
        return key == own or key in self.allowed

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        checked = scope["type"] == "websocket" or (
            scope["type"] == "http" and scope["method"] in STATE_CHANGING_METHODS
        )
        if checked:
            headers = Headers(scope=scope)
            origin = headers.get("origin")
            if origin is not None and not self._allowed(scope, headers, origin):
                sentence = (
                    f"Origin {origin!r} may not change anything or open live streams here: only the "
                    "server's own pages may. Add the origin to SPANLOAD_ALLOWED_ORIGINS to allow a UI "
                    "served elsewhere."
                )
                await _refuse(scope, receive, send, status.HTTP_403_FORBIDDEN, sentence, "Origin not allowed")
                return
        await self.app(scope, receive, send)


def install_guards(app: FastAPI, settings: Settings) -> None:
    """The Host check outermost, then the Origin check (middleware added last runs first)."""
    app.add_middleware(OriginCheck, allowed_origins=settings.allowed_origins)
    app.add_middleware(HostCheck, allowed_hosts=trusted_hosts(settings))
