"""``browser.style``: restyle elements (dismiss an overlay, highlight a target).

The target is a ref or a CSS selector (every match); the operation exactly one of ``set``
(``{property: value}``, a trailing ``!important`` is honoured), ``addClasses``,
``removeClasses`` or ``injectCss`` (a constructed style sheet adopted by the top document; it
needs no target). Everything goes through the CSSOM from the isolated world, which a page's
Content-Security-Policy does not block the way it blocks ``style`` attributes and elements.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from vmark.browser.isolated import world_for
from vmark.browser.query import InvalidSelector
from vmark.browser.snapshot import ref_error
from vmark.protocol.browser_results import Restyled
from vmark.protocol.jsontypes import JSONObject

if TYPE_CHECKING:
    from playwright.async_api import Page


class StyleArgumentError(ValueError):
    """Not exactly one operation, or no target for one that needs it."""


async def style(
    page: Page,
    *,
    ref: str | None = None,
    selector: str | None = None,
    set: dict[str, str] | None = None,
    add_classes: list[str] | None = None,
    remove_classes: list[str] | None = None,
    inject_css: str | None = None,
) -> Restyled:
    """Apply one style operation; ``{count}`` = elements changed (``{count: 0, injected: True}``
    for ``inject_css``)."""
    operations = {"set": set, "addClasses": add_classes, "removeClasses": remove_classes, "injectCss": inject_css}
    chosen = {key: value for key, value in operations.items() if value is not None}
    if len(chosen) != 1:
        raise StyleArgumentError("give exactly one of set, addClasses, removeClasses, injectCss")
    if ref is not None and selector is not None:
        raise StyleArgumentError("give either ref or selector, not both")
    if inject_css is None and ref is None and selector is None:
        raise StyleArgumentError("this operation needs a ref or a selector")
    world = world_for(page)
    target: dict[str, str | None]
    if ref is not None:
        route = await world.route(ref)
        world, target = route.world, {"ref": route.ref}
    else:
        target = {"selector": selector}
    answer: JSONObject = await world.call("restyle", target, chosen)
    error = answer.get("error")
    if error == "invalid-selector":
        raise InvalidSelector(f"invalid selector {selector!r}: {answer['message']}")
    if isinstance(error, str) and error.startswith("ref-"):
        raise ref_error(str(ref), error.removeprefix("ref-"))
    restyled: Restyled = {"count": answer["count"]}
    if "injected" in answer:
        restyled["injected"] = answer["injected"]
    return restyled
