"""The web UI driven in Debian's chromium (playwright-core) against a real `spanload serve`
with the local Spanner: the steps of issue 4's proof, in frontend/e2e/run.mjs. Once with the pages
served by serve (every step), once by `vite preview` (proxying /api; the steps that start, change
and stop a run), so the Origin check's allow-list is proven with a real browser."""

from __future__ import annotations

import contextlib
import subprocess
import time
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from tests.browser.frontend_script import FRONTEND, npm_script, run_script
from tests.helpers import ServeProcess, free_port, wait_for

E2E_TIMEOUT_S = 240

pytestmark = pytest.mark.browser


@pytest.mark.parametrize("front", ["serve", "vite-preview"])
def test_light_run_live_tuning_and_compare_in_the_browser(tmp_path: Path, front: str) -> None:
    """Through serve's own pages, and through vite's preview server (a UI served elsewhere, proxying
    /api to serve, whose origin serve allows through SPANLOAD_ALLOWED_ORIGINS)."""
    command = npm_script("e2e")
    started = time.time()
    preview_url = f"http://127.0.0.1:{free_port()}"
    env = {"SPANLOAD_ALLOWED_ORIGINS": preview_url} if front == "vite-preview" else {}
    # Through the proxy only the steps that use the proxied API: the pages are the same build.
    scope = "proxy" if front == "vite-preview" else "full"
    with ServeProcess(tmp_path, env=env) as serve, _ui_server(front, serve, preview_url) as ui_url:
        result = run_script(
            command,
            {**serve.env, "SPANLOAD_URL": ui_url, "SPANLOAD_E2E_SCOPE": scope},
            E2E_TIMEOUT_S,
        )
        returncode = serve.stop()
    report = f"{result.stdout}\n{result.stderr}\nserve's output:\n{serve.output[-4000:]}"
    assert result.returncode == 0, f"browser test failed:\n{report}"
    # a live change went through this front end's API and was confirmed on the page
    assert "ok   change the write rate to" in result.stdout, report
    assert returncode == 0, serve.output[-4000:]
    assert not serve.leftover_children()
    fresh = [p.name for p in (FRONTEND / "test-results").glob("**/*.png") if p.stat().st_mtime >= started]
    assert fresh, "the browser test saved no screenshots under frontend/test-results/"


@contextlib.contextmanager
def _ui_server(front: str, serve: ServeProcess, preview_url: str) -> Iterator[str]:
    """The address the browser opens: serve itself, or `vite preview` proxying /api to it."""
    if front == "serve":
        yield serve.url
        return
    port = preview_url.rsplit(":", 1)[1]
    preview = subprocess.Popen(
        [
            str(FRONTEND / "node_modules" / ".bin" / "vite"),
            "preview",
            "--host",
            "127.0.0.1",
            "--port",
            port,
            "--strictPort",
        ],
        cwd=FRONTEND,
        env={**serve.env, "SPANLOAD_DEV_BACKEND": serve.url},
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        wait_for(lambda: httpx.get(f"{preview_url}/api/health", timeout=2).json(), 60, "vite preview to proxy /api")
        # Through the proxy, serve sees the preview's origin: allowed by the list, another one refused.
        assert httpx.post(f"{preview_url}/api/health/origin", headers={"origin": preview_url}).status_code == 204
        refused = httpx.post(f"{preview_url}/api/health/origin", headers={"origin": "http://127.0.0.1:1"})
        assert refused.status_code == 403, refused.text
        yield preview_url
    finally:
        preview.terminate()
        preview.wait(timeout=30)
