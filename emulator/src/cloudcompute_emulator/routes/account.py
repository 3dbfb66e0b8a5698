"""GET /v1/balance."""

from __future__ import annotations

from fastapi import APIRouter

from cloudcompute_emulator import projects
from cloudcompute_emulator.context import Context
from cloudcompute_emulator.routes import _responses
from cloudcompute_emulator.schemas.catalog import Balance

router = APIRouter(tags=["Account"])


@router.get("/v1/balance", response_model=Balance, summary="Project balance")
async def get_balance(ctx: Context):
    return _responses.json({"amount": projects.balance(ctx.state, ctx.project_id), "currency": projects.CURRENCY})
