"""``browser.act``: click, type, scroll and key on a page, verified before acting.

The target (a ref, or role + exact accessible name) is located and checked in the isolated
world (``js/act.js``): upload inputs are never touched, it must be visibly rendered, enabled
(not disabled, ``aria-disabled``, ``pointer-events: none`` or inert), scrolled into the viewport
and not covered at the click point; several visible matches are refused as ``ambiguous`` with
their refs as ``candidates``. Only then does the driver act, with real input where Chromium
allows it: the answer's ``input`` says which.

- ``"trusted"``: CDP input events (``page.mouse`` / ``page.keyboard``), ``isTrusted`` in the page;
- ``"synthetic"``: DOM events or calls from the isolated world: choosing a ``<select>`` option
  (the same events Playwright's ``select_option`` dispatches) and scrolling to a ref;
- ``"none"``: refused before anything was sent.

Every answer has ``ok``, ``matchedTotal``, ``matchedVisible``, ``input`` and the target's
``ref`` once one element was chosen; a refusal adds ``reason`` (covered, ambiguous with
``candidates``, hidden, offscreen, disabled, upload, rejected-value, no-such-option, not-found,
not-editable) and ``detail``; ``key`` adds ``defaultAction`` (submit, focus-move, navigation,
none). A ref that does not belong to the current view raises
:class:`vmark.browser.snapshot.RefError` instead. Targets in cross-origin frames are verified in
the frame's world and then, frame by frame, in the parents' (visible part, hit test).
"""

from __future__ import annotations

import asyncio
import time
from typing import TYPE_CHECKING, Any, Literal, TypedDict

from vmark.browser.isolated import EvalContextLost, EvalError, IsolatedWorld, Route, world_for
from vmark.browser.snapshot import ref_error
from vmark.protocol.browser_results import ActDone
from vmark.protocol.jsontypes import JSONObject
from vmark.protocol.limits import FIELD_VALUE_SHOWN_CHARS, MAX_FRAME_DEPTH

if TYPE_CHECKING:
    from playwright.async_api import Page, Request

Operation = Literal["click", "type", "scroll", "key"]
#: what input reached the page (see above)
Input = Literal["trusted", "synthetic", "none"]


class Target(TypedDict, total=False):
    """An act's target: a ref, or a role and an exact accessible name."""

    ref: str
    role: str
    name: str


#: texts longer than this are inserted in one input event instead of typed key by key
TYPE_KEYS_LIMIT = 1000
_MODIFIERS = (("ctrl", "Control"), ("alt", "Alt"), ("shift", "Shift"), ("meta", "Meta"))


class ActArgumentError(ValueError):
    """The arguments do not describe an act (missing target, text, key or delta)."""


async def act(
    page: Page,
    operation: Operation,
    *,
    ref: str | None = None,
    role: str | None = None,
    name: str | None = None,
    text: str | None = None,
    dy: float | None = None,
    key: str | None = None,
    modifiers: dict[str, bool] | None = None,
) -> ActDone:
    """Perform one verified act; see the module docstring for the answer."""
    target = _target(ref, role, name)
    world = world_for(page)
    if operation == "click":
        return await _click(page, world, _required(target, "click"))
    if operation == "type":
        if text is None:
            raise ActArgumentError("type needs text")
        return await _type(page, world, _required(target, "type"), text)
    if operation == "scroll":
        return await _scroll(page, world, target, dy)
    if operation == "key":
        if not key:
            raise ActArgumentError("key needs a key, e.g. Enter")
        return await _key(page, world, target, key, modifiers or {})
    raise ActArgumentError(f"unknown operation {operation!r}")


def _target(ref: str | None, role: str | None, name: str | None) -> Target | None:
    if ref is not None and role is not None:
        raise ActArgumentError("give either ref or role + name, not both")
    if ref is not None:
        return {"ref": ref}
    if role is not None:
        return {"role": role, "name": name or ""}
    if name is not None:
        raise ActArgumentError("name needs a role")
    return None


def _required(target: Target | None, operation: str) -> Target:
    if target is None:
        raise ActArgumentError(f"{operation} needs a ref or a role + name")
    return target


