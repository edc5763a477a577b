"""The backlinks scanner (``core/backlinks.py``): which lines of a file link to another, exactly."""

from __future__ import annotations

from vmark.core.backlinks import LineLink, link_target, links_to, wikilink_may_name

WS = "/ws"
TARGET = "/ws/notes/b.md"


def scan(text: str, source: str = "/ws/notes/a.md", target: str = TARGET, max_chars: int = 200) -> list[LineLink]:
    return links_to(text, source, target, max_chars)


def test_markdown_links_resolve_from_the_linking_files_folder() -> None:
    text = (
        "# A\n"
        "See [b](b.md) here.\n"  # beside it
        "  and [b again](./b.md#intro) with a heading  \n"
        "not a link: b.md\n"
        "![pic](b.md)\n"
        "[other](c.md) and [web](https://x.org/b.md) and [mail](mailto:b.md)\n"
        "[no suffix](b)\n"
        "[own heading](#b)\n"
    )
    assert scan(text) == [
        LineLink(2, "See [b](b.md) here."),
        LineLink(3, "and [b again](./b.md#intro) with a heading"),
        LineLink(5, "![pic](b.md)"),
        LineLink(7, "[no suffix](b)"),
    ]


def test_dot_dot_encoded_spaces_and_angle_brackets() -> None:
    target = "/ws/notes/my note.md"
    text = (
        "[up](../notes/my%20note.md)\n"
        "[angle](<../notes/my note.md#part>)\n"
        '[titled](my%20note.md "the title")\n'
        "[raw space](my note.md)\n"  # not a link in Markdown: a destination cannot hold a bare space
        "[elsewhere](../my%20note.md)\n"
    )
    assert scan(text, source="/ws/notes/sub/../x.md", target=target) == [
        LineLink(1, "[up](../notes/my%20note.md)"),
        LineLink(2, "[angle](<../notes/my note.md#part>)"),
        LineLink(3, '[titled](my%20note.md "the title")'),
    ]
    assert link_target("../my%20note.md", "/ws/notes/x.md") == "/ws/my note.md"


def test_a_link_outside_the_workspace_names_a_file_outside_it() -> None:
    assert link_target("../../outside/b.md", "/ws/notes/a.md") == "/outside/b.md"
    assert scan("[out](../../outside/b.md)\n[abs](/ws/notes/b.md)\n") == [LineLink(2, "[abs](/ws/notes/b.md)")]
    assert link_target("#only", "/ws/a.md") is None
    assert link_target("//host/b.md", "/ws/a.md") is None


def test_wikilinks_carry_their_names_for_the_page_to_resolve() -> None:
    text = (
        "[[b]]\n"
        "[[B|the bee]] and [[b#Intro]]\n"
        "[[notes/b.md]]\n"
        "[[other/b]]\n"  # a path suffix that is not this file's
        "[[bb]] [[#b]]\n"
        "[[b]] and [b](b.md)\n"  # a Markdown link names it for certain: no names to check
    )
    assert scan(text) == [
        LineLink(1, "[[b]]", ("b",)),
        LineLink(2, "[[B|the bee]] and [[b#Intro]]", ("B", "b")),
        LineLink(3, "[[notes/b.md]]", ("notes/b.md",)),
        LineLink(6, "[[b]] and [b](b.md)"),
    ]


def test_a_same_name_file_in_another_folder_is_matched_broadly() -> None:
    # /ws/other/b.md links [[b]]: the broad rule says it may name /ws/notes/b.md (the page's rule, nearest
    # first, resolves it to /ws/other/b.md itself and drops it); a relative link there names its own folder's.
    assert scan("[[b]]\n[b](b.md)\n", source="/ws/other/x.md", target=TARGET) == [LineLink(1, "[[b]]", ("b",))]
    assert wikilink_may_name("notes/B", TARGET)
    assert wikilink_may_name("b.MD", TARGET)
    assert not wikilink_may_name("tes/b", TARGET)  # a suffix at a folder boundary only
    assert not wikilink_may_name("b.txt", TARGET)
    assert not wikilink_may_name("  ", TARGET)


def test_text_is_trimmed_and_cut() -> None:
    line = "\t[b](b.md) " + "x" * 300
    assert scan(line, max_chars=20) == [LineLink(1, "[b](b.md) xxxxxxxxxx")]
    assert scan("no links at all\n") == []
    assert scan("") == []
