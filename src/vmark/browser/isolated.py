"""Isolated JavaScript worlds in a Playwright page: the page's DOM without the page's globals.

Everything VMark runs in a page runs here. A world is created through CDP
(``Page.createIsolatedWorld``) and evaluated with ``Runtime.callFunctionOn``; the page cannot
see it, patch it or call into it, so a page that redefines ``document.querySelector`` or
``JSON`` changes nothing for us. The main frame's world reaches same-origin child frames
through the DOM (``iframe.contentDocument``); a cross-origin frame gets a world of its own,
through the page's CDP session when Chromium runs the frame in the page's process, or through
the frame's own session when it runs out of process (a cross-site frame).

A world lives as long as its document: after a navigation CDP answers "Cannot find context"
and the next call creates a fresh world (and installs the runtime, ``js/*.js``, in it). Use one
world per page (:func:`world_for`): the ref numbering is shared by all the worlds of a page and
continues across its documents, so a ref is never reissued within a tab, and a ref from an
older document is refused instead of naming an element of the new one.

``execute_js`` scripts run in another world of their own (:func:`execute_script`): they share
the DOM but cannot reach the runtime or its refs.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import re
import weakref
from dataclasses import dataclass
from importlib.resources import files
from typing import TYPE_CHECKING, Any

from vmark.browser.failures import PlaywrightError
from vmark.protocol.limits import PAGE_EVAL_SECONDS, PAGE_SCRIPT_LIMITS

if TYPE_CHECKING:
    from playwright.async_api import CDPSession, Frame, Page

WORLD_NAME = "vmark"
#: execute_js scripts run in a world of their own: they cannot reach the runtime or its refs
SCRIPT_WORLD_NAME = "vmark-script"
_RUNTIME_FILES = ("runtime.js", "snapshot.js", "act.js", "query.js", "style.js")
OBJECT_GROUP = "vmark-handles"


class EvalError(Exception):
    """The evaluation failed in the page: a throw, a syntax error or a result JSON cannot encode."""

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message


class EvalContextLost(EvalError):
    """The document went away (a navigation) while the evaluation ran; it may have run partly."""


class EvalTimeout(Exception):
    """The world did not answer in time; the script may still have run (never retry blindly)."""

    indeterminate = True

    def __init__(self, seconds: float) -> None:
        super().__init__(f"the page did not answer within {seconds:g} s; the script may still have run")
        self.seconds = seconds


class _ContextGone(Exception):
    """CDP no longer knows the world (nothing ran): create a new one and retry."""


def js_source(name: str) -> str:
    """One of the runtime's scripts (``src/vmark/browser/js/``), as written: it reads ``LIMITS`` (see
    :func:`page_script`)."""
    return (files("vmark.browser") / "js" / name).read_text("utf-8")


def limits_prelude() -> str:
    """The declaration of ``LIMITS``, the bounds the page scripts apply, from ``protocol/limits.py`` (the
    scripts never repeat a number Python knows)."""
    return f"const LIMITS = Object.freeze({json.dumps(PAGE_SCRIPT_LIMITS, sort_keys=True)});"


def page_script(name: str) -> str:
    """A page script ready to run on its own: in a block of its own (``LIMITS`` is declared once per
    script, whatever else runs in the same world) with ``LIMITS`` declared first."""
    return f"{{\n{limits_prelude()}\n{js_source(name)}\n}}"


# The user's expression or function runs inside this wrapper: a function is called with the
# argument, a promise is awaited, and the result is JSON-encoded here (so "not JSON" is a typed
# failure naming the problem, never a silently mangled value).
_EVALUATE = """async function (__vmarkArg) {
  const __vmarkValue = (
%s
  );
  const __vmarkResult = typeof __vmarkValue === 'function' ? await __vmarkValue(__vmarkArg) : await __vmarkValue;
  if (__vmarkResult === undefined) return { undefined: true };
  let text;
  try {
    text = JSON.stringify(__vmarkResult, function (key, value) {
      const type = typeof value;
      if (type === 'function' || type === 'symbol') throw new TypeError('a ' + type + ' is not JSON');
      if (value && type === 'object' && typeof Node === 'function' && value instanceof Node) {
        throw new TypeError('a DOM node is not JSON');
      }
      return value;
    });
  } catch (error) {
    return { unencodable: String(error) };
  }
  if (text === undefined) return { unencodable: 'TypeError: the result is not JSON' };
  return { json: text };
}"""

_CALL = """async function (name, args, floor) {
  const V = globalThis.__vmark;
  if (floor > V.S.next) V.S.next = floor;
  const value = await V[name](...args);
  return { r: value === undefined ? null : value, n: V.S.next };
}"""

_CALL_OBJECTS = """function (name, args) {
  return globalThis.__vmark[name](...args);
}"""

_FRAME_REF = re.compile(r"f(\d+)([ef].*)")


@dataclass
class _World:
    context_id: int
    session: CDPSession


class _PageState:
    """What all the worlds of one page share: the ref numbering, the out-of-process frames' sessions."""

    def __init__(self) -> None:
        #: the next ref number: refs are never reissued in a tab, whichever world issues them
        self.next_ref = 1
        #: per frame: (the URL when asked, its own session or None when it runs in-process)
        self.frame_sessions: weakref.WeakKeyDictionary[Frame, tuple[str, CDPSession | None]] = (
            weakref.WeakKeyDictionary()
        )