async def _locate(world: IsolatedWorld, target: Target, operation: str) -> tuple[JSONObject, Route | None]:
    """Find and verify the target: (the verification with top-level x/y, as the page's script answered it; the
    target's route, None when no single element was chosen)."""
    if "ref" in target:
        route = await world.route(str(target["ref"]))
        return await _prepare(route, str(target["ref"]), operation), route
    total, visible, first = await _find(world, str(target["role"]), str(target["name"]), "", 0)
    counts = {"matchedTotal": total, "matchedVisible": len(visible)}
    if not total:
        return {"ok": False, "reason": "not-found", "detail": "no element with this role and name", **counts}, None
    if len(visible) > 1:
        detail = f"{len(visible)} visible elements share this role and name"
        return {"ok": False, "reason": "ambiguous", "detail": detail, "candidates": visible, **counts}, None
    # one visible match, or only hidden ones: the verification says why those cannot be used
    chosen = visible[0] if visible else str(first)
    route = await world.route(chosen)
    prepared = await _prepare(route, chosen, operation)
    return {**prepared, **counts}, route


async def _find(
    world: IsolatedWorld, role: str, name: str, prefix: str, depth: int
) -> tuple[int, list[str], str | None]:
    """Matches of role + name in a world and its cross-origin frames: (total, visible refs, first ref)."""
    found = await world.call("actFind", role, name)
    total = int(found["total"])
    visible = [prefix + ref for ref in found["visible"]]
    first = prefix + found["first"] if found["first"] else None
    if found["frames"] and depth < MAX_FRAME_DEPTH:
        entered = await world.enter_frames(found["frames"])
        for index in found["frames"]:
            child = entered.get(index)
            if child is None:
                continue
            try:
                inner_total, inner_visible, inner_first = await _find(child, role, name, f"{prefix}f{index}", depth + 1)
            except EvalError:
                world.forget_frame(index)
                continue
            total += inner_total
            visible += inner_visible
            first = first or inner_first
    return total, visible, first


async def _prepare(route: Route, ref: str, operation: str) -> JSONObject:
    """Verify the element of a ref in its own world, then its frames' part in their parents'."""
    try:
        prepared: JSONObject = await route.world.call("actPrepare", route.ref, operation)
    except EvalError:
        raise ref_error(ref, "gone") from None
    reason = str(prepared.get("reason", ""))
    if reason.startswith("ref-"):
        raise ref_error(ref, reason.removeprefix("ref-"))
    prepared["ref"] = route.prefix + prepared["ref"]
    if not prepared["ok"] or not route.path:
        return prepared
    hit_test = operation in ("click", "type")
    x, y = prepared["x"], prepared["y"]
    for parent, index in reversed(route.path):
        point = await parent.call("framePoint", index, x, y, hit_test)
        if not point["ok"]:
            return {**prepared, "ok": False, "reason": point["reason"], "detail": point["detail"]}
        x, y = point["x"], point["y"]
    return {**prepared, "x": x, "y": y}


def _answer(prepared: JSONObject, input_kind: Input, default_action: str | None = None) -> ActDone:
    answer: ActDone = {
        "ok": bool(prepared["ok"]),
        "matchedTotal": prepared["matchedTotal"],
        "matchedVisible": prepared["matchedVisible"],
        "input": input_kind if prepared["ok"] else "none",
    }
    if prepared.get("reason") is not None:
        answer["reason"] = prepared["reason"]
    if prepared.get("detail") is not None:
        answer["detail"] = prepared["detail"]
    if prepared.get("candidates") is not None:
        answer["candidates"] = prepared["candidates"]
    if prepared.get("ref"):
        answer["ref"] = prepared["ref"]
    if default_action is not None:
        answer["defaultAction"] = default_action
    return answer


def _refuse(prepared: JSONObject, reason: str, detail: str, input_kind: Input) -> ActDone:
    """A refusal after the checks passed (``input_kind``: what was already sent)."""
    answer = _answer({**prepared, "ok": False, "reason": reason, "detail": detail}, "none")
    answer["input"] = input_kind
    return answer


async def _click(page: Page, world: IsolatedWorld, target: Target) -> ActDone:
    prepared, _route = await _locate(world, target, "click")
    if prepared["ok"]:
        await page.mouse.click(prepared["x"], prepared["y"])
    return _answer(prepared, "trusted")


