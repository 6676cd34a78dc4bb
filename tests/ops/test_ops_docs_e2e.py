"""`/docs` (Swagger UI) and `/redoc` in Debian's Chromium render the studio's operations with every asset from the
studio: any request to a host other than 127.0.0.1 is blocked and counted, and none may be attempted."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import pytest
from ops_helpers import Served, make_studio, wheel

CHROMIUM = "/usr/bin/chromium"
CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]
TIMEOUT = 30_000


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    """Module scope: Playwright's sync API keeps an event loop running in this thread while it is open."""
    sync_api = pytest.importorskip("playwright.sync_api")
    if not Path(CHROMIUM).exists():
        pytest.fail(f"{CHROMIUM} is missing: install Debian's chromium (.ci/run does)")
    with sync_api.sync_playwright() as p:
        b = p.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        try:
            yield b
        finally:
            b.close()


@pytest.fixture(scope="module")
def served(tmp_path_factory) -> Iterator[Served]:
    s = Served(make_studio(tmp_path_factory.mktemp("ops-docs") / "data", [wheel("w1")]))
    yield s
    s.stop()


def offline_page(browser: Any) -> tuple[Any, Any, list[str], list[str]]:
    """A page whose requests to any host but 127.0.0.1 are aborted and listed, and its script errors."""
    ctx = browser.new_context(viewport={"width": 1280, "height": 800})
    ctx.set_default_timeout(TIMEOUT)
    elsewhere: list[str] = []

    def route(r: Any) -> None:
        if urlsplit(r.request.url).hostname == "127.0.0.1":
            r.continue_()
        else:
            elsewhere.append(r.request.url)
            r.abort()

    ctx.route("**/*", route)
    page = ctx.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    return ctx, page, elsewhere, errors


def test_swagger_ui_lists_the_operations_offline(browser, served):
    ctx, page, elsewhere, errors = offline_page(browser)
    try:
        page.goto(f"{served.url}/docs")
        page.locator(".opblock-summary-path", has_text="/v1/health").first.wait_for()
        paths = page.locator(".opblock-summary-path").all_inner_texts()
        assert "/v1/health" in paths and "/metrics" in paths and "/v1/tables/{table_id}/decisions" in paths
        page.locator(".opblock-tag", has_text="operations").first.wait_for()
    finally:
        ctx.close()
    assert elsewhere == [] and errors == []


def test_redoc_lists_the_operations_offline(browser, served):
    ctx, page, elsewhere, errors = offline_page(browser)
    try:
        page.goto(f"{served.url}/redoc")
        page.get_by_text("/v1/health").first.wait_for(state="attached")
        assert page.locator("h1", has_text="studio").count() >= 1
    finally:
        ctx.close()
    assert elsewhere == [] and errors == []
