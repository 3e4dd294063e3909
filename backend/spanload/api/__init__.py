"""HTTP and websocket API: one router module per resource, included from here."""

from fastapi import APIRouter, Depends, FastAPI, Request
from fastapi.encoders import jsonable_encoder
from fastapi.exceptions import RequestValidationError
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


REQUEST_PARTS = ("body", "query", "path", "header", "cookie")


def validation_field(loc: tuple[int | str, ...] | list[int | str]) -> str | None:
    """The dotted field a request-validation error's ``loc`` names, as the app's own 422s name it: the
    request part dropped, and a run start's ``config`` too (``body.config.updater.parallelism`` ->
    ``updater.parallelism``, ``query.limit`` -> ``limit``); None when nothing is left."""
    parts = [str(p) for p in loc]
    if parts and parts[0] in REQUEST_PARTS:
        parts = parts[1:]
    if parts and parts[0] == "config":
        parts = parts[1:]
    return ".".join(parts) or None


async def _validation_error(_: Request, err: Exception) -> JSONResponse:
    """FastAPI's own 422 (``detail``: its list of ``{loc, msg, type}``) with the first error's field
    beside it, as every 422 of the app carries ``field``, so a form places it without parsing ``loc``."""
    assert isinstance(err, RequestValidationError)
    errors = list(err.errors())
    body: dict[str, object] = {"detail": jsonable_encoder(errors)}
    field = validation_field(errors[0].get("loc", ())) if errors else None
    if errors and (named := (errors[0].get("ctx") or {}).get("field")):  # a patch's fixed field: model/fixed_fields
        field = f"{field}.{named}" if field else str(named)
    if field is not None:
        body["field"] = field
    return JSONResponse(body, status_code=422)


def install(app: FastAPI, settings: Settings) -> None:
    """Host and Origin checks, routers, error handlers, and the built frontend at ``/`` when it exists."""
    install_guards(app, settings)
    app.include_router(api_router)
    app.include_router(metrics_router)
    app.add_exception_handler(RunError, _run_error)
    app.add_exception_handler(RequestValidationError, _validation_error)
    install_openapi(app)
    install_docs(app, settings)
    if (settings.frontend_dist / "index.html").is_file():
        app.mount("/", SPAStaticFiles(directory=settings.frontend_dist), name="frontend")
