"""Every setting of Spanload, in one place. Nothing else reads ``os.environ``."""

from __future__ import annotations

import ipaddress
from functools import lru_cache
from pathlib import Path
from typing import Annotated, Literal
from urllib.parse import urlsplit

from pydantic import Field, field_validator
from pydantic_settings import BaseSettings, NoDecode, SettingsConfigDict

from spanload.model.config import RayAddress

REPO_ROOT = Path(__file__).resolve().parents[3]


DEFAULT_PORTS = {"http": 80, "https": 443}


def _bracketed(host: str) -> str:
    """A host as it appears in a Host header: IPv6 literals in brackets."""
    try:
        return f"[{host}]" if ipaddress.ip_address(host).version == 6 else host
    except ValueError:
        return host


@lru_cache(maxsize=1024)  # the Origin check asks per request, for a handful of distinct values
def origin_key(value: str) -> str | None:
    """``scheme://host:port`` of an origin or a base URL (lower case, default port written out), or
    None when ``value`` is not an http(s) origin: what the Origin check compares."""
    try:
        parts = urlsplit(value.strip())
        port = parts.port
    except ValueError:
        return None
    scheme = parts.scheme.lower()
    if scheme not in DEFAULT_PORTS or not parts.hostname or parts.path not in ("", "/") or parts.query:
        return None
    return f"{scheme}://{_bracketed(parts.hostname)}:{port or DEFAULT_PORTS[scheme]}"


class Settings(BaseSettings):
    """Settings read from ``SPANLOAD_*`` environment variables (and a ``.env`` file)."""

    model_config = SettingsConfigDict(env_prefix="SPANLOAD_", env_file=".env", extra="ignore")

    host: str = "127.0.0.1"
    port: int = 8000
    data_dir: Path = Field(default=REPO_ROOT / "data", description="run store and local Spanner files")
    database_url: str | None = Field(default=None, description="SQLAlchemy URL; default SQLite in data_dir")
    api_token: str | None = Field(default=None, description="required on every request when not on loopback")
    allowed_hosts: Annotated[list[str], NoDecode] = Field(
        default_factory=list,
        description="Host names the API answers to besides loopback and the bound address (comma list; "
        "'*.example.com' matches subdomains), e.g. a reverse proxy's name",
    )
    allowed_origins: Annotated[list[str], NoDecode] = Field(
        default_factory=list,
        description="origins (scheme://host[:port], comma list) besides the API's own that may change state "
        "and open live streams, e.g. vite's dev server http://127.0.0.1:5173",
    )
    max_tps: float = Field(default=1000.0, description="upper bound on rates for cloud targets")
    metrics_retention_s: float = Field(
        default=600.0,
        ge=0,
        description="how long /metrics keeps a finished run's series (its final figures) before dropping them",
    )

    local_spanner_binary: Path | None = Field(
        default=None,
        description="path of spanload-local-spanner; default: found beside the Python executable",
    )
    go_worker_binary: Path | None = Field(
        default=None,
        description="path of spanload-worker-go (the go runtime); default: found beside the Python executable",
    )
    pgadapter_dir: Path | None = Field(
        default=None,
        description="directory of PGAdapter's jars (the pgadapter interface); default: .tools/pgadapter/lib "
        "of the checkout this Python runs from, where `make install` resolves them",
    )
    java: str = Field(default="java", description="the Java (17+) that runs PGAdapter")
    local_spanner_host: str = "127.0.0.1"
    local_spanner_port: int = Field(
        default=9010,
        ge=0,
        le=65535,
        description="the local Spanner's gRPC port (also the official emulator's); 0: any free port",
    )
    local_spanner_start: bool = Field(default=True, description="start the local Spanner with `serve`")
    local_spanner_in_memory: bool = Field(default=False, description="keep local Spanner data in memory")
    local_spanner_restart_backoff_s: float = Field(
        default=0.5, gt=0, description="wait before restarting a local Spanner that died; doubles while it keeps dying"
    )
    local_spanner_restart_backoff_max_s: float = Field(
        default=10.0, gt=0, description="longest wait between restarts of the local Spanner"
    )

    report_interval_s: float = 1.0
    # Operator guarantees of the engine, the same for every run on this machine (so settings, not
    # run config): how long a Stop or Ctrl-C may take before workers are killed, and how long a
    # worker may be silent (stalled, e.g. GIL-saturated) before it is taken for dead.
    stop_grace_s: float = Field(
        default=30.0, gt=0, description="a stop waits this long for workers to drain, then kills them"
    )
    worker_silence_fail_s: float = Field(
        default=30.0, gt=0, description="a worker silent this long fails the run (shorter silences: 'stalled')"
    )
    frontend_dist: Path = Field(default=REPO_ROOT / "frontend" / "dist")
    workloads_dir: Path = Field(default=REPO_ROOT / "workloads", description="the built-in workload definitions")

    default_target_kind: Literal["local", "emulator"] = Field(
        default="local", description="target of runs started through the API without one (docker-compose: emulator)"
    )
    default_emulator_host: str | None = Field(
        default=None, description="host:port of the emulator for runs whose target defaults to the emulator"
    )

    @field_validator("allowed_hosts", "allowed_origins", mode="before")
    @classmethod
    def _comma_lists(cls, value: object) -> object:
        """Comma lists in the environment (pydantic-settings would expect JSON)."""
        return [item.strip() for item in value.split(",") if item.strip()] if isinstance(value, str) else value

    @field_validator("allowed_hosts")
    @classmethod
    def _valid_host_names(cls, names: list[str]) -> list[str]:
        hosts = [_bracketed(name.strip().lower()) for name in names]
        for host in hosts:
            wildcard_ok = "*" not in host[1:] and (not host.startswith("*") or host == "*" or host.startswith("*."))
            if not wildcard_ok or "/" in host or (":" in host and not host.startswith("[")):
                raise ValueError(
                    f"{host!r} is not a host name: give names or addresses without scheme or port, "
                    "and wildcards only as '*.example.com'"
                )
        return hosts

    @field_validator("allowed_origins")
    @classmethod
    def _valid_origins(cls, origins: list[str]) -> list[str]:
        keys = []
        for origin in origins:
            key = origin_key(origin)
            if key is None:
                raise ValueError(f"{origin!r} is not an origin: give scheme://host[:port], e.g. http://127.0.0.1:5173")
            keys.append(key)
        return keys

    ray_address: RayAddress | None = Field(
        default=None,
        description="Ray cluster for runs without a placement: auto, HOST:PORT or ray://HOST:PORT (default: local)",
    )

    @property
    def store_url(self) -> str:
        return self.database_url or f"sqlite:///{self.data_dir / 'spanload.db'}"


@lru_cache
def get_settings() -> Settings:
    return Settings()
