"""The console's dice API (dealer_ui/dice.py) on a whole studio: a Sic Bo table with a simulated camera over
HTTP, a signed-in technician and a refused dealer, real pictures through OpenCV."""

from __future__ import annotations

import asyncio
import time
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import cv2
import numpy as np
from dicevision_helpers import stop_late_preparers
from fastapi import FastAPI
from fastapi.testclient import TestClient
from journal_records import records
from waiting import WAIT_S

from dealer_ui import UserStore, console_router
from dealer_ui.dice import router as dice_router
from simulators.dice import TrayGeometry, calibration_document, render_still, write_dataset
from studio.config import parse_config
from studio.service import Studio

W, H = 640, 360
TECH = ("tom", "tech-pass-1")
DEALER = ("dana", "246810")


def make_app(tmp_path: Path) -> tuple[FastAPI, Studio]:
    g = TrayGeometry.for_frame(W, H)
    cfg = parse_config(
        {
            "studio": {"data_dir": str(tmp_path / "data")},
            "consumers": [{"name": "t", "token": "dice-api-test-token-01"}],
            "tables": [
                {
                    "id": "sicbo-1",
                    "game": "sic_bo",
                    "betting_seconds": 0.3,
                    "auto_round_seconds": 0.3,
                    "settings": {"calibration": calibration_document(g), "hold_after_s": 1.0},
                    "devices": [
                        {
                            "kind": "dice-camera",
                            "role": "camera-1",
                            "url": "simulator",
                            "serial_number": "SIM-1",
                            "options": {"sample_fps": 6, "heartbeat_s": 0.5, "linger_s": 1.5},
                            "simulator": {
                                "speed": 6.0,
                                "seed": 7,
                                "options": {
                                    "colors": ["white", "white", "white"],
                                    "width": W,
                                    "height": H,
                                    "fps": 10,
                                    "hard": False,
                                    "touching": 0.0,
                                    "throw_delay_s": 0.3,
                                    "rethrow_delay_s": 30,
                                },
                            },
                        }
                    ],
                }
            ],
        }
    )
    studio = Studio(cfg)
    users = UserStore(studio.data_dir)
    users.add(TECH[0], "technician", TECH[1])
    users.add(DEALER[0], "dealer", DEALER[1])

    @asynccontextmanager
    async def lifespan(app: FastAPI) -> AsyncIterator[None]:
        studio.start(asyncio.get_running_loop())
        try:
            yield
        finally:
            await asyncio.to_thread(studio.stop)
            stop_late_preparers(studio)

    app = FastAPI(lifespan=lifespan)
    console = console_router(studio)
    app.include_router(console)
    app.include_router(dice_router(studio, console))
    return app, studio


def sign_in(client: TestClient, who: tuple[str, str]) -> str:
    client.cookies.clear()
    r = client.post("/console/api/login", json={"username": who[0], "secret": who[1]})
    assert r.status_code == 200, r.text
    return r.json()["csrf"]


def wait_for(cond: Any, timeout: float, what: str) -> Any:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        value = cond()
        if value:
            return value
        time.sleep(0.1)
    raise AssertionError(f"timed out waiting for {what}")


def decode(data: bytes) -> np.ndarray:
    img = cv2.imdecode(np.frombuffer(data, np.uint8), cv2.IMREAD_COLOR)
    assert img is not None
    return img


def labelled_folder(tmp_path: Path) -> Path:
    """Four pictures with NAME.json (simulator), two named by their faces, one fault named so, one unlabelled."""
    folder = tmp_path / "data" / "pictures" / "camera-1"  # under the studio's default pictures folder
    write_dataset(
        folder, 4, colours=("white", "white", "white"), seed=3, width=W, height=H, hard=False, touching=0.0
    )
    import random

    g = TrayGeometry.for_frame(W, H)
    for i in range(2):
        img, truth = render_still(random.Random(50 + i), geometry=g, hard=False, touching=0.0)
        cv2.imwrite(str(folder / f"named{i}_{'-'.join(str(f) for f in truth.faces)}.png"), img)
    img, _ = render_still(random.Random(60), geometry=g, hard=False, faults=("missing",))
    cv2.imwrite(str(folder / "lost_fault.png"), img)
    cv2.imwrite(str(folder / "unlabelled.png"), img)
    return folder


