"""A running `spanload serve`, reached over its JSON API (``--server URL``), with the token of
``--token`` or ``SPANLOAD_API_TOKEN``. Its errors become the error tree's: a 404 is a missing run
(exit 1), a 422 or 409 bad input (exit 2), a server that does not answer exit 1 within seconds."""

from __future__ import annotations

from typing import Any

import httpx

from spanload.model.errors import RunError, RunInvalid, RunNotFound

TIMEOUT_S = 10.0


class Server:
    def __init__(self, url: str, token: str | None) -> None:
        if not url.startswith(("http://", "https://")):
            raise RunInvalid(f"--server {url!r} is not a URL such as http://127.0.0.1:8000", "server")
        self.url = url.rstrip("/")
        headers = {"Authorization": f"Bearer {token}"} if token else {}
        self.client = httpx.Client(base_url=self.url, headers=headers, timeout=TIMEOUT_S)

    def request(self, method: str, path: str, **kwargs: Any) -> httpx.Response:
        """``path`` under ``/api``; a non-2xx answer raises the matching error with the server's sentence."""
        try:
            response = self.client.request(method, "/api" + path, **kwargs)
        except httpx.HTTPError as err:
            raise RunError(f"could not reach spanload serve at {self.url}: {err}") from None
        if response.is_success:
            return response
        detail = _detail(response)
        if response.status_code == 404:
            raise RunNotFound(detail)
        if response.status_code in (409, 422, 400):
            raise RunInvalid(detail)
        if response.status_code in (401, 403):
            raise RunError(f"spanload serve at {self.url} refused the request ({detail}); give --token")
        raise RunError(f"spanload serve at {self.url} answered {response.status_code}: {detail}")

    def json(self, method: str, path: str, **kwargs: Any) -> Any:
        return self.request(method, path, **kwargs).json()


def _detail(response: httpx.Response) -> str:
    try:
        detail = response.json().get("detail")
    except ValueError:
        return response.text.strip()[:300] or response.reason_phrase
    if isinstance(detail, list):  # FastAPI's validation errors: name each field
        return "; ".join(f"{'.'.join(str(p) for p in d.get('loc', ())[1:])}: {d.get('msg')}" for d in detail)
    return str(detail)
