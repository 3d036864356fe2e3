"""``/api/health``: the trivial endpoint (liveness, and the load benchmark's baseline)."""

from __future__ import annotations

from fastapi import APIRouter
from fastapi.responses import JSONResponse

from yahtzee.server.views import HealthOut

router = APIRouter(prefix="/api", tags=["health"])


@router.get("/health", response_model=HealthOut, summary="Liveness")
async def health() -> JSONResponse:
    """Always ``{"status": "ok"}``."""
    return JSONResponse({"status": "ok"})
