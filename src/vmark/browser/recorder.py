"""``browser.workflow_record``: the person's own clicks and field entries, as workflow text.

A recording installs a capture shim (``js/recorder.js``) in the PAGE world of the tab's main frame
(an init script, so it follows navigations, and once into the document shown at the start). The
shim is dormant unless an activation script, added for the recording and removed at its end,
names the recording. It keeps only trusted events (the person's real input), value-free by
construction: the role and accessible name of what was touched, for a field only that it changed,
and whether it is a secret (a password or one-time-code field, replayed as a ``confirm:`` step).
Events reach the driver through a hidden buffer read from the isolated world (as the console's
do); the page has no channel into VMark, and the buffer is page-controlled, so every event is
shape-checked here. The driver cannot read a document once a navigation away from it has started
(DevTools holds its messages until the next document commits), so the shim also carries its
events in the origin's sessionStorage to the next document of the same origin; the driver reads
the buffer every :data:`POLL_SECONDS` too, which covers a cross-origin departure unless it follows
the last event within that time.

Navigations: one the page asked for (a link, a form, a script) replays by itself with the step
that caused it; one the page did not ask for (the address bar, reload, back) becomes
``navigate to <origin + path>``, as does the page shown at the start. Bounds:
:data:`RECORDER_PAGE_EVENT_LIMIT` events per document (counted in the shim), :data:`RECORDER_SESSION_EVENT_LIMIT`
per recording; past them nothing more is added and the answer says how much was left out.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import re
import secrets
import time
import unicodedata
import weakref
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Literal, Protocol

from vmark.browser.failures import PlaywrightError
from vmark.browser.isolated import EvalError, EvalTimeout, js_source, page_script, world_for
from vmark.browser.urlpolicy import redact_url
from vmark.protocol.browser_results import RecordedWorkflow
from vmark.protocol.limits import (
    ACCESSIBLE_NAME_CHARS,
    RECORDER_EVAL_SECONDS,
    RECORDER_INPUT_NAME_CHARS,
    RECORDER_PAGE_EVENT_LIMIT,
    RECORDER_SESSION_EVENT_LIMIT,
)

if TYPE_CHECKING:
    from playwright.async_api import CDPSession, Page

POLL_SECONDS = 0.3
DEFAULT_SITE = "recording"
#: the one place the runtime reads a field's value (the name of a control holding another one):
#: the shim's copy of the runtime names that inner field by nothing instead
_VALUE_READ = "parts.push(' ' + (/** @type {HTMLInputElement} */ (el).value || '') + ' ');"
_ROLE = re.compile(r"[a-z][a-z-]{0,31}")
_DOC = re.compile(r"[0-9a-z]{1,40}")
_CONTROL = re.compile(r"[\x00-\x1f\x7f]+")
#: not the error's text: Playwright's call logs name URLs with their query strings
_UNPREPARED = "the page could not be prepared for recording (navigating or closed): try again"

Kind = Literal["click", "type", "confirm", "navigate"]


class RecordingError(Exception):
    """A start while recording, or a stop without a recording."""


class _Closable(Protocol):
    async def close(self) -> None: ...


@dataclass(frozen=True)
class Captured:
    """One recorded event: a locator (role + name) or a navigation URL, never a value."""

    t: float
    kind: Kind
    role: str = ""
    name: str = ""
    url: str = ""


@dataclass
class _Shim:
    buffer_id: str
    flag: str
    source: str


@dataclass
class _Recording:
    page: Page
    shim: _Shim
    id: str
    site: str
    started: float
    activation: _Closable | None = None
    session: CDPSession | None = None
    main_frame: str = ""
    events: list[Captured] = field(default_factory=list)
    seen: set[tuple[str, int]] = field(default_factory=set)
    page_dropped: dict[str, int] = field(default_factory=dict)
    session_dropped: int = 0
    #: the page asked for a navigation of its main frame since the last one committed
    page_asked: bool = False
    poller: asyncio.Task[None] | None = None
    lock: asyncio.Lock = field(default_factory=asyncio.Lock)

    def add(self, event: Captured) -> None:
        if len(self.events) >= RECORDER_SESSION_EVENT_LIMIT:
            self.session_dropped += 1
            return
        self.events.append(event)


_SHIMS: weakref.WeakKeyDictionary[Page, _Shim] = weakref.WeakKeyDictionary()
_RECORDINGS: weakref.WeakKeyDictionary[Page, _Recording] = weakref.WeakKeyDictionary()

_READ = """(id) => {
  const buffer = document.getElementById(id);
  return buffer ? buffer.textContent : null;
}"""

_FORGET = """(id) => {
  try { sessionStorage.removeItem(id); } catch (e) { /* an opaque origin */ }
  const buffer = document.getElementById(id);
  if (buffer) buffer.remove();
}"""


def shim_source(buffer_id: str, flag: str) -> str:
    """The capture shim for one page, with the runtime's naming rules inside it."""
    runtime = js_source("runtime.js")
    if _VALUE_READ not in runtime:
        raise RuntimeError("runtime.js changed: the recorder's copy must not read field values")
    runtime = runtime.replace(_VALUE_READ, "parts.push(' ');")
    shim = page_script("recorder.js")
    shim = shim.replace("__BUFFER_ID__", buffer_id).replace("__FLAG__", flag)
    return shim.replace("__RUNTIME__;", runtime)


