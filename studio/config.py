"""The studio's configuration: one TOML file describes a studio.

    [studio]
    data_dir = "data"

    [server]
    host = "127.0.0.1"
    port = 8700

    [[consumers]]
    name = "backend"
    token = "a-long-secret"

    [[tables]]
    id = "roulette-1"
    game = "european_roulette"
    [tables.device]
    kind = "cammegh-ss2"
    url = "/dev/ttyUSB0"          # or "socket://host:port", "loop://", or "simulator"
    serial_number = "SS2-01234"

A wrong file is refused at start with the file, the table's id, the key and what is wrong: studio.config_check
checks what these models cannot (the drivers' URLs and options, devices sharing a port), for `studio check-config`
and `studio run` alike.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator, model_validator

from devices.registry import all_drivers, driver_class
from recognition.cards.base import CardGame
from recognition.draw_games.base import DrawGame
from recognition.games import GAMES

from .video import VideoSettings

ID_RE = re.compile(r"^[a-z0-9][a-z0-9_-]{0,63}$")


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid")


class StudioSection(_Strict):
    name: str = "studio"
    data_dir: Path = Path("data")
    #: where the journal is written (chained, signed, committed): "process", a process of its own, keeps that
    #: work off the event loop's GIL (lower result latency); "thread", a thread of the studio's process
    journal_writer: Literal["process", "thread"] = "process"
    #: the only folder (and its subfolders) a technician's accuracy run may read pictures from, over the
    #: console's API; default: "pictures" in the data folder. A relative path is relative to the config file.
    pictures_dir: Path | None = None
    #: serve Prometheus metrics at GET /metrics, without a token (docs/operations.md)
    metrics: bool = True
    #: how often (seconds) the feed carries a signed checkpoint of the journal's head (docs/feed.md); one is
    #: also published at every shutdown
    checkpoint_seconds: float = Field(default=60.0, ge=0.05, le=60.0)
    #: the largest request body (bytes) an HTTP route takes: larger ones are refused with 413 before being read
    max_body_bytes: int = Field(default=64 * 1024, ge=1024)
    #: the same for the routes that take a picture (the dice calibration desk, a shoe's card image)
    max_upload_bytes: int = Field(default=16 * 1024 * 1024, ge=1024)
    #: the bias watch (docs/statistics.md): the chance that fair equipment ever raises an alarm, per series
    bias_alert_level: float = Field(default=0.001, gt=0, lt=0.5)
    #: how often (seconds) the watch tests the series whose look is due and journals new alarms
    bias_check_seconds: float = Field(default=60.0, ge=0.05, le=3600)
    #: the count of a series' first look (then every doubling); default: 5 per category, at least 30
    bias_first_look: int | None = Field(default=None, ge=2)
    #: the certified manifest of the software (`studio manifest`; docs/operations.md): checked at start and
    #: every software_check_seconds; None: not checked
    manifest: Path | None = None
    #: the public key (base64 Ed25519) the manifest must be signed with; None: whatever key signed it
    manifest_public_key: str | None = None
    #: while the software differs: "refuse" pauses every table, "warn" only journals and logs it
    manifest_action: Literal["refuse", "warn"] = "refuse"
    software_check_seconds: float = Field(default=86400.0, ge=1.0)
    #: the time server (SNTP, UDP) the studio's clock is measured against (docs/operations.md); None: not
    #: measured. "host" or "host:port"
    time_server: str | None = None
    clock_check_seconds: float = Field(default=600.0, ge=0.05)
    #: /v1/health is degraded when the clock is further than this off its time server
    clock_max_offset_ms: float = Field(default=1000.0, gt=0)

    @field_validator("time_server")
    @classmethod
    def _time_server(cls, value: str | None) -> str | None:
        if value is not None:
            from .clock import parse_server

            parse_server(value)
        return value


class ServerSection(_Strict):
    host: str = "127.0.0.1"
    #: strict: "8700" in quotes is a mistake worth saying, not a number to guess
    port: int = Field(8700, ge=1, le=65535, strict=True)


class Consumer(_Strict):
    name: str
    token: str = Field(min_length=16, description="bearer token; at least 16 characters")
    #: tables this token may post player decisions for (`POST /v1/tables/{id}/decisions`); "*" = every table;
    #: empty (the default): a feed-only token
    decision_tables: list[str] = Field(default_factory=list)

    def may_decide(self, table_id: str) -> bool:
        return "*" in self.decision_tables or table_id in self.decision_tables


class SimulatorSettings(_Strict):
    speed: float = Field(1.0, gt=0, le=1000, description="clock factor: 1.0 is the device's real pace")
    seed: int | None = None
    options: dict[str, Any] = Field(default_factory=dict, description="simulator-specific settings")


class DeviceConfig(_Strict):
    kind: str
    #: what the device does at the table ("wheel", "shoe", "machine", "reader", "camera-1", ...);
    #: the device id in events and the journal is "<table id>/<role>"
    role: str = "main"
    url: str = Field(min_length=1)
    serial_number: str = "unknown"
    options: dict[str, Any] = Field(default_factory=dict)
    simulator: SimulatorSettings = Field(default_factory=SimulatorSettings)

    @field_validator("kind")
    @classmethod
    def known_kind(cls, v: str) -> str:
        drivers = all_drivers()
        if v not in drivers:
            raise ValueError(f"unknown device kind {v!r}; known: {', '.join(drivers)}")
        return v

    @property
    def is_simulator(self) -> bool:
        return self.url == "simulator"

    @model_validator(mode="after")
    def simulated_camera_calibrated(self) -> DeviceConfig:
        """A simulated overhead roulette camera is calibrated as a technician would measure its view (a real one
        needs its `calibration` in the file)."""
        if self.is_simulator and self.kind == "roulette-camera" and "calibration" not in self.options:
            from simulators.roulette_camera import View

            o = self.simulator.options
            try:
                view = View(**{k: o[k] for k in ("width", "height", "wheel", "clockwise") if k in o})
            except TypeError:
                return self  # the simulator's own options are refused where they are checked
            self.options["calibration"] = view.calibration()
        return self


class TableConfig(_Strict):
    id: str
    game: str
    #: one device (`[tables.device]`) or several (`[[tables.devices]]`, each with its own role)
    device: DeviceConfig | None = None
    devices: list[DeviceConfig] = Field(default_factory=list)
    settings: dict[str, Any] = Field(default_factory=dict, description="game settings passed to the judge")
    #: games with an opening check (a ball draw's ball-set check) open no round until it passes; false waives it
    #: (journaled), e.g. for a simulated demo table
    require_opening_check: bool = True
    #: rule options where operators differ (the game's constructor arguments, e.g. mega_rule = "multiply")
    game_options: dict[str, Any] = Field(default_factory=dict)
    #: the table's camera stream: device events and feed messages carry its timecode (studio/video.py)
    video: VideoSettings | None = None
    #: dealer-paced games: seconds of betting before the table closes betting by itself (0: the dealer closes)
    betting_seconds: float = Field(15.0, ge=0, le=600)
    #: dealer-paced games: open the next round by itself this many seconds after one ends (None: the dealer opens)
    auto_round_seconds: float | None = Field(None, ge=0, le=600)
    #: games with player decisions (blackjack, draw poker): seconds a decision window stays open before the
    #: table applies the rules' default action (stand)
    decision_seconds: float = Field(15.0, gt=0, le=600)

    @property
    def all_devices(self) -> list[DeviceConfig]:
        return ([self.device] if self.device else []) + list(self.devices)

    @field_validator("id")
    @classmethod
    def plain_id(cls, v: str) -> str:
        if not ID_RE.match(v):
            raise ValueError("a table id is 1-64 characters of a-z, 0-9, '-' and '_'")
        return v

    @field_validator("game")
    @classmethod
    def known_game(cls, v: str) -> str:
        if v not in GAMES:
            raise ValueError(f"unknown game {v!r}; known: {', '.join(sorted(GAMES))}")
        return v

    @model_validator(mode="after")
    def device_fits_game(self) -> TableConfig:
        devices = self.all_devices
        if not devices:
            raise ValueError("a table needs a device ([tables.device]) or devices ([[tables.devices]])")
        roles = [d.role for d in devices]
        dup = {r for r in roles if roles.count(r) > 1}
        if dup:
            raise ValueError(
                f"two devices of this table have the role {', '.join(sorted(dup))}; give each its own"
            )
        try:
            game = build_game(self.game, self.game_options)
        except (TypeError, ValueError) as exc:
            raise ValueError(f"game_options for {self.game}: {exc}") from None
        key = GAMES[self.game].time_scale_setting
        speeds = {d.simulator.speed for d in devices if d.is_simulator}
        if key and key not in self.settings and len(speeds) == 1 and all(d.is_simulator for d in devices):
            # A simulator at speed N compresses the device's timings N-fold; a judge that checks timings (the ball's
            # revolutions from the wheel's state times) must scale them back, or every fast simulated spin is void.
            speed = speeds.pop()
            self.settings[key] = int(speed) if float(speed).is_integer() else speed
        try:  # a wrong game setting is refused now, not when the studio starts
            game.new_judge(**self.settings)
        except (TypeError, ValueError) as exc:
            raise ValueError(f"settings for {self.game}: {exc}") from None
        self._simulated_shoes_deal_the_games_decks(game)
        self._simulated_draws_use_the_games_ball_set(game)
        kinds = GAMES[self.game].device_kinds
        for d in devices:
            if d.kind not in kinds and driver_class(d.kind).family not in kinds:
                raise ValueError(
                    f"game {self.game} cannot be played with a {d.kind} device (it takes {', '.join(kinds)})"
                )
        # a game whose settings must fit its devices (Monopoly Live's bonus dice from a dice camera)
        try:
            game.check_devices(self.settings, {d.role: d.kind for d in devices})
        except ValueError as exc:
            raise ValueError(f"devices for {self.game}: {exc}") from None
        return self

    def _simulated_shoes_deal_the_games_decks(self, game: Any) -> None:
        """A game that declares its decks (a card game: its devices are shoes) has its simulated shoes deal that
        many, unless the file says otherwise; a different number is refused, since the judge would refuse the
        cards (a second copy of a card in a single-deck game) or certify from a shoe that is not the game's."""
        decks = self.settings.get("decks", game.decks if isinstance(game, CardGame) else None)
        if not isinstance(decks, int) or isinstance(decks, bool):
            return
        # a game dealt from a fresh deck every round has its simulated dealer shuffle before every round
        reshuffle = self.settings.get(
            "reshuffle_each_round", isinstance(game, CardGame) and game.reshuffle_each_round
        )
        for d in self.all_devices:
            if not d.is_simulator:
                continue
            if reshuffle is True:
                d.simulator.options.setdefault("reshuffle_each_round", True)
            if d.simulator.speed > 1:
                # the driver folds a repeated read of one card within its window of real seconds (a double
                # scan); a simulated shoe deals `speed` times faster, a reshuffled card can come round again
                # within a second: the window runs on the simulator's clock
                d.options.setdefault("fold_window", 1.0 / d.simulator.speed)
            dealt = d.simulator.options.setdefault("decks", decks)
            if dealt != decks:
                raise ValueError(
                    f"the simulated shoe of role {d.role} deals {dealt} decks but {self.game} is played with "
                    f"{decks} (settings.decks, else the game's rules): leave the simulator's decks out"
                )

    def _simulated_draws_use_the_games_ball_set(self, game: Any) -> None:
        """A ball draw's simulated machine holds the game's ball set, and a simulated reader's driver reads it
        (a set of another size draws balls the game refuses, or runs out), unless the file names a set."""
        if not isinstance(game, DrawGame):
            return
        from .game_catalog import game_ball_set

        for d in self.all_devices:
            if d.is_simulator and d.kind == "modbus-ball-machine":
                d.simulator.options.setdefault("ball_set", game_ball_set(game))
            elif d.is_simulator and d.kind == "serial-ball-reader":
                d.options.setdefault("ball_set", game_ball_set(game))


