"""HTTP and websocket API: one router module per resource, included from here."""

from fastapi import APIRouter, Depends, FastAPI, Request
from fastapi.responses import JSONResponse

from spanload.api import compare, experiments, health, live, metrics, presets, reports, runs, samples, workloads
from spanload.api.deps import require_token
from spanload.api.docs import install_docs
from spanload.api.guard import install_guards
from spanload.api.openapi import install_openapi
from spanload.api.spa import SPAStaticFiles
from spanload.model.errors import RunError
from spanload.model.settings import Settings
from spanload.model.workload_file import DefinitionInvalid

api_router = APIRouter(prefix="/api", dependencies=[Depends(require_token)])
api_router.include_router(health.router)
api_router.include_router(presets.router)
api_router.include_router(runs.router)
api_router.include_router(samples.router)
api_router.include_router(compare.router)
api_router.include_router(reports.router)
api_router.include_router(experiments.router)
api_router.include_router(live.router)
api_router.include_router(workloads.router)

metrics_router = APIRouter(dependencies=[Depends(require_token)])
metrics_router.include_router(metrics.router)


async def _run_error(_: Request, err: Exception) -> JSONResponse:
    """``detail``: one sentence; ``field``: the dotted field at fault, when there is one; a broken
    workload definition adds ``problems``, each placed on its line and column."""
    assert isinstance(err, RunError)
    body: dict[str, object] = {"detail": err.detail}
    if err.field is not None:
        body["field"] = err.field
    if isinstance(err, DefinitionInvalid):
        body["problems"] = [p.model_dump() for p in err.problems]
    return JSONResponse(body, status_code=err.status_code)


def install(app: FastAPI, settings: Settings) -> None:
    """Host and Origin checks, routers, error handlers, and the built frontend at ``/`` when it exists."""
    install_guards(app, settings)
    app.include_router(api_router)
    app.include_router(metrics_router)
    app.add_exception_handler(RunError, _run_error)
    install_openapi(app)
    install_docs(app, settings)
    if (settings.frontend_dist / "index.html").is_file():
        app.mount("/", SPAStaticFiles(directory=settings.frontend_dist), name="frontend")
