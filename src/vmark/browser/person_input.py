"""The person's input to a tab they view, replayed with real input events.

Mouse and wheel events use ``page.mouse`` at the point the person pointed at, scaled from the view they
pointed in (``width`` x ``height``) to the tab's viewport; keys are pressed as chords; typed text goes as
keystrokes, pasted text as one insertion (no key events). Every field is checked before anything reaches
the page.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import TYPE_CHECKING

from vmark.browser.failures import PlaywrightError, first_line
from vmark.protocol.errors import ArgumentError
from vmark.protocol.jsontypes import JSONObject
from vmark.protocol.limits import VIEW_MAX_TEXT_CHARS, VIEW_MAX_WHEEL_PX

if TYPE_CHECKING:
    from playwright.async_api import Page

MOUSE_BUTTONS = ("left", "middle", "right")
#: modifiers a key event may carry, as Playwright names them in a chord
MODIFIERS = {"ctrl": "Control", "alt": "Alt", "shift": "Shift", "meta": "Meta"}
#: a key name as the DOM gives it (``Enter``, ``ArrowLeft``, ``a``, ``F5``)
KEY_NAME = re.compile(r"[A-Za-z0-9]{1,24}|[^\sA-Za-z0-9]")
#: a viewport's width and height in CSS pixels
Size = tuple[float, float]


async def replay(page: Page, args: JSONObject, shown: Callable[[], Size | None]) -> None:
    """One input event (``kind``: mouse, wheel, key or text) on ``page``; ``shown``: the viewport the
    person's view shows now, if known (the latest frame's), else the page's own is asked."""
    kind = args.get("kind")
    try:
        if kind == "mouse":
            await _click(page, args, shown)
        elif kind == "wheel":
            await _wheel(page, args, shown)
        elif kind == "key":
            await page.keyboard.press(_chord(args))
        elif kind == "text" and args.get("paste"):
            await page.keyboard.insert_text(_text(args))  # a paste: text, no keystrokes
        elif kind == "text":
            await page.keyboard.type(_text(args))  # key events per character where a key makes it
        else:
            raise ArgumentError("kind must be 'mouse', 'key', 'wheel' or 'text'")
    except PlaywrightError as exc:
        raise ArgumentError(f"the input did not reach the page: {first_line(exc)}") from exc


async def _click(page: Page, args: JSONObject, shown: Callable[[], Size | None]) -> None:
    x, y = await _point(page, args, shown)
    button = args.get("button", "left")
    if button not in MOUSE_BUTTONS:
        raise ArgumentError(f"button must be one of {list(MOUSE_BUTTONS)}")
    count = args.get("clickCount", 1)
    if not isinstance(count, int) or isinstance(count, bool) or not 1 <= count <= 3:
        raise ArgumentError("clickCount must be an integer from 1 to 3")
    await page.mouse.click(x, y, button=button, click_count=count)


async def _wheel(page: Page, args: JSONObject, shown: Callable[[], Size | None]) -> None:
    x, y = await _point(page, args, shown)
    dx, dy = (_number(args, name, -VIEW_MAX_WHEEL_PX, VIEW_MAX_WHEEL_PX, 0.0) for name in ("dx", "dy"))
    await page.mouse.move(x, y)
    await page.mouse.wheel(dx, dy)


async def _point(page: Page, args: JSONObject, shown: Callable[[], Size | None]) -> Size:
    """``x, y`` in a view of ``width`` x ``height`` (what the person clicked), in viewport pixels."""
    width = _number(args, "width", 1.0, 100_000.0)
    height = _number(args, "height", 1.0, 100_000.0)
    x, y = _number(args, "x", 0.0, width), _number(args, "y", 0.0, height)
    vw, vh = shown() or await _viewport(page)
    return x * vw / width, y * vh / height


async def _viewport(page: Page) -> Size:
    size = page.viewport_size
    if size is not None:
        return float(size["width"]), float(size["height"])
    inner = await page.evaluate("[innerWidth, innerHeight]")
    return float(inner[0]), float(inner[1])


def _number(args: JSONObject, name: str, low: float, high: float, default: float | None = None) -> float:
    value = args.get(name, default)
    if not isinstance(value, int | float) or isinstance(value, bool) or not low <= value <= high:
        raise ArgumentError(f"argument {name!r} must be a number from {low:g} to {high:g}")
    return float(value)


def _chord(args: JSONObject) -> str:
    key = args.get("key")
    if not isinstance(key, str) or not KEY_NAME.fullmatch(key):
        raise ArgumentError("argument 'key' must be a key name such as 'Enter', 'ArrowLeft' or 'a'")
    modifiers = args.get("modifiers") or {}
    if not isinstance(modifiers, dict):
        raise ArgumentError("argument 'modifiers' must be an object such as {ctrl: true}")
    held = [name for flag, name in MODIFIERS.items() if modifiers.get(flag)]
    return "+".join([*held, key])


def _text(args: JSONObject) -> str:
    text = args.get("text")
    if not isinstance(text, str) or not 0 < len(text) <= VIEW_MAX_TEXT_CHARS:
        raise ArgumentError(f"argument 'text' must be a string of 1 to {VIEW_MAX_TEXT_CHARS} characters")
    return text
