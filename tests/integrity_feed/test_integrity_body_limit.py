"""Every HTTP route refuses an oversized body with 413 before anything parses it (app/limits.py)."""

from __future__ import annotations

import time
from collections.abc import Iterator

import cv2
import httpx
import numpy as np
import pytest
from integrity_helpers import Served, make_studio, wheel_table

from dealer_ui.auth import UserStore

TECH, TECH_PIN = "tina", "tech-pass-2468"
BIG = 50 * 1024 * 1024


@pytest.fixture(scope="module")
def served(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Served]:
    data = tmp_path_factory.mktemp("body-limit") / "data"
    UserStore(data).add(TECH, "technician", TECH_PIN)
    dice = {
        "id": "sicbo-1",
        "game": "sic_bo",
        "devices": [
            {
                "kind": "dice-camera",
                "role": "camera-1",
                "url": "rtsp://127.0.0.1:9/none",
                "serial_number": "C1",
            }
        ],
    }
    s = Served(make_studio(data, [wheel_table(), dice]))
    yield s
    s.stop()


def _chunks(total: int, size: int = 1 << 20) -> Iterator[bytes]:
    sent = 0
    while sent < total:
        n = min(size, total - sent)
        sent += n
        yield b"x" * n


def test_a_50_mb_login_body_is_refused_at_once(served: Served) -> None:
    started = time.monotonic()
    with httpx.Client(base_url=served.url, timeout=60) as http:
        r = http.post(
            "/console/api/login",
            content=b'{"username": "' + b"a" * BIG + b'"}',
            headers={"content-type": "application/json"},
        )
    assert r.status_code == 413, r.text
    assert "larger than 65536 bytes" in r.text
    # refused on its Content-Length: far less time than parsing 50 MB would take on a loaded machine
    assert time.monotonic() - started < 30


def test_a_chunked_body_is_refused_once_it_passes_the_limit(served: Served) -> None:
    with httpx.Client(base_url=served.url, timeout=60) as http:
        r = http.post(
            "/console/api/login", content=_chunks(BIG), headers={"content-type": "application/json"}
        )
    assert r.status_code == 413, r.text
    assert r.request.headers.get("transfer-encoding") == "chunked"


def test_a_chunked_body_under_the_limit_passes(served: Served) -> None:
    with httpx.Client(base_url=served.url, timeout=60) as http:
        r = http.post(
            "/console/api/login",
            content=iter([b'{"username": "nobody", ', b'"secret": "000000"}']),
            headers={"content-type": "application/json"},
        )
    assert r.status_code == 401, r.text  # the login's own answer: the body was read and parsed


def test_normal_requests_pass(served: Served) -> None:
    with httpx.Client(base_url=served.url, timeout=60) as http:
        assert http.get("/v1/health").status_code == 200
        r = http.post("/console/api/login", json={"username": TECH, "secret": TECH_PIN})
        assert r.status_code == 200, r.text


def test_the_dice_desk_takes_a_2_mb_picture_and_refuses_a_larger_one_than_its_limit(served: Served) -> None:
    noise = np.random.default_rng(5).integers(0, 256, size=(700, 1000, 3), dtype=np.uint8)
    ok, png = cv2.imencode(".png", noise)
    assert ok and len(png) > 2_000_000
    with httpx.Client(base_url=served.url, timeout=60) as http:
        me = http.post("/console/api/login", json={"username": TECH, "secret": TECH_PIN}).json()
        headers = {"x-csrf-token": me["csrf"], "content-type": "image/png"}
        route = "/console/api/dice/sicbo-1/camera-1/setup/empty"
        r = http.post(route, content=png.tobytes(), headers=headers)
        assert r.status_code == 200, r.text
        big = http.post(route, content=b"\0" * (17 * 1024 * 1024), headers=headers)
        assert big.status_code == 413
        # the same picture to a JSON route: over the small limit
        r = http.post("/console/api/session", content=png.tobytes(), headers=headers)
        assert r.status_code == 413
