"""The workflow text: every step form, numbering and bullets, the front matter, {input} binding, every
limit, and parse errors that name their line."""

from __future__ import annotations

from typing import Any

import pytest

from vmark.browser.workflow import Step, WorkflowError, bind, parse
from vmark.protocol.limits import (
    MAX_WORKFLOW_INPUT_BYTES,
    MAX_WORKFLOW_INPUTS,
    MAX_WORKFLOW_SOURCE_BYTES,
    MAX_WORKFLOW_STEPS,
)

FRONT = "---\nsite: shop\ninputs: [email, name]\n---\n"


def one_step(line: str) -> Step:
    workflow = parse(FRONT + line + "\n")
    assert len(workflow.steps) == 1
    return workflow.steps[0]


@pytest.mark.parametrize(
    ("line", "expected"),
    [
        ('action: click "Sign in" (button)',
         {"kind": "click", "role": "button", "name": "Sign in", "value": None, "input": None, "write": True}),
        ('action: click "Say \\"hi\\" \\\\ now" (link)',
         {"kind": "click", "role": "link", "name": 'Say "hi" \\ now', "value": None, "input": None, "write": True}),
        ('action: type "hello world" into "Message" (textbox)',
         {"kind": "type", "role": "textbox", "name": "Message", "value": "hello world", "input": None,
          "write": True}),
        ('action: type {email} into "Email" (textbox)',
         {"kind": "type", "role": "textbox", "name": "Email", "value": "{email}", "input": "email", "write": True}),
        ('action: type "Dear {name}," into "Greeting" (textbox)',
         {"kind": "type", "role": "textbox", "name": "Greeting", "value": "Dear {name},", "input": None,
          "write": True}),
        ('action: type "" into "Search" (searchbox)',
         {"kind": "type", "role": "searchbox", "name": "Search", "value": "", "input": None, "write": True}),
        ("action: navigate to https://shop.example/login",
         {"kind": "navigate", "role": None, "name": None, "value": "https://shop.example/login", "input": None,
          "write": True}),
        ("action: navigate to https://shop.example/u/{name}?lang=en",
         {"kind": "navigate", "role": None, "name": None, "value": "https://shop.example/u/{name}?lang=en",
          "input": None, "write": True}),
        ("ACTION: Click \"Next\" ( button )",
         {"kind": "click", "role": "button", "name": "Next", "value": None, "input": None, "write": True}),
        ("extract: the order total",
         {"kind": "extract", "role": None, "name": None, "value": None, "input": None, "write": False}),
        ("goal: get to the invoices page",
         {"kind": "goal", "role": None, "name": None, "value": None, "input": None, "write": False}),
        ("confirm: enter the one-time code",
         {"kind": "confirm", "role": None, "name": None, "value": None, "input": None, "write": False}),
        ("api: GET /orders?limit=5",
         {"kind": "api", "role": None, "name": None, "value": None, "input": None, "write": False}),
        ("Scroll down until the totals show",
         {"kind": "prose", "role": None, "name": None, "value": None, "input": None, "write": False}),
        ("note: {anything} goes in prose",
         {"kind": "prose", "role": None, "name": None, "value": None, "input": None, "write": False}),
    ],
)
def test_every_step_form(line: str, expected: dict[str, Any]) -> None:
    step = one_step(line)
    assert {k: getattr(step, k) for k in expected} == expected
    assert (step.index, step.line, step.text) == (0, 5, line)


@pytest.mark.parametrize(
    ("written", "text"),
    [
        ("1. extract: a", "extract: a"),
        ("12) extract: a", "extract: a"),
        ("- extract: a", "extract: a"),
        ("* extract: a", "extract: a"),
        ("   3.   extract: a  ", "extract: a"),
        ("extract: a", "extract: a"),
        ("1.5 litres of prose", "1.5 litres of prose"),  # a number without a space is no numbering
        ("-not a bullet", "-not a bullet"),
    ],
)
def test_numbering_and_bullets_are_optional(written: str, text: str) -> None:
    assert one_step(written).text == text