@dataclass(frozen=True)
class Route:
    """Where a ref lives: the world that issued it, the ref as that world knows it, and the
    frames (parent world, frame index) leading there from the main frame."""

    world: IsolatedWorld
    ref: str
    path: tuple[tuple[IsolatedWorld, int], ...]

    @property
    def prefix(self) -> str:
        return "".join(f"f{index}" for _, index in self.path)


class IsolatedWorld:
    """The isolated world of a frame (the main frame by default), re-created for every new document.

    The main frame's world reaches same-origin child frames through the DOM; a cross-origin
    frame gets a world of its own (:meth:`frame_world`, through the page's CDP session, or the
    frame's own session when Chromium runs it out of process).
    """

    def __init__(
        self,
        page: Page,
        name: str = WORLD_NAME,
        *,
        runtime: bool = True,
        frame_id: str | None = None,
        session: CDPSession | None = None,
        state: _PageState | None = None,
    ) -> None:
        self.page = page
        self.frame_id = frame_id
        self._name = name
        self._runtime = runtime
        self._session = session
        self._world: _World | None = None
        self._lock = asyncio.Lock()
        self._state = state or _PageState()
        #: the worlds of the cross-origin frames met by the last walks, by frame index (prefix f<k>)
        self.frame_worlds: dict[int, IsolatedWorld] = {}
        #: how many documents this world has served (1 for the first); grows on each new world
        self.documents = 0

    async def session(self) -> CDPSession:
        if self._session is None:
            self._session = await self.page.context.new_cdp_session(self.page)
        return self._session

    async def _current(self) -> _World:
        async with self._lock:
            if self._world is None:
                session = await self.session()
                frame_id = self.frame_id
                if frame_id is None:
                    tree = await session.send("Page.getFrameTree")
                    frame_id = tree["frameTree"]["frame"]["id"]
                try:
                    created = await session.send(
                        "Page.createIsolatedWorld", {"frameId": frame_id, "worldName": self._name}
                    )
                except PlaywrightError as error:
                    raise EvalContextLost(f"no world for the frame: {error}") from None
                world = _World(created["executionContextId"], session)
                if self._runtime:
                    await self._install(world)
                # a new document: frame indexes start over in the new runtime
                self.frame_worlds.clear()
                self._world = world
                self.documents += 1
            return self._world

    async def _install(self, world: _World) -> None:
        # Chromium hands out the same world again for the same name and document: install once.
        # Frozen, so that a script sharing the world cannot swap the runtime's functions.
        scripts = "\n".join(js_source(name) for name in _RUNTIME_FILES)
        runtime = f"if (!globalThis.__vmark) {{\n{limits_prelude()}\n{scripts}\nObject.freeze(globalThis.__vmark);\n}}"
        await self._raw(world, "Runtime.evaluate", {"expression": runtime}, PAGE_EVAL_SECONDS)
        init = await self._raw(
            world,
            "Runtime.evaluate",
            {"expression": f"globalThis.__vmark.init({self._state.next_ref})", "returnByValue": True},
            PAGE_EVAL_SECONDS,
        )
        self._state.next_ref = max(self._state.next_ref, int(init["result"]["value"]))

    async def _raw(self, world: _World, method: str, params: dict[str, Any], timeout: float | None) -> Any:
        key = "contextId" if method == "Runtime.evaluate" else "executionContextId"
        message = {**params, key: world.context_id}
        try:
            if timeout is None:
                answer = await world.session.send(method, message)
            else:
                answer = await asyncio.wait_for(world.session.send(method, message), timeout)
        except TimeoutError:
            await self._terminate(world)
            raise EvalTimeout(timeout or 0.0) from None
        except PlaywrightError as error:
            text = str(error)
            if "Cannot find context with specified id" in text:
                raise _ContextGone from None
            if "Execution context was destroyed" in text or "navigated or closed" in text or "closed" in text:
                raise EvalContextLost("the page navigated while the script ran") from None
            raise EvalError(text) from None
        details = answer.get("exceptionDetails")
        if details:
            raise EvalError(_exception_text(details))
        return answer

    async def _terminate(self, world: _World) -> None:
        # A script stuck in a loop would block every later call: stop whatever runs now.
        with contextlib.suppress(TimeoutError, PlaywrightError):
            await asyncio.wait_for(world.session.send("Runtime.terminateExecution"), 2.0)

    async def _send(self, method: str, params: dict[str, Any], timeout: float | None) -> Any:
        for _attempt in range(3):
            world = self._world
            try:
                world = await self._current()
                return await self._raw(world, method, params, timeout)
            except _ContextGone:
                if self._world is world:
                    self._world = None
        raise EvalContextLost("the page keeps replacing its document")

    async def evaluate(self, source: str, arg: Any = None, *, timeout: float | None = PAGE_EVAL_SECONDS) -> Any:
        """Evaluate an expression or a function (called with ``arg``) and return its JSON value.

        ``undefined`` becomes None. Raises EvalError for a throw or a result that is not JSON,
        EvalTimeout (indeterminate) when the page did not answer within ``timeout`` seconds.
        """
        params = {
            "functionDeclaration": _EVALUATE % source,
            "arguments": [{"value": arg}],
            "awaitPromise": True,
            "returnByValue": True,
        }
        answer = await self._send("Runtime.callFunctionOn", params, timeout)
        value = answer["result"].get("value") or {}
        if "unencodable" in value:
            raise EvalError(f"the result is not JSON: {value['unencodable']}")
        if "json" in value:
            return json.loads(value["json"])
        return None

    async def call(self, name: str, *args: Any, timeout: float | None = PAGE_EVAL_SECONDS) -> Any:
        """Call one of the runtime's functions (``globalThis.__vmark[name]``) with JSON arguments."""
        params = {
            "functionDeclaration": _CALL,
            "arguments": [{"value": name}, {"value": list(args)}, {"value": self._state.next_ref}],
            "awaitPromise": True,
            "returnByValue": True,
        }
        answer = await self._send("Runtime.callFunctionOn", params, timeout)
        value = answer["result"]["value"]
        self._state.next_ref = max(self._state.next_ref, int(value["n"]))
        return value["r"]

    async def call_objects(self, name: str, *args: Any, group: str = OBJECT_GROUP) -> list[str]:
        """Call a runtime function returning an array of live objects: their CDP object ids.

        Valid until :meth:`release_objects` of the same group (or the document goes away).
        """
        params = {
            "functionDeclaration": _CALL_OBJECTS,
            "arguments": [{"value": name}, {"value": list(args)}],
            "objectGroup": group,
        }
        answer = await self._send("Runtime.callFunctionOn", params, PAGE_EVAL_SECONDS)
        array_id = answer["result"].get("objectId")
        if not array_id:
            return []
        session = await self.session()
        properties = await session.send("Runtime.getProperties", {"objectId": array_id, "ownProperties": True})
        ids: list[str] = []
        for entry in properties["result"]:
            if entry["name"].isdigit() and "objectId" in entry.get("value", {}):
                ids.append(entry["value"]["objectId"])
        return ids

    async def release_objects(self, group: str = OBJECT_GROUP) -> None:
        session = await self.session()
        with contextlib.suppress(PlaywrightError):
            await session.send("Runtime.releaseObjectGroup", {"objectGroup": group})

    async def enter_frames(self, indexes: list[int]) -> dict[int, IsolatedWorld | None]:
        """The worlds of the frames the last walk could not enter (``unenteredFrames``, whose
        indexes are ``indexes``, in order); None for a frame CDP cannot enter either."""
        if not indexes:
            return {}
        ids = await self.call_objects("unenteredFrames")
        session = await self.session()
        entered: dict[int, IsolatedWorld | None] = {}
        try:
            for index, object_id in zip(indexes, ids, strict=False):
                try:
                    node = await session.send("DOM.describeNode", {"objectId": object_id})
                except PlaywrightError:
                    entered[index] = None
                    continue
                frame_id = node["node"].get("frameId")
                entered[index] = await self._frame_world(index, frame_id) if frame_id else None
        finally:
            await self.release_objects()
        return entered

    async def _frame_world(self, index: int, frame_id: str) -> IsolatedWorld | None:
        known = self.frame_worlds.get(index)
        if known is not None and known.frame_id == frame_id:
            return known
        for session in [await self.session(), *await self._frame_sessions()]:
            child = IsolatedWorld(self.page, self._name, frame_id=frame_id, session=session, state=self._state)
            try:
                await child._current()
            except EvalError:
                continue
            self.frame_worlds[index] = child
            return child
        self.frame_worlds.pop(index, None)
        return None

    async def _frame_sessions(self) -> list[CDPSession]:
        """The CDP sessions of the page's out-of-process frames. Chromium refuses a session for
        a frame that runs in its parent's process; that answer is remembered until the frame
        shows another URL (a navigation can move a frame between processes)."""
        sessions: list[CDPSession] = []
        for frame in self.page.frames:
            if frame is self.page.main_frame:
                continue
            known = self._state.frame_sessions.get(frame)
            if known is None or (known[1] is None and known[0] != frame.url):
                try:
                    known = (frame.url, await self.page.context.new_cdp_session(frame))
                except PlaywrightError:
                    known = (frame.url, None)
                self._state.frame_sessions[frame] = known
            if known[1] is not None:
                sessions.append(known[1])
        return sessions

    def forget_frame(self, index: int) -> None:
        """Drop a frame's world that failed (it is entered afresh next time)."""
        self.frame_worlds.pop(index, None)

    async def route(self, ref: str) -> Route:
        """The world a ref belongs to (refs of cross-origin frames carry their frame's prefix)."""
        match = _FRAME_REF.fullmatch(ref)
        if match:
            index = int(match[1])
            child = self.frame_worlds.get(index)
            # the frame may have become same-origin since: then this world issued the ref
            if child is not None and await self.call("frameKind", index) == "cross":
                inner = await child.route(match[2])
                return Route(inner.world, inner.ref, ((self, index), *inner.path))
        return Route(self, ref, ())