def is_recording(page: Page) -> bool:
    return page in _RECORDINGS


async def start_recording(page: Page, site: str = DEFAULT_SITE) -> None:
    """Activate the shim (installing it first) and follow the tab's navigations."""
    if page in _RECORDINGS:
        raise RecordingError("a recording is already running in this tab: stop it first")
    try:
        shim = await _install(page)
    except PlaywrightError as exc:
        raise RecordingError(_UNPREPARED) from exc
    recording = _Recording(page, shim, secrets.token_hex(8), site, time.time() * 1000)
    _RECORDINGS[page] = recording
    try:
        activate = f"window[{json.dumps(shim.flag)}] = {json.dumps(recording.id)};"
        recording.activation = await page.add_init_script(activate)
        await asyncio.wait_for(page.evaluate(shim.source), RECORDER_EVAL_SECONDS)
        await asyncio.wait_for(page.evaluate(activate), RECORDER_EVAL_SECONDS)
        await _follow_navigations(recording)
    except (PlaywrightError, TimeoutError) as exc:
        await _teardown(recording)
        raise RecordingError(_UNPREPARED) from exc
    url = redact_url(page.url)
    if url.startswith(("http://", "https://")):
        recording.add(Captured(recording.started, "navigate", url=url))
    recording.poller = asyncio.ensure_future(_poll(recording))


async def stop_recording(page: Page, site: str | None = None) -> RecordedWorkflow:
    """End the recording: ``{source, inputs, eventCount}`` (+ ``notRecorded``, ``limit`` past a bound)."""
    recording = _RECORDINGS.get(page)
    if recording is None:
        raise RecordingError("no recording is running in this tab: start one first")
    await _drain(recording)
    await _teardown(recording)
    return build(recording.events, site or recording.site, recording.session_dropped, recording.page_dropped)


async def _install(page: Page) -> _Shim:
    shim = _SHIMS.get(page)
    if shim is None:
        token = secrets.token_hex(8)
        shim = _Shim(f"vmark-rec-{token}", f"__vmarkRec_{token}", "")
        shim.source = shim_source(shim.buffer_id, shim.flag)
        await page.add_init_script(shim.source)
        _SHIMS[page] = shim
    return shim


async def _follow_navigations(recording: _Recording) -> None:
    session = await recording.page.context.new_cdp_session(recording.page)
    recording.session = session
    tree = await session.send("Page.getFrameTree")
    recording.main_frame = str(tree["frameTree"]["frame"]["id"])

    def asked(event: dict[str, Any]) -> None:
        if event.get("frameId") == recording.main_frame:
            recording.page_asked = True

    def committed(event: dict[str, Any]) -> None:
        frame = event.get("frame") or {}
        if frame.get("id") != recording.main_frame or frame.get("parentId"):
            return
        if not recording.page_asked:
            url = redact_url(str(frame.get("url", "")))
            if url.startswith(("http://", "https://")):
                recording.add(Captured(time.time() * 1000, "navigate", url=url))
        recording.page_asked = False

    session.on("Page.frameRequestedNavigation", asked)
    session.on("Page.frameNavigated", committed)
    await session.send("Page.enable")


async def _poll(recording: _Recording) -> None:
    while not recording.page.is_closed():  # a closed tab ends its recording's reads
        await asyncio.sleep(POLL_SECONDS)
        await _drain(recording)


async def _drain(recording: _Recording) -> None:
    async with recording.lock:
        # Not the world's own timeout: on expiry it stops whatever script runs in the page, and a
        # read waits out a navigation in progress (DevTools holds it until the next document).
        read = world_for(recording.page).evaluate(_READ, recording.shim.buffer_id, timeout=None)
        try:
            text = await asyncio.wait_for(read, RECORDER_EVAL_SECONDS)
        except (EvalError, EvalTimeout, PlaywrightError, TimeoutError):
            return  # between documents, or the page is gone: the next read (or the carry) has them
        _take(recording, text)


def _take(recording: _Recording, text: Any) -> None:
    """Add the buffer's new events, shape-checked (the page can write anything there)."""
    try:
        data = json.loads(text) if isinstance(text, str) else None
    except ValueError:
        return
    if not isinstance(data, dict) or not isinstance(data.get("events"), list):
        return
    doc, dropped = data.get("doc"), data.get("dropped")
    if isinstance(doc, str) and _DOC.fullmatch(doc) and isinstance(dropped, int) and dropped > 0:
        recording.page_dropped[doc] = max(recording.page_dropped.get(doc, 0), dropped)
    for raw in data["events"]:
        event = _event(recording, raw)
        if event is not None:
            recording.add(event)


