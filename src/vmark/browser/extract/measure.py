"""Text measures of every element of a subtree, computed bottom-up in one pass.

The generic reader asks the same questions of many nested elements (how much text, how much of it in links,
how many paragraphs, images, list items); answering each from the element's whole subtree would cost the
subtree's size every time, quadratic on deep pages. Here each element's answer is its children's answers
plus its own text, and removing an element subtracts its answer from its ancestors'. Lengths count each text
node with its whitespace runs collapsed (whitespace-only nodes, the source's indentation, count nothing):
close to, not exactly, the length of the collapsed text.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from .dom import Element

COMMAS = re.compile("[,\u060c\ufe50\ufe10\ufe11\u2e41\u2e34\u2e32\uff0c\u3001]")
_WHITESPACE = re.compile(r"\s+")
_HEADINGS = frozenset({"h1", "h2", "h3", "h4", "h5", "h6"})


@dataclass(slots=True)
class Measure:
    chars: int = 0
    link_chars: float = 0.0  # characters inside links (in-page links count 0.3 each)
    commas: int = 0
    paragraphs: int = 0
    images: int = 0
    items: int = 0
    inputs: int = 0
    code_blocks: int = 0
    heading_chars: int = 0
    list_chars: int = 0  # characters inside lists, nested lists counted again

    def add(self, other: Measure, sign: int = 1) -> None:
        # spelled out: this runs once per element, and a loop over dataclasses.fields() costs 5x as much
        self.chars += sign * other.chars
        self.link_chars += sign * other.link_chars
        self.commas += sign * other.commas
        self.paragraphs += sign * other.paragraphs
        self.images += sign * other.images
        self.items += sign * other.items
        self.inputs += sign * other.inputs
        self.code_blocks += sign * other.code_blocks
        self.heading_chars += sign * other.heading_chars
        self.list_chars += sign * other.list_chars

    @property
    def link_density(self) -> float:
        return self.link_chars / self.chars if self.chars > 0 else 0.0


def _count_text(m: Measure, text: str | None) -> None:
    if text and not text.isspace():
        m.chars += len(_WHITESPACE.sub(" ", text))
        m.commas += len(COMMAS.findall(text))


def measure(root: Element) -> dict[Element, Measure]:
    """The measure of ``root`` and of every element below it."""
    measures: dict[Element, Measure] = {}
    # in reverse document order every element comes after all of its descendants, so each one is complete when
    # reached and can hand itself to its parent
    for el in reversed([el for el in root.iter() if isinstance(el.tag, str)]):
        m = measures.get(el)
        if m is None:
            m = measures[el] = Measure()
        _count_text(m, el.text)
        tag = el.tag
        if tag == "a":
            m.link_chars = m.chars * (0.3 if (el.get("href") or "").startswith("#") else 1.0)
        elif tag == "p":
            m.paragraphs += 1
        elif tag == "img":
            m.images += 1
        elif tag == "li":
            m.items += 1
        elif tag in ("input", "select", "textarea"):
            m.inputs += 1
        elif tag == "pre":
            m.code_blocks += 1
        elif tag in _HEADINGS:
            m.heading_chars += m.chars
        elif tag in ("ul", "ol"):
            m.list_chars += m.chars
        if el is root:
            break
        parent = el.getparent()
        if parent is None:
            continue
        above = measures.get(parent)
        if above is None:
            above = measures[parent] = Measure()
        above.add(m)
        _count_text(above, el.tail)
    return measures


def forget(measures: dict[Element, Measure], el: Element, root: Element) -> None:
    """Account for the removal of ``el`` (still attached) from the measures of its ancestors up to ``root``."""
    gone = measures.get(el)
    if gone is None:
        return
    for ancestor in el.iterancestors():
        above = measures.get(ancestor)
        if above is not None:
            above.add(gone, -1)
        if ancestor is root:
            break
