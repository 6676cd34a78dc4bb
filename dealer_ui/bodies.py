"""The console's request bodies: anything not declared here is refused (400)."""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field


class _Body(BaseModel):
    model_config = ConfigDict(extra="forbid")


class LoginBody(_Body):
    username: str = Field(max_length=64)
    secret: str = Field(max_length=256)


class Approval(_Body):
    username: str = Field(max_length=64)
    secret: str = Field(max_length=256)


class ActionBody(_Body):
    code: str | None = Field(None, max_length=64)
    note: str | None = Field(None, max_length=500)
    result: dict[str, Any] | None = None
    reason: str | None = Field(None, max_length=500)
    round_id: str | None = Field(None, max_length=64)
    category: str | None = Field(None, max_length=32)
    text: str | None = Field(None, max_length=2000)
    #: a result by hand while a device can still report: why the device has failed for this round
    device_failed: str | None = Field(None, max_length=500)
    #: settling a late device reading: publish the device's reading or keep the result by hand
    keep: Literal["device", "manual"] | None = None
    approval: Approval | None = None
    #: the round and its state on the screen when the person started the action (a void started during betting)
    seen_round_id: str | None = Field(None, max_length=64)
    seen_state: str | None = Field(None, max_length=32)


class CommandBody(_Body):
    command: str = Field(min_length=1, max_length=80)
    confirm: bool = False


class SelfTestBody(_Body):
    confirm: bool = False


class DecodeBody(_Body):
    payload: str = Field(min_length=1, max_length=200)


class ResultCheckBody(_Body):
    result: dict[str, Any]


class MaintenanceBody(_Body):
    on: bool
    reason: str = Field("", max_length=500)


class NewUserBody(_Body):
    username: str = Field(max_length=64)
    role: Literal["dealer", "supervisor", "technician", "admin"]
    secret: str = Field(max_length=256)


class DisableBody(_Body):
    disabled: bool


class SecretBody(_Body):
    secret: str = Field(max_length=256)