def _event(recording: _Recording, raw: Any) -> Captured | None:
    if not isinstance(raw, dict) or raw.get("s") != recording.id:
        return None
    doc, index, kind, role = raw.get("doc"), raw.get("i"), raw.get("k"), raw.get("role")
    if not (isinstance(doc, str) and _DOC.fullmatch(doc) and isinstance(index, int) and index >= 0):
        return None
    if kind not in ("click", "type") or not isinstance(role, str) or not _ROLE.fullmatch(role):
        return None
    if (doc, index) in recording.seen or len(recording.seen) >= RECORDER_SESSION_EVENT_LIMIT * 4:
        return None
    recording.seen.add((doc, index))
    stamp = raw.get("t")
    t = float(stamp) if isinstance(stamp, int | float) and not isinstance(stamp, bool) else recording.started
    name = _CONTROL.sub(" ", str(raw.get("name", "")))
    name = " ".join(name.split())[:ACCESSIBLE_NAME_CHARS]
    if kind == "type" and raw.get("secret") is True:
        return Captured(t, "confirm", role, name)
    return Captured(t, "click" if kind == "click" else "type", role, name)


async def _teardown(recording: _Recording) -> None:
    _RECORDINGS.pop(recording.page, None)
    if recording.poller is not None:
        recording.poller.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await recording.poller
    page = recording.page
    with contextlib.suppress(PlaywrightError, TimeoutError, EvalError, EvalTimeout):
        if recording.activation is not None:
            await recording.activation.close()
        deactivate = page.evaluate(f"window[{json.dumps(recording.shim.flag)}] = null")
        await asyncio.wait_for(deactivate, RECORDER_EVAL_SECONDS)
        forget = world_for(page).evaluate(_FORGET, recording.shim.buffer_id, timeout=None)
        await asyncio.wait_for(forget, RECORDER_EVAL_SECONDS)
    if recording.session is not None:
        with contextlib.suppress(PlaywrightError):
            await recording.session.detach()


# --- the workflow text ------------------------------------------------------------------------
def build(
    events: list[Captured], site: str, session_dropped: int = 0, page_dropped: dict[str, int] | None = None
) -> RecordedWorkflow:
    """The workflow text of a recording: one input per distinct field (named after it), a
    ``confirm:`` for a secret field, ``navigate to`` for a navigation the page did not ask for."""
    inputs: dict[tuple[str, str], str] = {}
    lines: list[str] = []
    for event in sorted(events, key=lambda e: e.t):
        line = _line(event, inputs)
        if event.kind in ("confirm", "navigate") and lines and lines[-1] == line:
            continue  # the same secret field again, the same page again: one step
        lines.append(line)
    names = list(inputs.values())
    front = ["---", f"site: {site}", f"inputs: [{', '.join(names)}]", "---"]
    source = "\n".join([*front, *lines]) + "\n"
    answer: RecordedWorkflow = {"source": source, "inputs": names, "eventCount": len(events)}
    left_out = session_dropped + sum((page_dropped or {}).values())
    if left_out:
        bounds = []
        if page_dropped:
            bounds.append(f"{RECORDER_PAGE_EVENT_LIMIT} events per page")
        if session_dropped:
            bounds.append(f"{RECORDER_SESSION_EVENT_LIMIT} events per recording")
        answer["notRecorded"] = left_out
        answer["limit"] = f"reached {' and '.join(bounds)}: {left_out} later events were not recorded"
    return answer


def _line(event: Captured, inputs: dict[tuple[str, str], str]) -> str:
    if event.kind == "navigate":
        return f"action: navigate to {event.url.replace('{', '%7B').replace('}', '%7D')}"
    target = f"{_quote(event.name)} ({event.role})"
    if event.kind == "click":
        return f"action: click {target}"
    if event.kind == "confirm":
        return f"confirm: the user fills in {target} by hand (a secret is never recorded)"
    key = (event.role, event.name)
    if key not in inputs:
        inputs[key] = _unique(_slug(event.name), set(inputs.values()))
    return f"action: type {{{inputs[key]}}} into {target}"


def _quote(name: str) -> str:
    return '"' + name.replace("\\", "\\\\").replace('"', '\\"') + '"'


def _slug(name: str) -> str:
    plain = unicodedata.normalize("NFKD", name).encode("ascii", "ignore").decode("ascii")
    slug = re.sub(r"[^a-z0-9]+", "_", plain.lower()).strip("_")[:RECORDER_INPUT_NAME_CHARS].rstrip("_")
    if not slug:
        return "field"
    return f"field_{slug}" if slug[0].isdigit() else slug


def _unique(slug: str, taken: set[str]) -> str:
    name, n = slug, 2
    while name in taken:
        name, n = f"{slug}_{n}", n + 1
    return name
