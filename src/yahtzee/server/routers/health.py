"""``/api/health``: the trivial endpoint (liveness, and the load benchmark's baseline)."""

from __future__ import annotations

from fastapi import APIRouter
from fastapi.responses import JSONResponse

from yahtzee.server.routers._common import Service
from yahtzee.server.views import HealthOut
from yahtzee.storage import StorageUnavailableError

router = APIRouter(prefix="/api", tags=["health"])


@router.get(
    "/health",
    response_model=HealthOut,
    responses={503: {"model": HealthOut, "description": "degraded: writes are failing"}},
    summary="Liveness and storage health",
)
async def health(svc: Service) -> JSONResponse:
    """``{"status": "ok"}``; after a write failed (disk full, read-only), 503
    ``{"status": "degraded", "storage": "unavailable", "detail": ...}`` until a write
    succeeds again: each call then tries one tiny write, so it also notices the recovery
    (F6)."""
    storage = svc.storage
    if storage.write_failure is not None:
        try:
            await storage.probe_write()
        except StorageUnavailableError:
            # The database's own words ("database or disk is full"), not its path.
            detail = storage.write_failure or "unavailable"
            body = {"status": "degraded", "storage": "unavailable", "detail": detail}
            return JSONResponse(body, status_code=503)
    return JSONResponse({"status": "ok"})
