"""The generic reader: find the article by text density, and drop the chrome around and inside it.

The page is first tidied (unlikely chrome by class/id/role removed, text loose in containers wrapped into
paragraphs, runs of ``<br>`` split into paragraphs). Every paragraph-like block of some length then scores
by its own substance (1, plus its commas, plus a point per 100 characters up to 3) and hands that score to
its ancestors, fading with distance; ancestors start from a bias by tag and by class/id words, and end
scaled down by their link density. The best ancestor (or a common ancestor of several close runners-up)
is the article's core; its siblings join when they score close enough or read like prose. The result is
cleaned again: headers and footers, share widgets, and lists, tables and divs that look like navigation
(link-dense, image-heavy or empty) go. If that leaves too little text, the pass reruns with fewer
filters, and the longest result wins.
"""

from __future__ import annotations

import copy
import re
from collections.abc import Iterator
from dataclasses import dataclass
from typing import cast

from vmark.protocol.limits import EXTRACT_WORK_BUDGET

from .dom import Element, body_of, class_and_id, raw_text, remove, text_of
from .measure import COMMAS, Measure, forget, measure
from .model import Article, Page

_UNLIKELY = re.compile(
    r"banner|breadcrumb|combx|comment|communit|cookie|disqus|extra|footer|gdpr|header|legend|menu|masthead|"
    r"newsletter|related|remark|replies|rss|shoutbox|sidebar|skyscraper|social|sponsor|supplement|"
    r"ad-break|agegate|pagination|pager|popup|promo|subscribe|yom-remote",
    re.IGNORECASE,
)
_RESCUE = re.compile(r"and|article|body|column|content|main|shadow|story|entry|post", re.IGNORECASE)
_POSITIVE = re.compile(
    r"article|body|content|entry|hentry|h-entry|main|page|pagination|post|text|blog|story|prose", re.IGNORECASE
)
_NEGATIVE = re.compile(
    r"-ad-|hidden|^hid$| hid$| hid |^hid |banner|combx|comment|com-|contact|footer|gdpr|masthead|media|meta|"
    r"outbrain|promo|related|scroll|share|shoutbox|sidebar|skyscraper|sponsor|shopping|tags|widget|nav|"
    r"cookie|newsletter|subscribe",
    re.IGNORECASE,
)
_BYLINE = re.compile(r"byline|author|dateline|writtenby|p-author", re.IGNORECASE)
_SHARE = re.compile(r"(\b|_)(share|sharedaddy)(\b|_)", re.IGNORECASE)
_UNLIKELY_ROLES = frozenset({"menu", "menubar", "complementary", "navigation", "alert", "alertdialog", "dialog"})
_SENTENCE_END = re.compile(r"\.( |$)")

# Tags whose presence makes a container "structured" rather than a paragraph of loose text.
_STRUCTURE = frozenset(
    {"address", "article", "aside", "blockquote", "details", "div", "dl", "fieldset", "figure", "footer", "form",
     "h1", "h2", "h3", "h4", "h5", "h6", "header", "hr", "main", "nav", "ol", "p", "pre", "section", "table",
     "ul", "img"}
)  # fmt: skip
_LOOSE_TEXT_HOSTS = ("div", "section", "article", "main", "body", "p", "center", "font", "td")
_SCORED = ("p", "pre", "td", "h2", "h3", "h4", "h5", "h6")
_TAG_BIAS = {
    "div": 5, "article": 5, "pre": 3, "td": 3, "blockquote": 3,
    "address": -3, "ol": -3, "ul": -3, "dl": -3, "dd": -3, "dt": -3, "li": -3, "form": -3,
    "h1": -5, "h2": -5, "h3": -5, "h4": -5, "h5": -5, "h6": -5, "th": -5,
}  # fmt: skip
_MIN_TEXT = 500
_EXACT_UP_TO = 2000  # elements with less text get their exact length (cheap); larger ones the measured one
_WIDEN_LEVELS = 8
_RUNNERS_UP = 5


@dataclass(frozen=True)
class _Flags:
    strip_unlikely: bool = True
    weigh_classes: bool = True
    clean_conditionally: bool = True


