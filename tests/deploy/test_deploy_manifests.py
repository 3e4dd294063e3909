"""The KubeRay manifests under deploy/kuberay agree with the code and the image they run.

They cannot be applied here (no Kubernetes), so every field the code depends on is checked: the
Ray version against the pinned one, the image against the one backend/Dockerfile builds, the ports
the control plane connects to, num-cpus against each pod's CPU limit, and probes that plain `ray`
(no dashboard) can answer.
"""

from __future__ import annotations

import re
from importlib.metadata import version
from pathlib import Path
from typing import Any

import yaml

from spanload.model.config import Placement, PlacementKind
from tests.helpers import REPO

DEPLOY = REPO / "deploy" / "kuberay"
RAY_CLIENT_PORT = 10001
GCS_PORT = 6379


def _documents(path: Path) -> list[dict[str, Any]]:
    return [d for d in yaml.safe_load_all(path.read_text()) if d]


def _ray_cluster() -> dict[str, Any]:
    [cluster] = _documents(DEPLOY / "raycluster.yaml")
    return cluster


def _groups(cluster: dict[str, Any]) -> list[tuple[dict[str, Any], dict[str, Any]]]:
    """(rayStartParams, container) of the head and of every worker group."""
    spec = cluster["spec"]
    groups = [spec["headGroupSpec"], *spec["workerGroupSpecs"]]
    out = []
    for group in groups:
        [container] = group["template"]["spec"]["containers"]
        out.append((group["rayStartParams"], container))
    return out


def _env(container: dict[str, Any]) -> dict[str, Any]:
    return {e["name"]: e.get("value", e.get("valueFrom")) for e in container.get("env", [])}


def _compose_backend_image() -> str:
    compose = yaml.safe_load((REPO / "docker-compose.yml").read_text())
    image: str = compose["services"]["backend"]["image"]
    return image


def test_the_ray_cluster_runs_the_pinned_ray_in_the_backend_image() -> None:
    cluster = _ray_cluster()
    assert cluster["apiVersion"] == "ray.io/v1" and cluster["kind"] == "RayCluster"
    pinned = re.search(r'"ray==([0-9.]+)"', (REPO / "backend" / "pyproject.toml").read_text())
    assert pinned is not None
    assert cluster["spec"]["rayVersion"] == pinned.group(1) == version("ray")
    dockerfile = (REPO / "backend" / "Dockerfile").read_text()
    venv = re.search(r"UV_PROJECT_ENVIRONMENT=(\S+)", dockerfile)
    assert venv is not None
    for _, container in _groups(cluster):
        assert container["image"] == _compose_backend_image()
        assert _env(container)["PATH"].split(":")[0] == f"{venv.group(1)}/bin"  # where `ray` is


def test_each_group_offers_ray_the_cpus_its_pod_may_use_and_the_head_none() -> None:
    (head_params, _head), *workers = _groups(_ray_cluster())
    assert head_params["num-cpus"] == "0"
    assert workers
    for params, container in workers:
        limits, requests = container["resources"]["limits"], container["resources"]["requests"]
        assert params["num-cpus"] == str(limits["cpu"]) == str(requests["cpu"])
        assert int(params["num-cpus"]) >= Placement().cpus_per_worker


def test_probes_need_no_dashboard_and_the_head_serves_the_ports_the_control_plane_uses() -> None:
    cluster = _ray_cluster()
    (head_params, head), *workers = _groups(cluster)
    assert head_params["include-dashboard"] == "false"
    assert head_params["ray-client-server-port"] == str(RAY_CLIENT_PORT)
    ports = {p["name"]: p["containerPort"] for p in head["ports"]}
    assert ports == {"gcs-server": GCS_PORT, "client": RAY_CLIENT_PORT}
    head_service = f"{cluster['metadata']['name']}-head-svc"  # the Service KubeRay creates
    expected = {"head": f"127.0.0.1:{GCS_PORT}", "worker": f"{head_service}:{GCS_PORT}"}
    for role, (_, container) in zip(["head"] + ["worker"] * len(workers), _groups(cluster), strict=True):
        for probe in ("readinessProbe", "livenessProbe"):
            assert container[probe]["exec"]["command"] == ["ray", "health-check", "--address", expected[role]]


def test_the_control_plane_drives_the_cluster_through_its_ray_client_port() -> None:
    cluster = _ray_cluster()
    deployment, service = _documents(DEPLOY / "control-plane.yaml")
    assert deployment["kind"] == "Deployment" and service["kind"] == "Service"
    [container] = deployment["spec"]["template"]["spec"]["containers"]
    assert container["image"] == _compose_backend_image()
    assert container["command"][-1] == "serve"
    env = _env(container)
    address = f"ray://{cluster['metadata']['name']}-head-svc:{RAY_CLIENT_PORT}"
    assert env["SPANLOAD_RAY_ADDRESS"] == address
    assert Placement(kind=PlacementKind.RAY, address=address).address == address  # a valid address
    assert env["SPANLOAD_HOST"] == "0.0.0.0" and "secretKeyRef" in env["SPANLOAD_API_TOKEN"]  # serve insists
    # credentials: a Kubernetes service account (ADC) on every pod, never a key in the manifests
    accounts = {
        g["template"]["spec"]["serviceAccountName"]
        for g in [cluster["spec"]["headGroupSpec"], *cluster["spec"]["workerGroupSpecs"]]
    }
    assert accounts == {deployment["spec"]["template"]["spec"]["serviceAccountName"]}
    assert "GOOGLE_APPLICATION_CREDENTIALS" not in (DEPLOY / "raycluster.yaml").read_text() + str(env)