def build_game(game_id: str, options: dict[str, Any]) -> Any:
    """The registered rules object, or a new one of its class with the table's rule options."""
    base = GAMES[game_id]
    if not options:
        return base
    game = type(base)(**options)
    if game.game_id != game_id:
        raise ValueError(f"options changed the game id to {game.game_id!r}")
    return game


class NatsStreamSettings(_Strict):
    """The studio's JetStream stream (one per studio: `STUDIO_<studio id>`, subjects `studio.<studio id>.>`)."""

    #: copies kept by the cluster (1 on a single node; 3 survives one node lost)
    replicas: int = Field(1, ge=1, le=5, strict=True)
    #: "limits": kept until max_age (backends catch up from it); "interest": dropped once every consumer acked
    retention: Literal["limits", "interest"] = "limits"
    #: how long the broker keeps a message (days); 0: until the operator purges it
    max_age_days: float = Field(0, ge=0)
    storage: Literal["file", "memory"] = "file"
    #: how long the broker remembers a message id to drop a repeat (a publisher's retry after a lost ack)
    duplicate_window_seconds: float = Field(120.0, gt=0, le=86400)


class NatsSection(_Strict):
    """`[delivery.nats]`: publish every feed message to NATS JetStream too (docs/nats.md)."""

    servers: list[str] = Field(default_factory=lambda: ["nats://127.0.0.1:4222"], min_length=1)
    #: the token of this studio in subjects and the stream's name; default: [studio] name
    studio_id: str | None = None
    #: a NATS credentials file (JWT + NKey seed, operator mode); or user + password_file; or neither
    credentials: Path | None = None
    user: str | None = None
    password_file: Path | None = None
    stream: NatsStreamSettings = Field(default_factory=NatsStreamSettings)
    #: messages sent before waiting for their acks (each one still checked against the stream's last seq)
    window: int = Field(256, ge=1, le=4000, strict=True)
    #: seconds to wait for the broker's acks of a window before reconnecting
    ack_timeout_seconds: float = Field(10.0, gt=0, le=300)

    @field_validator("servers")
    @classmethod
    def nats_urls(cls, v: list[str]) -> list[str]:
        for url in v:
            if not re.match(r"^(nats|tls)://[^\s/]+$", url):
                raise ValueError(f"{url!r} is not a NATS server URL (nats://host:port or tls://host:port)")
        return v

    @model_validator(mode="after")
    def one_way_to_log_in(self) -> NatsSection:
        if (self.user is None) != (self.password_file is None):
            raise ValueError("user and password_file go together")
        if self.credentials is not None and self.user is not None:
            raise ValueError("give either a credentials file or user and password_file, not both")
        return self


