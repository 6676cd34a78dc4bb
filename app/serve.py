"""Serving a studio: its app under uvicorn, with the banner people read and the background tasks beside it."""

from __future__ import annotations

from typing import Any


def websocket_protocol() -> Any:
    """uvicorn's WebSocket protocol, told that a refusal by an HTTP response (the feed's 400 for a bad ?after=)
    completes the handshake: uvicorn 0.54 logs every such refusal at ERROR ("ASGI callable returned without
    completing handshake"), though the client got the response. Without that class: uvicorn's default."""
    try:
        from uvicorn.protocols.websockets.websockets_sansio_impl import WebSocketsSansIOProtocol
    except ImportError:  # pragma: no cover - another uvicorn: its own default
        return "auto"

    class Protocol(WebSocketsSansIOProtocol):
        async def send(self, message: Any) -> None:
            await super().send(message)
            if message["type"] == "websocket.http.response.body" and not message.get("more_body", False):
                self.handshake_complete = True  # the refusal went out: nothing is missing

    return Protocol


def serve(
    config: Any,
    banner: bool = True,
    demo_users: dict[str, tuple[str, str]] | None = None,
    background: list[Any] | None = None,
) -> int:
    """Serve the studio; `background`: functions of the server returning coroutines run beside it (the demo's
    backend), cancelled when the server stops."""
    import uvicorn

    from studio.service import Studio

    from .api import create_app
    from .malloc import trimming, tune_malloc

    tune_malloc()  # before the devices' threads start
    studio = Studio(config)
    app = create_app(studio)

    class Server(uvicorn.Server):
        async def serve(self, sockets: Any = None) -> None:
            import asyncio

            tasks = [asyncio.ensure_future(make(self)) for make in background or []]
            try:
                await super().serve(sockets)
            finally:
                for t in tasks:
                    t.cancel()
                await asyncio.gather(*tasks, return_exceptions=True)

        async def shutdown(self, sockets: Any = None) -> None:
            # before uvicorn closes the feed's connections: the studio_stopped voids, durable and delivered
            await studio.wind_down()
            await super().shutdown(sockets)

    server = Server(
        uvicorn.Config(
            app,
            host=config.server.host,
            port=config.server.port,
            log_level="warning",
            ws=websocket_protocol(),
            # no logging config of uvicorn's own: its loggers propagate to the studio's handler (text or JSON)
            log_config=None,
            lifespan="on",
            ws_ping_interval=20,
            ws_per_message_deflate=False,
            timeout_graceful_shutdown=5,
        )
    )
    if banner:
        host = config.server.host
        shown = "127.0.0.1" if host in ("0.0.0.0", "") else host
        base = f"{shown}:{config.server.port}"
        print(
            f"studio: {len(config.tables)} table(s): {', '.join(t.id + ' (' + t.game + ')' for t in config.tables)}"
        )
        print(f"  feed URL:        ws://{base}/v1/feed   (resume with ?after=SEQ)")
        print(f"  rounds:          http://{base}/v1/rounds/{{round_id}}")
        print(f"  public key URL:  http://{base}/v1/public-key")
        print(f"  public key:      {studio.public_key_b64}  (ed25519)")
        print(f"  data folder:     {config.studio.data_dir}")
        print(f"  console:         http://{base}/console/   (dealer, supervisor, technician, admin)")
        for role, (name, pin) in (demo_users or {}).items():
            print(f"  {'demo ' + role + ':':<17}user {name:<12} PIN {pin}")
        if demo_users == {}:
            print("  console users:   this data folder has its own users ('studio user add' adds one)")
        for c in config.consumers:
            if c.decision_tables:
                print(
                    f"  decisions token: {c.token}  ({c.name}; may POST /v1/tables/{{id}}/decisions for "
                    f"{', '.join(c.decision_tables)}; docs/decisions.md)"
                )
            else:
                print(f"  consumer token:  {c.token}  ({c.name}; send as 'Authorization: Bearer <token>')")
        print("  Ctrl-C stops the studio.", flush=True)
    try:
        with trimming():
            server.run()
    except KeyboardInterrupt:
        pass
    finally:
        studio.stop()
    return 0
