"""``browser`` and ``browser_read``: thin adapters over the browser service and the page half.

Every answer that comes from a page is page content: untrusted, marked so, never an instruction.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from vmark.protocol.limits import (
    DEFAULT_TIMEOUT_MS,
    EXTRACT_MAX_CHARS,
    MAX_TIMEOUT_MS,
    MIN_TIMEOUT_MS,
    TIMEOUT_MS_RULE,
)

from ...browser import page_reads
from ...browser.act import ActArgumentError
from ...browser.act import act as page_act
from ...browser.asks import Ask, ask_for
from ...browser.console import clear_console, read_console
from ...browser.isolated import EvalContextLost, EvalError, EvalTimeout, execute_script
from ...browser.query import InvalidSelector
from ...browser.query import query as page_query
from ...browser.reader import UNTRUSTED
from ...browser.snapshot import RefError, read_snapshot
from ...browser.style import StyleArgumentError
from ...browser.style import style as page_style
from ...browser.tabs import BrowserTab
from ...protocol import browser_results
from ...protocol.errors import ArgumentError, BrowserError
from ...protocol.jsontypes import JSONObject

if TYPE_CHECKING:
    from ..context import RequestContext


def _timeout_ms(args: JSONObject) -> int:
    value = args.get("timeoutMs", DEFAULT_TIMEOUT_MS)
    if not MIN_TIMEOUT_MS <= value <= MAX_TIMEOUT_MS:
        raise ArgumentError(TIMEOUT_MS_RULE)
    return int(value)


def _page(tab: BrowserTab) -> browser_results.PageAnswer:
    """What marks an answer as the page's (it follows the page's own keys)."""
    return {"url": tab.url, "generation": tab.generation, "untrusted": UNTRUSTED}


# --- browser ------------------------------------------------------------------------------------
async def open_(ctx: RequestContext, args: JSONObject) -> browser_results.TabOpened:
    return await ctx.browser.open(ctx.connection, args["url"], _timeout_ms(args), args.get("profile"))


async def navigate(ctx: RequestContext, args: JSONObject) -> browser_results.Ticket:
    tab = ctx.browser.tab(args.get("tabId"), ai_only=True)
    return await ctx.browser.navigate(ctx.connection, tab, args["url"], _timeout_ms(args))


async def close(ctx: RequestContext, args: JSONObject) -> browser_results.TabClosed:
    return await ctx.browser.close(args["tabId"])


async def act(ctx: RequestContext, args: JSONObject) -> browser_results.Acted:
    browser = ctx.browser
    tab = await browser.readable(ctx.connection, args.get("tabId"))
    operation = args["operation"]
    ref, role, name = args.get("ref"), args.get("role"), args.get("name")
    _check_act_arguments(operation, args)
    if ref is not None:
        role, name = browser.ref_target(tab, ref)
    await browser.authorize(ctx.connection, tab, ask_for(operation, role, name, args), by_ref=ref is not None)
    popups_before = len(tab.events.popups)
    try:
        result = await page_act(
            tab.page,
            operation,
            ref=ref,
            role=None if ref else role,
            name=None if ref else name,
            text=args.get("text"),
            dy=args.get("dy"),
            key=args.get("key"),
            modifiers=args.get("modifiers"),
        )
    except ActArgumentError as exc:
        raise ArgumentError(f"browser.act: {exc}") from exc
    except RefError as exc:
        raise BrowserError("STALE_COMMAND", str(exc), ref=ref, generation=tab.generation) from exc
    mark: browser_results.ActedOnPage = {"url": tab.url, "generation": tab.generation, "untrusted": UNTRUSTED}
    if len(tab.events.popups) > popups_before:
        mark["popup"] = {"url": tab.events.popups[-1]}
    answer: browser_results.Acted = {**result, **mark}
    if not result["ok"]:
        reason = result.get("reason")
        refused: JSONObject = {**answer}
        raise BrowserError("ACT_REJECTED", f"{operation} refused: {reason}: {result.get('detail', '')}", **refused)
    return answer


def _check_act_arguments(operation: str, args: JSONObject) -> None:
    has_target = args.get("ref") is not None or args.get("role") is not None
    if args.get("ref") is not None and args.get("role") is not None:
        raise ArgumentError("browser.act: give either ref or role (+ name), not both")
    if args.get("name") is not None and args.get("role") is None:
        raise ArgumentError("browser.act: name goes with role")
    if operation in ("click", "type") and not has_target:
        raise ArgumentError(f"browser.act: {operation} needs a target: ref, or role + name")
    if operation == "type" and args.get("text") is None:
        raise ArgumentError("browser.act: type needs text")
    if operation == "scroll" and (args.get("dy") is None) == (args.get("ref") is None):
        raise ArgumentError("browser.act: scroll needs exactly one of ref or dy")
    if operation == "key" and not args.get("key"):
        raise ArgumentError("browser.act: key needs key (e.g. Enter)")


async def style(ctx: RequestContext, args: JSONObject) -> browser_results.Styled:
    browser = ctx.browser
    tab = await browser.readable(ctx.connection, args.get("tabId"))
    if (args.get("ref") is None) == (args.get("selector") is None) and args.get("injectCss") is None:
        raise ArgumentError("browser.style: give a target: ref or selector (or injectCss alone)")
    await browser.authorize(ctx.connection, tab, Ask("style"), by_ref=False)
    try:
        result = await page_style(
            tab.page,
            ref=args.get("ref"),
            selector=args.get("selector"),
            set=args.get("set"),
            add_classes=args.get("addClasses"),
            remove_classes=args.get("removeClasses"),
            inject_css=args.get("injectCss"),
        )
    except StyleArgumentError as exc:
        raise ArgumentError(f"browser.style: {exc}") from exc
    except RefError as exc:
        raise BrowserError("STALE_COMMAND", str(exc), generation=tab.generation) from exc
    return {**result, **_page(tab)}


async def execute_js(ctx: RequestContext, args: JSONObject) -> browser_results.Evaluated:
    browser = ctx.browser
    tab = await browser.readable(ctx.connection, args.get("tabId"))
    script = args["script"]
    await browser.authorize(ctx.connection, tab, Ask("eval", value=script), by_ref=False)
    try:
        result = await execute_script(tab.page, script)
    except EvalTimeout as exc:
        raise BrowserError("EVAL_TIMEOUT", detail={"indeterminate": True}) from exc
    except EvalContextLost as exc:
        raise BrowserError("EVAL_FAILED", f"The page navigated while the script ran: {exc}") from exc
    except EvalError as exc:
        raise BrowserError("EVAL_FAILED", f"The script failed: {exc}") from exc
    return {"result": result, **_page(tab)}


async def console_clear(ctx: RequestContext, args: JSONObject) -> browser_results.ConsoleRead:
    tab = ctx.browser.tab(args.get("tabId"), ai_only=True)
    return {**await clear_console(tab.page), **_page(tab)}


# --- browser_read ---------------------------------------------------------------------------------
async def read(ctx: RequestContext, args: JSONObject) -> browser_results.Snapshot:
    tab = await ctx.browser.readable(ctx.connection, args.get("tabId"))
    snapshot = await read_snapshot(tab.page)
    ctx.browser.remember_refs(tab, snapshot["snapshot"])
    return {**snapshot, **_page(tab)}


async def screenshot(ctx: RequestContext, args: JSONObject) -> browser_results.ScreenshotTaken:
    """The image and the line naming the page; the MCP server makes them an image block and its
    ``structuredContent`` (:class:`~vmark.protocol.browser_results.Screenshot`)."""
    tab = await ctx.browser.readable(ctx.connection, args.get("tabId"))
    return await page_reads.screenshot(tab)


async def query(ctx: RequestContext, args: JSONObject) -> browser_results.Queried:
    tab = await ctx.browser.readable(ctx.connection, args.get("tabId"))
    try:
        result = await page_query(tab.page, args["selector"], args.get("fields"))
    except InvalidSelector as exc:
        raise ArgumentError(f"browser_read.query: {exc}") from exc
    return {**result, **_page(tab)}


async def extract(ctx: RequestContext, args: JSONObject) -> browser_results.Extracted:
    tab = await ctx.browser.readable(ctx.connection, args.get("tabId"))
    return await page_reads.extract(tab, EXTRACT_MAX_CHARS)


async def console(ctx: RequestContext, args: JSONObject) -> browser_results.ConsoleRead:
    tab = ctx.browser.tab(args.get("tabId"), ai_only=True)
    return {**await read_console(tab.page), **_page(tab)}


async def wait(ctx: RequestContext, args: JSONObject) -> browser_results.Ticket:
    tab = ctx.browser.tab(args.get("tabId"), ai_only=True)
    return await ctx.browser.wait(tab, args.get("navigationId"), _timeout_ms(args))


async def wait_for(ctx: RequestContext, args: JSONObject) -> browser_results.Matched:
    browser = ctx.browser
    conditions = [k for k in ("ref", "role", "text", "urlContains") if args.get(k) is not None]
    if len(conditions) != 1:
        raise ArgumentError("browser_read.wait_for: give exactly one of ref, role (+ name), text, urlContains")
    if args.get("name") is not None and args.get("role") is None:
        raise ArgumentError("browser_read.wait_for: name goes with role")
    needle = args.get("urlContains")
    if needle is not None and ("?" in needle or "#" in needle):
        raise ArgumentError(
            "browser_read.wait_for: urlContains is matched against the URL without query and"
            " fragment, so it cannot contain ? or #"
        )
    tab = await browser.readable(ctx.connection, args.get("tabId"), standing=True)
    matched = await page_reads.wait_for(tab, args, _timeout_ms(args), browser.remember_refs)
    return {**matched, **_page(tab)}


ACTIONS = {
    "act": act,
    "open": open_,
    "navigate": navigate,
    "close": close,
    "style": style,
    "execute_js": execute_js,
    "console_clear": console_clear,
}
READ_ACTIONS = {
    "read": read,
    "screenshot": screenshot,
    "query": query,
    "extract": extract,
    "console": console,
    "wait": wait,
    "wait_for": wait_for,
}