class DeliverySection(_Strict):
    nats: NatsSection | None = None


class StudioConfig(_Strict):
    studio: StudioSection = Field(default_factory=StudioSection)
    server: ServerSection = Field(default_factory=ServerSection)
    consumers: list[Consumer] = Field(default_factory=list)
    tables: list[TableConfig] = Field(default_factory=list)
    delivery: DeliverySection = Field(default_factory=DeliverySection)

    @property
    def nats_studio_id(self) -> str:
        """This studio's token in NATS subjects and its stream's name."""
        nats = self.delivery.nats
        return (nats.studio_id if nats and nats.studio_id else None) or self.studio.name

    @model_validator(mode="after")
    def unique(self) -> StudioConfig:
        for what, values in (
            ("table id", [t.id for t in self.tables]),
            ("consumer token", [c.token for c in self.consumers]),
            ("consumer name", [c.name for c in self.consumers]),
        ):
            dup = {v for v in values if values.count(v) > 1}
            if dup:
                raise ValueError(f"duplicate {what}: {', '.join(sorted(dup))}")
        if self.delivery.nats is not None and not ID_RE.match(self.nats_studio_id):
            raise ValueError(
                f"delivery.nats: the studio id {self.nats_studio_id!r} (studio_id, else [studio] name) must be "
                "1-64 characters of a-z, 0-9, '-' and '_' (it is a token of NATS subjects)"
            )
        ids = {t.id for t in self.tables}
        for c in self.consumers:
            unknown = [t for t in c.decision_tables if t != "*" and t not in ids]
            if unknown:
                raise ValueError(
                    f"consumer {c.name}: decision_tables names no configured table: "
                    f"{', '.join(unknown)} (tables: {', '.join(sorted(ids)) or 'none'}; '*' = all)"
                )
        return self

    def table(self, table_id: str) -> TableConfig:
        for t in self.tables:
            if t.id == table_id:
                return t
        raise KeyError(table_id)


class ConfigError(ValueError):
    pass


def parse_config(data: dict[str, Any], source: str = "<config>") -> StudioConfig:
    """The configuration a parsed TOML document describes, checked as `studio run` checks a file; ConfigError
    lists every problem."""
    from .config_check import parse

    return parse(data, source)


def load_config(path: Path) -> StudioConfig:
    """The configuration in a file, checked as `studio run` checks it; ConfigError lists every problem."""
    from .config_check import load

    return load(path)