def test_steps_are_numbered_from_zero_and_keep_their_lines() -> None:
    workflow = parse(
        "\n---\nsite: shop\ntrigger: every monday\ninputs: []\n---\n\n"
        "1. action: navigate to https://shop.example/\n\n"
        "2. goal: find the basket\n"
        "   \n"
        "- extract: the total\n"
    )
    assert (workflow.site, workflow.inputs, workflow.trigger) == ("shop", (), "every monday")
    assert [(s.index, s.line, s.kind) for s in workflow.steps] == [(0, 8, "navigate"), (1, 10, "goal"),
                                                                   (2, 12, "extract")]


@pytest.mark.parametrize(
    ("front", "site", "inputs", "trigger"),
    [
        ("site: a", "a", (), None),
        ("site: a b c\ntrigger: manual", "a b c", (), "manual"),
        ("inputs: [x]\nSite: s", "s", ("x",), None),
        ("site: s\ninputs: [ a ,b,  c_2 ]", "s", ("a", "b", "c_2"), None),
        ("site: s\n\ninputs: []", "s", (), None),
    ],
)
def test_front_matter(front: str, site: str, inputs: tuple[str, ...], trigger: str | None) -> None:
    workflow = parse(f"---\n{front}\n---\n")
    assert (workflow.site, workflow.inputs, workflow.trigger, workflow.steps) == (site, inputs, trigger, ())


@pytest.mark.parametrize(
    ("source", "message"),
    [
        ("", "line 1: the source is empty: a workflow starts with front matter between --- lines"),
        ("extract: x\n", "line 1: a workflow starts with front matter between --- lines (site: is required)"),
        ("\n\n---\nsite: s\n", "line 3: the front matter is not closed by a --- line"),
        ("---\ninputs: [a]\n---\n", "line 1: the front matter needs a site (site: <name>)"),
        ("---\nsite:\n---\n", "line 2: the front matter needs a site (site: <name>)"),
        ("---\nsite: s\nowner: me\n---\n", "line 3: unknown front matter key 'owner' (site, inputs, trigger)"),
        ("---\nsite: s\nsite: t\n---\n", "line 3: site is given twice"),
        ("---\nsite: s\njust words\n---\n", "line 3: front matter lines look like key: value"),
        ("---\nsite: s\ninputs: a, b\n---\n", "line 3: inputs are listed in brackets: inputs: [a, b]"),
        ("---\nsite: s\ninputs: [a, 2b]\n---\n", "line 3: '2b' is not an input name (letters, digits, _)"),
        ("---\nsite: s\ninputs: [a, ]\n---\n", "line 3: '' is not an input name (letters, digits, _)"),
        ("---\nsite: s\ninputs: [a, a]\n---\n", "line 3: an input is declared twice"),
        ("---\nsite: s\n---\nextract: x\naction: press \"OK\" (button)\n",
         'line 5: an action is click "<name>" (<role>), type "<text>" into "<name>" (<role>), type {input} into'
         ' "<name>" (<role>) or navigate to <url>'),
        ("---\nsite: s\n---\naction: click \"OK\"\n", None),
        ("---\nsite: s\n---\naction: click OK (button)\n", None),
        ("---\nsite: s\n---\naction: type {x y} into \"A\" (textbox)\n", None),
        ("---\nsite: s\n---\naction: navigate to\n", None),
        ("---\nsite: s\ninputs: [a]\n---\n\n\naction: type {b} into \"A\" (textbox)\n",
         "line 7: {b} is not a declared input (inputs: [a])"),
        ("---\nsite: s\ninputs: [a]\n---\naction: type \"x {b}\" into \"A\" (textbox)\n",
         "line 5: {b} is not a declared input (inputs: [a])"),
        ("---\nsite: s\n---\n1. action: navigate to https://x/{who}\n",
         "line 4: {who} is not a declared input (inputs: [])"),
    ],
)
def test_parse_errors_name_their_line(source: str, message: str | None) -> None:
    with pytest.raises(WorkflowError) as caught:
        parse(source)
    if message is None:  # a malformed action: the action message, on its line
        assert str(caught.value).startswith("line 4: an action is click")
        assert caught.value.line == 4
    else:
        assert str(caught.value) == message