_ATTEMPTS = (_Flags(), _Flags(strip_unlikely=False), _Flags(False, False), _Flags(False, False, False))


def read(page: Page) -> Article:
    """The article of ``page`` (never None: at worst the whole body)."""
    body = body_of(page.root)
    size = sum(1 for _ in body.iter())
    attempts = _ATTEMPTS[: max(1, EXTRACT_WORK_BUDGET // max(size, 1))]  # a huge page gets fewer retries
    best: tuple[int, Element, str | None] | None = None
    for flags in attempts:
        grab = _Grab(flags, page.title)
        content = grab.run(copy.deepcopy(body))
        length = len(text_of(content))
        if best is None or length > best[0]:
            best = (length, content, grab.byline)
        if length >= _MIN_TEXT:
            break
    assert best is not None
    return Article(best[1], byline=page.byline or best[2])


def _class_weight(el: Element) -> int:
    weight = 0
    for value in (el.get("class"), el.get("id")):
        if value:
            if _NEGATIVE.search(value):
                weight -= 25
            if _POSITIVE.search(value):
                weight += 25
    return weight


def _has_ancestor(el: Element, tags: tuple[str, ...], limit: int = 8) -> bool:
    for depth, ancestor in enumerate(el.iterancestors()):
        if depth >= limit:
            return False
        if ancestor.tag in tags:
            return True
    return False


def _similar(a: str, b: str) -> bool:
    """Whether heading ``a`` repeats title ``b`` (most of its words)."""
    wa = set(re.findall(r"\w+", a.lower()))
    wb = set(re.findall(r"\w+", b.lower()))
    if not wa or not wb:
        return False
    return len(wa & wb) / max(len(wa), len(wb)) >= 0.75


def _is_structured(el: Element) -> bool:
    return any(isinstance(d.tag, str) and d.tag in _STRUCTURE for d in el.iterdescendants())


class _Grab:
    def __init__(self, flags: _Flags, title: str | None) -> None:
        self.flags = flags
        self.title = title
        self.byline: str | None = None
        self.scores: dict[Element, float] = {}
        self.measures: dict[Element, Measure] = {}

    def run(self, body: Element) -> Element:
        self._tidy(body)
        self._paragraphs(body)
        top = self._top_candidate(body)
        article = self._assemble(top, body)
        self._clean(article)
        return article

    # -- preparation -----------------------------------------------------------------------------------------
    def _tidy(self, body: Element) -> None:
        title_seen = False
        doomed: list[Element] = []
        for el in body.iterdescendants():
            if not isinstance(el.tag, str):
                continue
            marks = class_and_id(el)
            if self.byline is None and self._is_byline(el, marks):
                self.byline = text_of(el)
                doomed.append(el)
                continue
            if not title_seen and el.tag in ("h1", "h2") and self.title and _similar(text_of(el), self.title):
                title_seen = True
                doomed.append(el)
                continue
            if self.flags.strip_unlikely and self._is_unlikely(el, marks):
                doomed.append(el)
                continue
            if self._is_empty_box(el):
                doomed.append(el)
        for el in doomed:
            remove(el)

    @staticmethod
    def _is_empty_box(el: Element) -> bool:
        if el.tag not in ("div", "section", "header", "h1", "h2", "h3", "h4", "h5", "h6"):
            return False
        if any(not text.isspace() for text in cast("Iterator[str]", el.itertext())):  # stops at the first word
            return False
        return next(el.iter("img", "picture", "figure"), None) is None

    @staticmethod
    def _is_byline(el: Element, marks: str) -> bool:
        if el.get("rel") == "author" or "author" in (el.get("itemprop") or "") or _BYLINE.search(marks):
            text = text_of(el)
            return 0 < len(text) < 100
        return False

    @staticmethod
    def _is_unlikely(el: Element, marks: str) -> bool:
        if el.get("role") in _UNLIKELY_ROLES:
            return True
        if el.tag in ("body", "a", "main") or el.get("role") == "main":
            return False
        if not marks or not _UNLIKELY.search(marks) or _RESCUE.search(marks):
            return False
        return not _has_ancestor(el, ("table", "code"))

    def _paragraphs(self, body: Element) -> None:
        """Give loose text its paragraphs: text-only divs become ``p``, mixed ones get their runs wrapped."""
        for el in list(body.iter(*_LOOSE_TEXT_HOSTS)):
            if el.getparent() is None and el is not body:
                continue
            splits = _has_break_run(el)
            if el.tag in ("div", "section") and not splits and not _is_structured(el):
                el.tag = "p"
            elif splits or el.tag in ("div", "section", "article", "main", "body"):
                if el.tag == "p":
                    el.tag = "div"
                _wrap_runs(el)

    # -- scoring -----------------------------------------------------------------------------------------------
    def _candidate(self, el: Element) -> float:
        if el not in self.scores:
            base = float(_TAG_BIAS.get(el.tag, 0))
            if self.flags.weigh_classes:
                base += _class_weight(el)
            self.scores[el] = base
        return self.scores[el]

    def _measure(self, el: Element) -> Measure:
        return self.measures.get(el) or Measure()

    def _length(self, el: Element) -> int:
        """The length of the element's collapsed text: exact for small elements, measured for large ones."""
        measured = self._measure(el).chars
        return len(text_of(el)) if measured <= _EXACT_UP_TO else measured

    def _top_candidate(self, body: Element) -> Element:
        self.measures = measure(body)
        for el in body.iter(*_SCORED, "li"):
            m = self._measure(el)
            if el.tag == "li":
                # cheap checks first: a list of links, or one too short to score whatever its own words
                if m.link_density > 0.5 or m.chars < 15:
                    continue
                text = _own_text(el)
                length, commas = len(text), len(COMMAS.findall(text))
            else:
                length, commas = self._length(el), m.commas
            if length < 25:
                continue
            ancestors = list(el.iterancestors())[:5]
            points = 1 + commas + min(length // 100, 3)
            for level, ancestor in enumerate(ancestors):
                if ancestor.getparent() is None:  # <html>
                    break
                self._candidate(ancestor)
                divider = 1 if level == 0 else 2 if level == 1 else level * 3
                self.scores[ancestor] += points / divider
        for el in self.scores:
            self.scores[el] *= 1 - self._measure(el).link_density
        ranked = sorted(self.scores, key=self.scores.__getitem__, reverse=True)
        if not ranked or ranked[0] is body:
            return body
        top = ranked[0]
        top = self._common_ancestor(top, ranked[1 : _RUNNERS_UP + 1])
        top = self._climb(top, body)
        while top is not body:
            parent = top.getparent()
            if parent is None or parent is body or len([c for c in parent if isinstance(c.tag, str)]) != 1:
                break
            top = parent
        return top

    def _common_ancestor(self, top: Element, others: list[Element]) -> Element:
        """When several runners-up score close to the top and share one of its ancestors, the article is that."""
        close = [el for el in others if self.scores[el] >= 0.75 * self.scores[top]]
        if len(close) < 3:
            return top
        for ancestor in top.iterancestors():
            if ancestor.tag in ("body", "html"):
                break
            if sum(1 for el in close if ancestor in set(el.iterancestors())) >= 3:
                return ancestor
        return top

    def _climb(self, top: Element, body: Element) -> Element:
        """Move up while the parents keep scoring well (the article split into scored sections)."""
        last = self.scores.get(top, 0.0)
        floor = last / 3
        parent = top.getparent()
        while parent is not None and parent is not body:
            if parent not in self.scores:
                parent = parent.getparent()
                continue
            score = self.scores[parent]
            if score < floor:
                break
            if score > last:
                return parent
            last = score
            parent = parent.getparent()
        return top

    # -- assembly ------------------------------------------------------------------------------------------------
    def _members(self, top: Element) -> list[Element]:
        """The top candidate and the siblings that join it, in document order."""
        parent = top.getparent()
        if parent is None:
            return [top]
        top_score = self.scores.get(top, 0.0)
        threshold = max(10.0, top_score * 0.2)
        top_class = top.get("class") or ""
        return [
            sibling
            for sibling in parent
            if isinstance(sibling.tag, str)
            and (sibling is top or self._joins(sibling, threshold, top_score, top_class))
        ]

    def _widen(self, top: Element, body: Element) -> list[Element]:
        """The article's blocks. When they are too short to be an article while their container holds much
        more prose (a page cut into many small boxes), the container is taken instead."""
        members = self._members(top)
        length = sum(self._length(m) for m in members)
        for _ in range(_WIDEN_LEVELS):
            parent = top.getparent()
            if length >= _MIN_TEXT or parent is None or parent is body:
                break
            parent_length = self._length(parent)
            if parent_length < 1.5 * length or self._measure(parent).link_density > 0.33:
                break
            top = parent
            members = self._members(top)
            length = sum(self._length(m) for m in members)
        return members

    def _assemble(self, top: Element, body: Element) -> Element:
        article = body.makeelement("div", {})
        if top is body or top.getparent() is None:
            for child in list(top):
                article.append(child)
            return article
        for member in self._widen(top, body):
            member.tail = None
            article.append(member)
        return article

    def _joins(self, sibling: Element, threshold: float, top_score: float, top_class: str) -> bool:
        same_kind = bool(top_class) and sibling.get("class") == top_class
        bonus = top_score * 0.2 if same_kind else 0.0
        if sibling in self.scores and self.scores[sibling] + bonus >= threshold:
            return True
        # a sibling of the top's own kind whose paragraphs sit too deep to have scored it: judge it as prose
        if sibling.tag != "p" and not same_kind:
            return False
        length = self._length(sibling)
        density = self._measure(sibling).link_density
        if length > 80:
            return density < 0.25
        return length > 0 and density == 0 and _SENTENCE_END.search(text_of(sibling)) is not None

    # -- cleaning --------------------------------------------------------------------------------------------------
    def _clean(self, article: Element) -> None:
        for el in list(article.iter("footer", "aside", "nav", "form", "fieldset", "label")):
            remove(el)
        for el in list(article.iterdescendants()):
            if not isinstance(el.tag, str) or el.getparent() is None:
                continue
            shared = _SHARE.search(class_and_id(el)) is not None and len(text_of(el)) < 500
            if shared or (self.flags.weigh_classes and el.tag in ("h1", "h2") and _class_weight(el) < 0):
                remove(el)
        if self.flags.clean_conditionally:
            self.measures = measure(article)
            for el in reversed(list(article.iter("table", "ul", "ol", "div", "section"))):
                if el is not article and self._looks_like_chrome(el):
                    forget(self.measures, el, article)
                    remove(el)
        for el in list(article.iter("p")):
            if not text_of(el) and next(el.iter("img", "picture"), None) is None:
                remove(el)
        for table in list(article.iter("table")):
            _unwrap_single_cell(table)

    def _looks_like_chrome(self, el: Element) -> bool:
        if _is_data_table(el) or _has_ancestor(el, ("code", "pre"), limit=64) or _in_data_table(el):
            return False
        weight = _class_weight(el) if self.flags.weigh_classes else 0
        # lists only score through their items' words (their tag bias is not a verdict on them)
        if weight + (0.0 if el.tag in ("ul", "ol") else self.scores.get(el, 0.0)) < 0:
            return True
        m = self._measure(el)
        if m.commas >= 10:
            return False
        length = self._length(el)
        is_list = el.tag in ("ul", "ol") or _mostly_list(el, m)
        paragraphs, images, items, controls = m.paragraphs, m.images, m.items - 100, m.inputs
        heading_density = m.heading_chars / m.chars if m.chars else 0.0
        density = m.link_density
        in_figure = _has_ancestor(el, ("figure",), limit=64)
        if m.code_blocks and density < 0.5:
            return False  # a short code sample is still content
        if images > 1 and paragraphs / images < 0.5 and not in_figure:
            return True
        if not is_list and items > paragraphs:
            return True
        if controls > paragraphs / 3:
            return True
        if not is_list and heading_density < 0.9 and length < 25 and (images == 0 or images > 2) and not in_figure:
            return True
        if not is_list and weight < 25 and density > 0.2:
            return True
        return weight >= 25 and density > 0.5


def _own_text(el: Element) -> str:
    """The text of ``el`` outside its block descendants (a list item's words, not its sub-lists')."""
    parts = [el.text or ""]
    for child in el:
        if isinstance(child.tag, str) and child.tag not in _STRUCTURE and child.tag != "li":
            parts.append(_own_text(child) if _is_structured(child) else raw_text(child))
        parts.append(child.tail or "")
    return re.sub(r"\s+", " ", "".join(parts)).strip()


def _mostly_list(el: Element, m: Measure) -> bool:
    listed = m.list_chars - (m.chars if el.tag in ("ul", "ol") else 0)
    return m.chars > 0 and listed / m.chars > 0.9


def _is_data_table(el: Element) -> bool:
    if el.tag != "table":
        return False
    if el.get("role") == "presentation" or el.get("datatable") == "0":
        return False
    if el.get("summary") or el.find("caption") is not None:
        return True
    if next(el.iter("thead", "tfoot", "th", "colgroup"), None) is not None:
        return True
    if next(el.iterdescendants("table"), None) is not None:
        return False
    rows = list(el.iter("tr"))
    columns = max((len([c for c in row if c.tag in ("td", "th")]) for row in rows), default=0)
    return len(rows) >= 10 or columns > 4 or len(rows) * columns > 10


def _in_data_table(el: Element) -> bool:
    return any(a.tag == "table" and _is_data_table(a) for a in el.iterancestors("table"))


def _unwrap_single_cell(table: Element) -> None:
    rows = list(table.iter("tr"))
    if len(rows) != 1 or next(table.iterdescendants("table"), None) is not None:
        return
    cells = [c for c in rows[0] if c.tag in ("td", "th")]
    if len(cells) != 1:
        return
    cell = cells[0]
    cell.tag = "div"
    cell.attrib.clear()
    cell.tail = table.tail
    parent = table.getparent()
    if parent is not None:
        parent.replace(table, cell)


def _is_break(node: Element) -> bool:
    return isinstance(node.tag, str) and node.tag == "br"


def _has_break_run(el: Element) -> bool:
    """Whether ``el`` has two ``<br>`` children in a row (only whitespace between): a paragraph break."""
    previous_break = False
    for child in el:
        is_break = _is_break(child)
        if is_break and previous_break:
            return True
        previous_break = is_break and not (child.tail or "").strip()
    return False


def _wrap_runs(el: Element) -> None:
    """Wrap runs of text and inline children of ``el`` into paragraphs; runs of ``<br>`` end a paragraph."""
    nodes: list[Element | str] = []
    if el.text:
        nodes.append(el.text)
    for child in el:
        nodes.append(child)
        if child.tail:
            nodes.append(child.tail)
        child.tail = None
    el.text = None
    for child in list(el):
        el.remove(child)
    run: list[Element | str] = []

    def flush() -> None:
        while run and isinstance(run[-1], Element) and _is_break(run[-1]):
            run.pop()
        if not any(isinstance(n, Element) or n.strip() for n in run):
            run.clear()
            return
        p = el.makeelement("p", {})
        for node in run:
            _append(p, node)
        el.append(p)
        run.clear()

    breaks = 0
    for node in nodes:
        if isinstance(node, str):
            if node.strip():
                breaks = 0
            run.append(node)
            continue
        if _is_break(node):
            breaks += 1
            if breaks >= 2:
                flush()
                continue
            run.append(node)
            continue
        breaks = 0
        if node.tag in _STRUCTURE and node.tag != "img":
            flush()
            el.append(node)
        else:
            run.append(node)
    flush()


def _append(parent: Element, node: Element | str) -> None:
    if isinstance(node, str):
        if len(parent):
            last = parent[-1]
            last.tail = (last.tail or "") + node
        else:
            parent.text = (parent.text or "") + node
    else:
        parent.append(node)