def _exception_text(details: dict[str, Any]) -> str:
    exception = details.get("exception") or {}
    description = exception.get("description")
    if description:
        return str(description).split("\n    at ", 1)[0].strip()
    if "value" in exception:
        return f"Uncaught {exception['value']!r}"
    return str(details.get("text") or "the script failed")


_WORLDS: weakref.WeakKeyDictionary[Page, IsolatedWorld] = weakref.WeakKeyDictionary()


def world_for(page: Page) -> IsolatedWorld:
    """The page's one isolated world (created on first use)."""
    world = _WORLDS.get(page)
    if world is None:
        world = IsolatedWorld(page)
        _WORLDS[page] = world
    return world


_SCRIPT_WORLDS: weakref.WeakKeyDictionary[Page, IsolatedWorld] = weakref.WeakKeyDictionary()


async def execute_script(page: Page, script: str, *, timeout: float | None = PAGE_EVAL_SECONDS) -> Any:
    """``execute_js``: run ``script`` (an async function body) in the page's script world.

    The world shares the DOM but neither the page's globals nor VMark's runtime. Returns the
    JSON value (None for ``undefined``); EvalError / EvalTimeout as :meth:`IsolatedWorld.evaluate`.
    """
    world = _SCRIPT_WORLDS.get(page)
    if world is None:
        world = IsolatedWorld(page, SCRIPT_WORLD_NAME, runtime=False)
        _SCRIPT_WORLDS[page] = world
    return await world.evaluate("async () => {\n" + script + "\n}", timeout=timeout)
