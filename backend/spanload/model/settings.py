"""Every setting of Spanload, in one place. Nothing else reads ``os.environ``."""

from __future__ import annotations

from functools import lru_cache
from pathlib import Path
from typing import Literal

from pydantic import Field
from pydantic_settings import BaseSettings, SettingsConfigDict

REPO_ROOT = Path(__file__).resolve().parents[3]


class Settings(BaseSettings):
    """Settings read from ``SPANLOAD_*`` environment variables (and a ``.env`` file)."""

    model_config = SettingsConfigDict(env_prefix="SPANLOAD_", env_file=".env", extra="ignore")

    host: str = "127.0.0.1"
    port: int = 8000
    data_dir: Path = Field(default=REPO_ROOT / "data", description="run store and local Spanner files")
    database_url: str | None = Field(default=None, description="SQLAlchemy URL; default SQLite in data_dir")
    api_token: str | None = Field(default=None, description="required on every request when not on loopback")
    max_tps: float = Field(default=1000.0, description="upper bound on rates for cloud targets")

    local_spanner_binary: Path | None = Field(
        default=None,
        description="path of spanload-local-spanner; default: found beside the Python executable",
    )
    go_worker_binary: Path | None = Field(
        default=None,
        description="path of spanload-worker-go (the go runtime); default: found beside the Python executable",
    )
    local_spanner_host: str = "127.0.0.1"
    local_spanner_port: int = 9010
    local_spanner_start: bool = Field(default=True, description="start the local Spanner with `serve`")
    local_spanner_in_memory: bool = Field(default=False, description="keep local Spanner data in memory")

    report_interval_s: float = 1.0
    frontend_dist: Path = Field(default=REPO_ROOT / "frontend" / "dist")

    default_target_kind: Literal["local", "emulator"] = Field(
        default="local", description="target of runs started through the API without one (docker-compose: emulator)"
    )
    default_emulator_host: str | None = Field(
        default=None, description="host:port of the emulator for runs whose target defaults to the emulator"
    )

    @property
    def store_url(self) -> str:
        return self.database_url or f"sqlite:///{self.data_dir / 'spanload.db'}"


@lru_cache
def get_settings() -> Settings:
    return Settings()