async def _type(page: Page, world: IsolatedWorld, target: Target, text: str) -> ActDone:
    prepared, route = await _locate(world, target, "type")
    if not prepared["ok"] or route is None:
        return _answer(prepared, "none")
    ref = route.ref
    field = route.world
    if prepared["kind"] == "select":
        chosen = await field.call("selectOption", ref, text)
        if not chosen["ok"]:
            return _refuse(prepared, chosen["reason"], chosen.get("detail", ""), "none")
        return _answer(prepared, "synthetic")
    # A click focuses the field the way a person would (and lands where the checks looked).
    await page.mouse.click(prepared["x"], prepared["y"])
    if not await field.call("focus", ref):
        return _refuse(prepared, "disabled", "the field does not take focus", "trusted")
    await page.keyboard.press("ControlOrMeta+A")
    if not text:
        await page.keyboard.press("Delete")
    elif "\n" in text or len(text) > TYPE_KEYS_LIMIT:
        await page.keyboard.insert_text(text)
    else:
        await page.keyboard.type(text)
    value = await field.call("fieldValue", ref)
    if _field_text(value, prepared["kind"]) != _field_text(text, prepared["kind"]):
        shown = str(value)[:FIELD_VALUE_SHOWN_CHARS]
        return _refuse(prepared, "rejected-value", f"the field holds {shown!r}, not the text typed", "trusted")
    return _answer(prepared, "trusted")


def _field_text(value: Any, kind: str) -> str:
    text = "" if value is None else str(value)
    if kind == "editable":
        # innerText of an editing host: non-breaking spaces and a trailing line break are rendering
        return text.replace("\u00a0", " ").rstrip("\n")
    return text


async def _scroll(page: Page, world: IsolatedWorld, target: Target | None, dy: float | None) -> ActDone:
    if target is not None:
        if dy is not None:
            raise ActArgumentError("scroll takes either a target or dy")
        prepared, _route = await _locate(world, target, "scroll")
        return _answer(prepared, "synthetic")
    if dy is None:
        raise ActArgumentError("scroll needs a ref, a role + name, or dy")
    size = await world.evaluate("({w: innerWidth, h: innerHeight})")
    await page.mouse.move(size["w"] / 2, size["h"] / 2)
    await page.mouse.wheel(0, dy)
    return {"ok": True, "matchedTotal": 0, "matchedVisible": 0, "input": "trusted"}


def _chord(key: str, modifiers: dict[str, bool]) -> str:
    held = [playwright_name for flag, playwright_name in _MODIFIERS if modifiers.get(flag)]
    return "+".join([*held, key])


async def _key(
    page: Page, world: IsolatedWorld, target: Target | None, key: str, modifiers: dict[str, bool]
) -> ActDone:
    prepared: JSONObject = {"ok": True, "matchedTotal": 0, "matchedVisible": 0}
    focused = world
    if target is not None:
        prepared, route = await _locate(world, target, "key")
        if not prepared["ok"] or route is None:
            return _answer(prepared, "none")
        focused = route.world
        if not await focused.call("focus", route.ref):
            return _refuse(prepared, "disabled", "the target does not take focus", "none")
    armed = await focused.call("keyArm")
    documents = world.documents
    navigated = False

    def on_request(request: Request) -> None:
        nonlocal navigated
        if request.is_navigation_request() and request.frame == page.main_frame:
            navigated = True

    page.on("request", on_request)
    try:
        await page.keyboard.press(_chord(key, modifiers))
        # The renderer handles the key after press() returns: Enter in a form may submit a moment later.
        settle = time.monotonic() + KEY_SETTLE_SECONDS
        while True:
            try:
                after = await focused.call("keyResult")
            except EvalContextLost:
                after = {"submitted": False, "focusMoved": False}
            navigated = navigated or world.documents != documents
            waiting = key == "Enter" and armed.get("inForm") and not (navigated or after["submitted"])
            if not waiting or time.monotonic() >= settle:
                break
            await asyncio.sleep(0.05)
    finally:
        page.remove_listener("request", on_request)
    return _answer(prepared, "trusted", _default_action(key, armed, after, navigated))


#: how long a key act watches for the form submission an Enter may cause
KEY_SETTLE_SECONDS = 0.5


def _default_action(key: str, armed: JSONObject, after: JSONObject, navigated: bool) -> str:
    if after["submitted"] or (navigated and key == "Enter" and armed["inForm"]):
        return "submit"
    if navigated:
        return "navigation"
    if after["focusMoved"]:
        return "focus-move"
    return "none"
