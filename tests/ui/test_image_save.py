"""``ui.image_save`` through the person's protocol (the UI client): where a pasted or dropped image is written,
under which name, and every refusal, each leaving the disk as it was."""

from __future__ import annotations

import base64
import os
from pathlib import Path
from typing import Any

import pytest

from tests.contract.helpers import person_open
from tests.ui.test_images import png
from vmark.app.server import RunningApp
from vmark.protocol.limits import MAX_PASTED_IMAGE_BYTES
from vmark.testing.uiclient import UIClient, UIError

DOT = png(3, 2)
SVG = b'<?xml version="1.0"?>\n<svg xmlns="http://www.w3.org/2000/svg" width="4" height="4"/>\n'


def b64(data: bytes) -> str:
    return base64.b64encode(data).decode("ascii")


def tree(root: Path) -> dict[str, bytes | None]:
    """Every file (its bytes) and folder (None) under ``root``, relative; not the app's data directory."""
    found: dict[str, bytes | None] = {}
    for folder, dirs, files in os.walk(root):
        dirs[:] = [d for d in dirs if os.path.join(folder, d) != str(root / "data")]
        for name in dirs:
            found[os.path.relpath(os.path.join(folder, name), root)] = None
        for name in files:
            path = os.path.join(folder, name)
            found[os.path.relpath(path, root)] = Path(path).read_bytes()
    return found


@pytest.fixture
async def notes(person: UIClient, tmp_path: Path) -> tuple[Path, str]:
    """A workspace with ``notes/n.md`` open in a tab: the folder and the tab."""
    root = (tmp_path / "ws").resolve()
    (root / "notes").mkdir(parents=True)
    (root / "notes" / "n.md").write_text("# N\n", "utf-8")
    await person.call("ui.open_folder", path=str(root))
    return root, await person_open(person, root / "notes" / "n.md")


async def refusal(person: UIClient, **args: Any) -> Any:
    with pytest.raises(UIError) as info:
        await person.call("ui.image_save", **args)
    return info.value.error


async def test_images_go_into_assets_beside_the_document_never_over_a_file(
    person: UIClient, notes: tuple[Path, str]
) -> None:
    root, tab = notes
    first = await person.call("ui.image_save", tabId=tab, name="image.png", data=b64(DOT))
    assets = root / "notes" / "assets"
    assert first == {"path": str(assets / "image.png"), "link": "assets/image.png", "bytes": len(DOT)}
    assert (assets / "image.png").read_bytes() == DOT
    second = await person.call("ui.image_save", tabId=tab, name="image.png", data=b64(png(5, 5)))
    assert second["link"] == "assets/image-1.png"
    assert (assets / "image.png").read_bytes() == DOT  # not replaced
    assert (assets / "image-1.png").read_bytes() == png(5, 5)
    # The name's stem, made safe; the suffix from the bytes (an SVG named .png is written as .svg).
    named = await person.call("ui.image_save", tabId=tab, name="../My Shot (2).png", data=b64(SVG))
    assert named["link"] == "assets/My-Shot-2.svg"
    assert (assets / "My-Shot-2.svg").read_bytes() == SVG
    spaced = await person.call("ui.image_save", tabId=tab, name=".png", data=b64(DOT))
    assert spaced["link"] == "assets/image-2.png"
    assert sorted(os.listdir(assets)) == ["My-Shot-2.svg", "image-1.png", "image-2.png", "image.png"]


async def test_the_folder_setting_and_folders_it_creates(
    vmark: RunningApp, person: UIClient, notes: tuple[Path, str]
) -> None:
    root, tab = notes
    vmark.app.settings.set("editor.image_folder", "../media/pasted images")
    saved = await person.call("ui.image_save", tabId=tab, name="a.gif", data=b64(b"GIF89a" + b"\x00" * 20))
    assert saved["link"] == "../media/pasted%20images/a.gif"
    assert (root / "media" / "pasted images" / "a.gif").is_file()
    vmark.app.settings.set("editor.image_folder", "")
    beside = await person.call("ui.image_save", tabId=tab, name="b.jpg", data=b64(b"\xff\xd8\xff\xe0jpeg"))
    assert (beside["link"], beside["path"]) == ("b.jpg", str(root / "notes" / "b.jpg"))


async def test_refusals_leave_the_disk_as_it_was(
    vmark: RunningApp, person: UIClient, notes: tuple[Path, str], tmp_path: Path
) -> None:
    root, tab = notes
    before = tree(tmp_path)
    assert await refusal(person, tabId=tab, name="x.png", data="not base64!") == "argument 'data' must be base64"
    not_image = await refusal(person, tabId=tab, name="x.png", data=b64(b"MZ\x90\x00 an executable"))
    assert not_image == "argument 'data' must be a PNG, JPEG, GIF, WebP or SVG image"
    too_big = await refusal(person, tabId=tab, name="x.png", data="A" * (4 * (MAX_PASTED_IMAGE_BYTES // 3 + 1) + 4))
    assert too_big == f"argument 'data' must be an image of at most {MAX_PASTED_IMAGE_BYTES} bytes"
    assert await refusal(person, tabId=tab, name="x.png") == "argument 'data' must be a string"
    unknown = await refusal(person, tabId="tab-nope", name="x.png", data=b64(DOT))
    assert unknown["error"] == "INVALID_TAB"
    assert tree(tmp_path) == before
    # The folder lies outside the window's scope: by the setting, or as a symlink out of it.
    outside = tmp_path / "outside"
    outside.mkdir()
    before = tree(tmp_path)
    vmark.app.settings.set("editor.image_folder", "../../outside")
    error = await refusal(person, tabId=tab, name="x.png", data=b64(DOT))
    assert error["error"] == "INVALID_PATH" and "outside the open workspace" in error["message"], error
    assert tree(tmp_path) == before
    vmark.app.settings.set("editor.image_folder", "assets")
    (root / "notes" / "assets").symlink_to(outside)
    before = tree(tmp_path)
    error = await refusal(person, tabId=tab, name="x.png", data=b64(DOT))
    assert error["error"] == "INVALID_PATH" and "outside the open workspace" in error["message"], error
    assert tree(tmp_path) == before
    (root / "notes" / "assets").unlink()
    (root / "notes" / "assets").write_text("a file, not a folder", "utf-8")
    before = tree(tmp_path)
    error = await refusal(person, tabId=tab, name="x.png", data=b64(DOT))
    assert error["error"] == "INVALID_PATH" and "is not a folder" in error["message"], error
    assert tree(tmp_path) == before


async def test_untitled_and_read_only_documents_take_no_image(
    vmark: RunningApp, person: UIClient, notes: tuple[Path, str], tmp_path: Path
) -> None:
    root, _ = notes
    untitled = (await person.call("ui.new", kind="markdown"))["tabId"]
    before = tree(tmp_path)
    error = await refusal(person, tabId=untitled, name="x.png", data=b64(DOT))
    assert error["error"] == "INVALID_PATH" and error["message"].startswith("untitled: save the document first")
    assert tree(tmp_path) == before
    locked = root / "locked.md"
    locked.write_text("# L\n", "utf-8")
    locked.chmod(0o444)
    before = tree(tmp_path)
    tab = await person_open(person, locked)
    error = await refusal(person, tabId=tab, name="x.png", data=b64(DOT))
    assert error["error"] == "READ_ONLY", error
    assert tree(tmp_path) == before
