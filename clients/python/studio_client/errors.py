"""What the client raises: every refusal is a type of its own, so a backend can tell a broken studio from a
network blip (the first must stop processing and alert, the second only reconnects)."""

from __future__ import annotations

from typing import Any


class StudioClientError(Exception):
    """Base of every error this package raises."""


class FeedIntegrityError(StudioClientError):
    """The feed cannot be trusted: stop processing and alert. Never retried by the client."""

    def __init__(self, message: str, seq: int | None = None) -> None:
        super().__init__(message)
        self.seq = seq


class BadSignature(FeedIntegrityError):
    """A message's hash or Ed25519 signature does not verify."""


class ChainBroken(FeedIntegrityError):
    """A message's seq is not the last one + 1, or its prev_hash is not the last message's hash."""


class HeadWentBack(FeedIntegrityError):
    """The studio's head went backwards: a checkpoint behind (or disagreeing with) one already seen, or a feed
    shorter than the seq already processed. The journal was cut or replaced."""


class MalformedMessage(FeedIntegrityError):
    """A frame that is not a feed message (not JSON, or fields of the wrong type)."""


class FeedRefused(StudioClientError):
    """The feed refused the connection for a reason reconnecting does not fix (a bad token, a bad `after`)."""

    def __init__(self, status: int, code: str | None, message: str) -> None:
        super().__init__(
            f"feed refused the connection (HTTP {status}{', ' + code if code else ''}): {message}"
        )
        self.status = status
        self.code = code


class DecisionError(StudioClientError):
    """The decisions API refused a decision; `code` is the API's error code (docs/decisions.md)."""

    def __init__(self, status: int, code: str, message: str, body: dict[str, Any] | None = None) -> None:
        super().__init__(f"{code}: {message}")
        self.status = status
        self.code = code
        self.body = body or {}


class Unauthorized(DecisionError):
    """401: no or an unknown token."""


class Forbidden(DecisionError):
    """403: the token may not post decisions for that table."""


class UnknownTable(DecisionError):
    """404: no such table."""


class Malformed(DecisionError):
    """422 (or 413): the body was refused before the rules saw it; `problems` says where."""

    @property
    def problems(self) -> list[dict[str, str]]:
        return list(self.body.get("problems", []))


class DecisionRefused(DecisionError):
    """409: the round or the rules refuse the decision (`no_round`, `window_closed`, `not_allowed`, ...)."""


class TooManyAttempts(DecisionError):
    """429: too many refused tokens from this address; `retry_after` seconds to wait."""

    @property
    def retry_after(self) -> float:
        return float(self.body.get("retry_after", 1))


class StudioUnavailable(DecisionError):
    """503 (nothing was taken: retry while the window is open) or 500 (`judge_error`, a studio defect)."""


#: HTTP status -> the exception for it
BY_STATUS: dict[int, type[DecisionError]] = {
    401: Unauthorized,
    403: Forbidden,
    404: UnknownTable,
    409: DecisionRefused,
    413: Malformed,
    422: Malformed,
    429: TooManyAttempts,
    500: StudioUnavailable,
    503: StudioUnavailable,
}