def test_dice_api_for_technicians_only(tmp_path: Path) -> None:
    app, studio = make_app(tmp_path)
    folder = labelled_folder(tmp_path)
    with TestClient(app, base_url="http://testserver") as client:
        # nobody signed in
        assert client.get("/console/api/dice/sicbo-1/camera-1/calibration").status_code == 401
        # a dealer is refused everywhere
        csrf = sign_in(client, DEALER)
        for path in (
            "/console/api/dice/sicbo-1/camera-1/calibration",
            "/console/api/dice/sicbo-1/camera-1/latest",
            "/console/api/dice/sicbo-1/camera-1/latest.jpg",
            "/console/api/dice/sicbo-1/evidence",
            "/console/api/dice/sicbo-1/evidence/x.png",
        ):
            r = client.get(path)
            assert r.status_code == 403, (path, r.status_code)
        r = client.post(
            "/console/api/dice/accuracy", json={"folder": str(folder)}, headers={"X-CSRF-Token": csrf}
        )
        assert r.status_code == 403

        csrf = sign_in(client, TECH)
        # the stored calibration of the table's camera
        r = client.get("/console/api/dice/sicbo-1/camera-1/calibration")
        assert r.status_code == 200
        body = r.json()
        cal = calibration_document(TrayGeometry.for_frame(W, H))
        assert body["device_id"] == "sicbo-1/camera-1" and body["dice"] == 3 and body["version"] == 1
        assert body["calibration"]["tray"] == cal["tray"] and len(body["digest"]) == 16
        assert client.get("/console/api/dice/sicbo-1/camera-9/calibration").status_code == 404
        assert client.get("/console/api/dice/nope/camera-1/calibration").status_code == 404

        # the latest frame, read and drawn on
        wait_for(
            lambda: client.get("/console/api/dice/sicbo-1/camera-1/latest").status_code == 200,
            15,
            "a first camera frame",
        )
        r = client.get("/console/api/dice/sicbo-1/camera-1/latest")
        latest = r.json()
        assert (latest["width"], latest["height"]) == (W, H) and latest["status"] in ("ok", "uncertain")
        assert latest["tray"] and len(latest["tray"]) == 4
        r = client.get("/console/api/dice/sicbo-1/camera-1/latest.jpg")
        assert r.status_code == 200 and r.headers["content-type"] == "image/jpeg"
        assert decode(r.content).shape == (H, W, 3)

        # accuracy over a folder: needs the CSRF token; truth from NAME.json and from file names
        assert client.post("/console/api/dice/accuracy", json={"folder": str(folder)}).status_code == 403
        r = client.post(
            "/console/api/dice/accuracy",
            json={"folder": str(folder), "count": 3},
            headers={"X-CSRF-Token": csrf},
        )
        assert r.status_code == 200, r.text
        rep = r.json()
        assert rep["frames"] == 7 and rep["faults"] == 1 and rep["readable"] == 6
        assert rep["wrong_ok"] == 0 and rep["faults_held"] == 1 and rep["correct"] + rep["uncertain"] == 6
        assert rep["correct"] >= 5 and rep["calibration_source"] == "calibration.json"
        r = client.post(
            "/console/api/dice/accuracy",
            headers={"X-CSRF-Token": csrf},
            json={"folder": str(folder), "table_id": "sicbo-1", "role": "camera-1", "count": 3, "limit": 3},
        )
        assert r.status_code == 200 and r.json()["calibration_source"] == "sicbo-1/camera-1"
        assert r.json()["frames"] == 3
        assert r.json()["calibration"] == f"1/{body['digest']}"
        # a folder is named relative to the pictures folder, or by its full path under it; nothing outside it
        r = client.post(
            "/console/api/dice/accuracy",
            json={"folder": "camera-1", "count": 3, "limit": 2},
            headers={"X-CSRF-Token": csrf},
        )
        assert r.status_code == 200 and r.json()["frames"] == 2
        r = client.get("/console/api/dice/pictures")
        assert r.status_code == 200
        assert r.json() == {"root": str(folder.parent.resolve()), "exists": True, "folders": ["camera-1"]}
        r = client.post("/console/api/dice/accuracy", json={"folder": "none"}, headers={"X-CSRF-Token": csrf})
        assert r.status_code == 404
        outside = tmp_path / "elsewhere"
        outside.mkdir()
        (folder.parent / "link").symlink_to(outside)
        for given in (str(outside), "../..", "camera-1/../../data", "link", "/etc"):
            r = client.post(
                "/console/api/dice/accuracy", json={"folder": given}, headers={"X-CSRF-Token": csrf}
            )
            assert r.status_code == 403, (given, r.status_code)
            assert "pictures folder" in r.json()["detail"]["error"]
        refused = records(studio, "dice_accuracy_refused")
        assert len(refused) == 5, refused
        assert refused[0]["by"] == TECH[0] and refused[0]["folder"] == str(outside), refused[0]
        assert client.get("/console/api/dice/pictures", headers={"X-CSRF-Token": csrf}).status_code == 200

        # a held round's evidence picture, drawn on
        sim = studio.simulator("sicbo-1")
        sim.world.queue(faults=("missing",))
        items = wait_for(
            lambda: client.get("/console/api/dice/sicbo-1/evidence").json(), WAIT_S, "a held round's evidence"
        )
        ev = items[0]
        assert ev["code"] == "dice_missing" and ev["status"] == "uncertain"
        assert ev["evidence_id"].startswith("sicbo-1/camera-1#")
        from urllib.parse import quote

        r = client.get(f"/console/api/dice/sicbo-1/evidence/{quote(ev['evidence_id'], safe='')}.png")
        assert r.status_code == 200 and r.headers["content-type"] == "image/png"
        assert r.content.startswith(b"\x89PNG")
        drawn = decode(r.content)
        judge = studio.tables["sicbo-1"].judge
        raw = judge.evidence(ev["evidence_id"]).frame
        assert (
            drawn.shape == raw.shape and np.count_nonzero(np.abs(drawn.astype(int) - raw) > 40) > 500
        )  # drawn on
        r = client.get(f"/console/api/dice/sicbo-1/evidence/{quote(ev['evidence_id'], safe='')}.jpg")
        assert r.status_code == 200 and r.headers["content-type"] == "image/jpeg"
        assert (
            client.get("/console/api/dice/sicbo-1/evidence/sicbo-1%2Fcamera-1%23999999.png").status_code
            == 404
        )
        # the device page's data (the console's family hook): calibration and evidence, no picture read
        from dealer_ui.dice import page_data

        table = studio.tables["sicbo-1"]
        data = page_data(table, next(iter(table.devices.values())))
        assert data["digest"] == body["digest"] and data["dice"] == 3
        assert ev["evidence_id"] in [e["evidence_id"] for e in data["evidence"]]
        assert data["urls"]["latest_jpg"] == "/console/api/dice/sicbo-1/camera-1/latest.jpg"
