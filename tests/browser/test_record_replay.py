"""A recording is a workflow: record the person's login-and-form flow, then replay it with other inputs,
pausing at each secret for the person and resuming."""

from __future__ import annotations

import pytest
from mcp import Client

from tests.browser.test_browser_runs import Person, settled
from tests.browser.test_browser_tools import ok
from tests.browser.test_recorder import SECRETS, click, record_login_and_form, tab_page
from vmark.app.server import RunningApp
from vmark.browser import run_steps
from vmark.testing.uiclient import UIClient

pytestmark = pytest.mark.anyio

OTHER = {"user_name": "replayed-user", "subject": "replayed subject", "message_body": "replayed body"}


async def test_a_recording_replays_with_other_inputs(
    agent: Client, person: UIClient, vmark: RunningApp, site: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    # No time for the browser to report a click's navigation request (a loaded machine reports it late): the
    # page's own word that the click sent it away (a link, a form) is what the run follows.
    monkeypatch.setattr(run_steps, "SETTLE_SECONDS", 0.0)
    recorded = await record_login_and_form(agent, person, vmark, site, SECRETS)
    tab = (await ok(agent, "browser", "open", url=f"{site}/rec-many.html"))["tabId"]
    page = tab_page(vmark, tab)
    you = Person(person)
    async with you.allowing_everything():
        run = await ok(agent, "browser", "workflow_run", tabId=tab, source=recorded["source"], inputs=OTHER)
        status = await settled(agent, run["runId"])
        assert (status["status"], status["pausedAt"]) == ("paused", 2)  # the password: the person's to type
        assert await page.input_value("#user") == "replayed-user"
        await click(page, "#pass")
        await page.keyboard.type("typed by the person")
        run = await ok(agent, "browser", "workflow_run", tabId=tab, source=recorded["source"], inputs=OTHER,
                       resumeRunId=run["runId"])
        status = await settled(agent, run["runId"])
        assert (status["status"], status["pausedAt"]) == ("paused", 6)  # the verification code
        assert (await page.input_value("#subject"), await page.input_value("#body")) == (
            "replayed subject",
            "replayed body",
        )
        run = await ok(agent, "browser", "workflow_run", tabId=tab, source=recorded["source"], inputs=OTHER,
                       resumeRunId=run["runId"])
        status = await settled(agent, run["runId"])
    assert status["status"] == "completed", status
    assert status["completedSteps"] == status["stepCount"] == 11
    assert page.url == f"{site}/rec-form.html"
    # Every prompt named the element it was for, and no recorded value was typed anywhere.
    assert all(p["detail"]["element"] for p in you.seen if p["detail"]["action"] in ("click", "type"))
    assert not any(secret in str(you.seen) for secret in SECRETS.values())
