"""The person's prompt templates: Markdown files in ``<data dir>/prompts/``, read and checked.

A prompt file is front matter and a body::

    ---
    name: translate
    description: Translate the selection
    arguments:
      - name: language
        description: The language to translate into
        required: true
        values: [English, German, French]
    ---
    Translate this into {{language}}: {{selection}}

``name`` (letters, digits, ``_``, ``-``) and ``description`` are required; ``title`` is optional; each argument
has a ``name``, and may have a ``description``, ``required`` (default false) and ``values`` (what completion
offers). Every ``{{placeholder}}`` of the body names an argument or one of the app's values
(:data:`vmark.core.prompt_text.STATE_NAMES`). A file that breaks a rule is malformed: it is listed nowhere, and
its error is reported to the person, never raised.

The first time the folder is needed and does not exist, the prompts shipped with VMark are copied into it.
"""

from __future__ import annotations

import os
import shutil
from dataclasses import dataclass
from importlib import resources
from pathlib import Path
from typing import Any

from ruamel.yaml import YAML
from ruamel.yaml.error import YAMLError

from ..core.prompt_text import NAME, STATE_NAMES, TAB_ARGUMENT, placeholders
from ..protocol.limits import MAX_PROMPT_FILE_BYTES, MAX_PROMPTS

FOLDER = "prompts"
_FENCE = "---"
_KEYS = {"name", "title", "description", "arguments"}
_ARGUMENT_KEYS = {"name", "description", "required", "values"}


@dataclass(frozen=True)
class PromptArgument:
    name: str
    description: str
    required: bool
    values: tuple[str, ...]


@dataclass(frozen=True)
class Prompt:
    name: str
    title: str | None
    description: str
    arguments: tuple[PromptArgument, ...]
    body: str
    path: str
    #: the app's values the body uses (a tab is needed when any is)
    uses: tuple[str, ...]

    def argument(self, name: str) -> PromptArgument | None:
        return next((a for a in self.arguments if a.name == name), None)


@dataclass(frozen=True)
class Malformed:
    path: str
    error: str


class PromptError(ValueError):
    pass


def prompts_folder(data_dir: Path) -> Path:
    return data_dir / FOLDER


def install_shipped(folder: Path) -> bool:
    """Copy the prompts shipped with VMark into ``folder`` when it does not exist yet; whether it did."""
    if folder.exists():
        return False
    staging = folder.with_name(folder.name + ".installing")
    shutil.rmtree(staging, ignore_errors=True)
    staging.mkdir(parents=True)
    for item in resources.files(__package__).joinpath("shipped_prompts").iterdir():
        if item.name.endswith(".md"):
            (staging / item.name).write_bytes(item.read_bytes())
    try:
        os.rename(staging, folder)  # all of them or none: a crash midway leaves no half folder behind
    except OSError:
        shutil.rmtree(staging, ignore_errors=True)
        return False
    return True


_SKELETON = """---
name: {name}
description: What this prompt asks an agent to do (agents see this line)
arguments:
  - name: tab
    description: The tab to work on (default the tab in front of you)
---
Write the request here. {{{{selection}}}} is the text selected in the tab, {{{{document}}}} its whole text and
{{{{title}}}} its name; an argument you add above goes in the same way, its name in double braces.

{{{{selection}}}}
"""


def new_prompt_file(folder: Path) -> str:
    """Create ``prompt-N.md`` (the first free N) with a skeleton to fill in, never over a file; its path."""
    folder.mkdir(parents=True, exist_ok=True)
    for n in range(1, MAX_PROMPTS + 2):
        path = folder / f"prompt-{n}.md"
        try:
            fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o644)
        except FileExistsError:
            continue
        with os.fdopen(fd, "w", encoding="utf-8") as f:
            f.write(_SKELETON.format(name=f"prompt-{n}"))
        return str(path)
    raise PromptError(f"there are {MAX_PROMPTS} prompt files already")


def stamp(folder: Path) -> tuple[tuple[str, int, int], ...]:
    """What the folder's prompt files look like now (names, times, sizes): a change means read them again."""
    try:
        entries = list(os.scandir(folder))
    except OSError:
        return ()
    out = []
    for entry in entries:
        if entry.name.endswith(".md") and entry.is_file():
            st = entry.stat()
            out.append((entry.name, st.st_mtime_ns, st.st_size))
    return tuple(sorted(out))


def read_prompts(folder: Path) -> tuple[list[Prompt], list[Malformed]]:
    """Every well-formed prompt of ``folder`` (in file name order), and what is wrong with the others."""
    names = sorted(name for name, _mtime, _size in stamp(folder))
    prompts: list[Prompt] = []
    malformed: list[Malformed] = []
    for name in names[:MAX_PROMPTS]:
        path = str(folder / name)
        try:
            prompt = parse_prompt(_read(path), path)
        except PromptError as exc:
            malformed.append(Malformed(path, str(exc)))
            continue
        first = next((p for p in prompts if p.name == prompt.name), None)
        if first is not None:
            malformed.append(Malformed(path, f"the name {prompt.name!r} is taken by {os.path.basename(first.path)}"))
            continue
        prompts.append(prompt)
    for name in names[MAX_PROMPTS:]:
        malformed.append(Malformed(str(folder / name), f"more than {MAX_PROMPTS} prompt files: this one is not read"))
    return prompts, malformed


