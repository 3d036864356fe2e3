"""``/api/health``: the trivial endpoint (liveness, and the load benchmark's baseline)."""

from __future__ import annotations

from fastapi import APIRouter
from fastapi.responses import JSONResponse

from yahtzee.server.routers._common import Service
from yahtzee.server.views import HealthOut

router = APIRouter(prefix="/api", tags=["health"])


@router.get(
    "/health",
    response_model=HealthOut,
    responses={503: {"model": HealthOut, "description": "degraded: writes are failing"}},
    summary="Liveness and storage health",
)
async def health(svc: Service) -> JSONResponse:
    """``{"status": "ok"}`` while the last write succeeded; after a write failed (disk
    full, read-only, locked), 503 ``{"status": "degraded", "storage": "unavailable",
    "detail": ...}`` until a write succeeds again (F6, issue 22.5). With no write for
    30 s after the failure, a call tries one tiny write itself, so health also notices a
    recovery while nobody plays."""
    failure = await svc.storage.health()
    if failure is not None:
        # The database's own words ("database or disk is full"), not its path.
        body = {"status": "degraded", "storage": "unavailable", "detail": failure}
        return JSONResponse(body, status_code=503)
    return JSONResponse({"status": "ok"})
