"""HTTP and websocket API: one router module per resource, included from here."""

from fastapi import APIRouter

from spanload.api import health

api_router = APIRouter(prefix="/api")
api_router.include_router(health.router)