def _read(path: str) -> str:
    try:
        with open(path, "rb") as f:
            data = f.read(MAX_PROMPT_FILE_BYTES + 1)
    except OSError as exc:
        raise PromptError(f"the file cannot be read: {exc.strerror}") from exc
    if len(data) > MAX_PROMPT_FILE_BYTES:
        raise PromptError(f"the file is larger than {MAX_PROMPT_FILE_BYTES // 1024} KiB")
    try:
        return data.decode("utf-8").removeprefix("\ufeff")
    except UnicodeDecodeError as exc:
        raise PromptError(f"the file is not UTF-8 text (byte {exc.start})") from exc


def parse_prompt(text: str, path: str) -> Prompt:
    """The prompt a file's text defines, else :class:`PromptError` saying what is wrong."""
    meta, body = _split(text.replace("\r\n", "\n").replace("\r", "\n"))
    unknown = sorted(set(meta) - _KEYS)
    if unknown:
        raise PromptError(f"the front matter has {unknown[0]!r}, which is not one of: {', '.join(sorted(_KEYS))}")
    name = _text(meta, "name", required=True)
    if not NAME.fullmatch(name):
        raise PromptError(f"name {name!r} must be letters, digits, _ and - (starting with a letter)")
    description = _text(meta, "description", required=True)
    title = _text(meta, "title", required=False) or None
    arguments = _arguments(meta.get("arguments"))
    if not body.strip():
        raise PromptError("the prompt's text (after the front matter) is empty")
    try:
        used = placeholders(body)
    except ValueError as exc:
        raise PromptError(str(exc)) from None
    declared = {a.name for a in arguments}
    for placeholder in used:
        if placeholder not in declared and placeholder not in STATE_NAMES:
            raise PromptError(
                f"{{{{{placeholder}}}}} is neither an argument nor one of the app's values ({', '.join(STATE_NAMES)})"
            )
    clash = sorted(declared & set(STATE_NAMES))
    if clash:
        raise PromptError(f"argument {clash[0]!r} has the name of one of the app's values; choose another")
    uses = tuple(p for p in used if p in STATE_NAMES and p not in declared)
    return Prompt(name, title, description, arguments, body, path, uses)


def _split(text: str) -> tuple[dict[str, Any], str]:
    lines = text.split("\n")
    if not lines or lines[0].strip() != _FENCE:
        raise PromptError("there is no front matter at its start (a line ---, the fields, a line ---)")
    try:
        end = next(i for i in range(1, len(lines)) if lines[i].strip() == _FENCE)
    except StopIteration:
        raise PromptError("the front matter is not closed by a line ---") from None
    try:
        meta = YAML(typ="safe", pure=True).load("\n".join(lines[1:end]))
    except YAMLError as exc:
        problem = getattr(exc, "problem", None) or "not YAML"
        raise PromptError(f"the front matter is not valid YAML: {problem}") from None
    if not isinstance(meta, dict):
        raise PromptError("the front matter must be fields (name: ..., description: ...)")
    return meta, "\n".join(lines[end + 1 :]).lstrip("\n")


def _text(meta: dict[str, Any], key: str, *, required: bool) -> str:
    value = meta.get(key)
    if value is None:
        if required:
            raise PromptError(f"the front matter needs {key!r}")
        return ""
    if not isinstance(value, str) or (required and not value.strip()):
        raise PromptError(f"{key!r} must be text")
    return value.strip()


def _arguments(raw: object) -> tuple[PromptArgument, ...]:
    if raw is None:
        return ()
    if not isinstance(raw, list):
        raise PromptError("'arguments' must be a list of arguments (- name: ...)")
    out: list[PromptArgument] = []
    for index, item in enumerate(raw):
        if not isinstance(item, dict):
            raise PromptError(f"argument {index + 1} must be fields (name, description, required, values)")
        extra = sorted(set(item) - _ARGUMENT_KEYS)
        if extra:
            raise PromptError(f"argument {index + 1} has {extra[0]!r}; an argument takes name, description,"
                              " required and values")  # fmt: skip
        name = item.get("name")
        if not isinstance(name, str) or not NAME.fullmatch(name):
            raise PromptError(f"argument {index + 1} needs a name of letters, digits, _ and -")
        if any(a.name == name for a in out):
            raise PromptError(f"argument {name!r} is declared twice")
        description = item.get("description", "")
        required = item.get("required", False)
        values = item.get("values", [])
        if not isinstance(description, str):
            raise PromptError(f"argument {name!r}: description must be text")
        if not isinstance(required, bool):
            raise PromptError(f"argument {name!r}: required must be true or false")
        if not isinstance(values, list) or not all(isinstance(v, str | int | float) for v in values):
            raise PromptError(f"argument {name!r}: values must be a list of words")
        if name == TAB_ARGUMENT and values:
            raise PromptError(f"argument {name!r} is a tab id: it takes no values (completion offers the tabs)")
        out.append(PromptArgument(name, description.strip(), required, tuple(str(v) for v in values)))
    return tuple(out)