def test_binding_fills_every_reference() -> None:
    workflow = parse(
        FRONT
        + "action: navigate to https://shop.example/{name}/{name}\n"
        + "action: type {email} into \"Email\" (textbox)\n"
        + "action: type \"{name} <{email}>\" into \"From\" (textbox)\n"
        + "action: click \"{name}\" (button)\n"
        + "goal: greet {name}\n"
    )
    steps = bind(workflow, {"email": "a@b.example", "name": "Ann {email}"})
    assert [s.value for s in steps] == [
        "https://shop.example/Ann {email}/Ann {email}",  # a value is never filled again
        "a@b.example",
        "Ann {email} <a@b.example>",
        None,
        None,
    ]
    assert steps[3].name == "{name}" and steps[4].text == "goal: greet {name}"  # names and prose stay as written
    assert [s.value for s in workflow.steps][1] == "{email}"  # the workflow itself is unchanged


@pytest.mark.parametrize(
    ("inputs", "message"),
    [
        ({"email": "e"}, "declared inputs not given: name"),
        ({}, "declared inputs not given: email, name"),
        ({"email": "e", "name": "n", "zeta": "z", "alpha": "a"},
         "inputs not declared in the workflow's front matter: alpha, zeta"),
        ({"email": "e", "name": 5}, "input name must be a string"),
        ({"email": "e", "name": "é" * (MAX_WORKFLOW_INPUT_BYTES // 2 + 1)},
         f"input name is {MAX_WORKFLOW_INPUT_BYTES + 2} bytes; at most {MAX_WORKFLOW_INPUT_BYTES} are accepted"),
    ],
)
def test_binding_refusals(inputs: dict[str, Any], message: str) -> None:
    with pytest.raises(WorkflowError) as caught:
        bind(parse(FRONT), inputs)
    assert str(caught.value) == message and caught.value.line is None


def test_an_input_value_at_the_limit_binds() -> None:
    steps = bind(parse(FRONT + "action: type {name} into \"N\" (textbox)\n"),
                 {"email": "", "name": "x" * MAX_WORKFLOW_INPUT_BYTES})
    assert steps[0].value == "x" * MAX_WORKFLOW_INPUT_BYTES


def test_step_limit() -> None:
    steps = "".join(f"{i + 1}. extract: part {i}\n" for i in range(MAX_WORKFLOW_STEPS))
    assert len(parse("---\nsite: s\n---\n" + steps).steps) == MAX_WORKFLOW_STEPS
    with pytest.raises(WorkflowError) as caught:
        parse("---\nsite: s\n---\n" + steps + "\n26. extract: one too many\n")
    assert str(caught.value) == f"line {3 + MAX_WORKFLOW_STEPS + 2}: more than {MAX_WORKFLOW_STEPS} steps"


def test_source_limit_counts_utf8_bytes() -> None:
    head = "---\nsite: s\n---\nextract: "
    fits = head + "€" * ((MAX_WORKFLOW_SOURCE_BYTES - len(head)) // 3)
    assert len(fits.encode()) <= MAX_WORKFLOW_SOURCE_BYTES
    assert parse(fits).steps[0].kind == "extract"
    too_big = fits + "€€"
    with pytest.raises(WorkflowError) as caught:
        parse(too_big)
    size = len(too_big.encode())
    assert str(caught.value) == f"the source is {size} bytes; at most {MAX_WORKFLOW_SOURCE_BYTES} are accepted"


def test_input_count_limit() -> None:
    names = [f"i{n}" for n in range(MAX_WORKFLOW_INPUTS)]
    workflow = parse(f"---\nsite: s\ninputs: [{', '.join(names)}]\n---\n")
    assert len(bind(workflow, dict.fromkeys(names, "v"))) == 0
    with pytest.raises(WorkflowError) as caught:
        parse(f"---\nsite: s\ninputs: [{', '.join([*names, 'extra'])}]\n---\n")
    assert str(caught.value) == f"line 3: {MAX_WORKFLOW_INPUTS + 1} inputs declared; at most 64 are accepted"
    with pytest.raises(WorkflowError) as given:
        bind(workflow, {f"x{n}": "v" for n in range(MAX_WORKFLOW_INPUTS + 1)})
    assert str(given.value) == f"{MAX_WORKFLOW_INPUTS + 1} inputs given; at most 64 are accepted"
