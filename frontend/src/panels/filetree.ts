// The file tree: folders that fold, the open file marked, and the file operations a person expects
// (new file, new folder, rename, move by dragging, delete to the trash, reveal the current file).
// Every operation is a request the app checks against the window's path scope; the tree then reloads.
import { el, menuArrows, modalAnswer, toast } from "../shared/dom";
import { type Channel, errorText } from "../shared/protocol";
import type { Listing } from "../wire.gen";


export interface TreeHost {
  open(filePath: string): Promise<void>;
  reload(): Promise<void>;
  activePath(): string | null;
}

type Target = { kind: "file" | "folder"; path: string; root: string };

/**
 * A name field the person is typing in (new file, new folder, rename). The tree is drawn again whenever a
 * listing comes (a file changed on disk, another window's operation), so the field is put back, with its text
 * and caret, into the tree drawn next: `attach` puts it in a freshly drawn section (false: its place is gone).
 */
interface NameField {
  root: string;
  input: HTMLInputElement;
  attach(section: HTMLElement): boolean;
  cancel(): void;
}

export class FileTree {
  /** Folders the person folded (absolute paths): they stay folded across reloads. */
  private folded = new Set<string>();
  private menu: HTMLElement | null = null;
  private naming: NameField | null = null;

  constructor(
    private channel: Channel,
    private host: TreeHost,
  ) {
    document.addEventListener("mousedown", (event) => {
      if (this.menu && !(event.target instanceof Node && this.menu.contains(event.target))) this.closeMenu();
    });
    document.addEventListener("keydown", (event) => {
      if (event.key === "Escape" && this.menu) this.closeMenu();
    });
  }

  render(listing: Listing): HTMLElement {
    const root = el("ul", { class: "files", role: "group" });
    const folders = new Map<string, HTMLElement>([["", root]]);
    const folder = (path: string): HTMLElement => {
      const known = folders.get(path);
      if (known) return known;
      const cut = path.lastIndexOf("/");
      const parent = folder(cut < 0 ? "" : path.slice(0, cut));
      const list = el("ul", { class: "files", role: "group" });
      const absolute = `${listing.root}/${path}`;
      const open = !this.folded.has(absolute);
      const label = el(
        "button",
        { type: "button", class: "folder-label", "data-folder": path, "aria-expanded": String(open), title: absolute, draggable: "true" },
        el("span", { class: "twisty", "aria-hidden": "true" }, open ? "▾" : "▸"),
        el("span", {}, `${path.slice(cut + 1)}/`),
      );
      list.hidden = !open;
      label.addEventListener("click", () => {
        const nowOpen = list.hidden;
        list.hidden = !nowOpen;
        label.setAttribute("aria-expanded", String(nowOpen));
        label.querySelector(".twisty")!.textContent = nowOpen ? "▾" : "▸";
        if (nowOpen) this.folded.delete(absolute);
        else this.folded.add(absolute);
      });
      const target: Target = { kind: "folder", path: absolute, root: listing.root };
      this.wireItem(label, target);
      this.dropTarget(label, absolute);
      parent.append(el("li", { class: "folder", "data-folder": path }, label, list));
      folders.set(path, list);
      return list;
    };
    for (const path of listing.folders ?? []) folder(path);
    const active = this.host.activePath();
    for (const file of listing.files) {
      const cut = file.path.lastIndexOf("/");
      const absolute = `${listing.root}/${file.path}`;
      const link = el(
        "button",
        { type: "button", class: "file", "data-path": file.path, title: absolute, draggable: "true" },
        file.path.slice(cut + 1),
      );
      if (absolute === active) link.setAttribute("aria-current", "true");
      link.addEventListener("click", () => void this.host.open(absolute).catch((err) => toast(errorText(err), "error")));
      this.wireItem(link, { kind: "file", path: absolute, root: listing.root });
      folder(cut < 0 ? "" : file.path.slice(0, cut)).append(el("li", {}, link));
    }
    const name = listing.root.split("/").pop() || listing.root;
    const tool = (label: string, icon: string, run: () => void): HTMLButtonElement => {
      const b = el("button", { type: "button", class: "tree-tool icon-button", title: label, "aria-label": label }, icon);
      b.addEventListener("click", run);
      return b;
    };
    const heading = el("h3", { title: listing.root }, name);
    this.dropTarget(heading, listing.root);
    const head = el(
      "div",
      { class: "tree-head" },
      heading,
      tool("New file", "+", () => this.startCreate(section, listing.root, "file")),
      tool("New folder", "▣", () => this.startCreate(section, listing.root, "folder")),
      tool("Reveal the current file", "◎", () => this.reveal()),
    );
    const section = el(
      "section",
      { class: `workspace${listing.active ? " active" : ""}`, "data-root": listing.root },
      head,
      root,
    );
    if (listing.files.length === 0 && (listing.folders ?? []).length === 0) {
      section.append(el("p", { class: "hint tree-empty" }, "This folder has no Markdown files yet: create one with + (New file)."));
    }
    if (listing.truncated) section.append(el("p", { class: "hint" }, "(more files not listed)"));
    if (this.naming?.root === listing.root && !this.naming.attach(section)) this.naming.cancel();
    return section;
  }

  /** The tree item that has the focus, as a selector that finds it in a tree drawn again (null: none). */
  focusedItem(): string | null {
    const item = document.activeElement;
    if (!(item instanceof HTMLElement) || !document.getElementById("tree")?.contains(item)) return null;
    const root = item.closest<HTMLElement>("section.workspace")?.dataset.root;
    if (root === undefined) return null;
    const section = `section.workspace[data-root="${CSS.escape(root)}"]`;
    if (item.matches("button.file")) return `${section} button.file[data-path="${CSS.escape(item.dataset.path ?? "")}"]`;
    if (item.matches("button.folder-label")) return `${section} button.folder-label[data-folder="${CSS.escape(item.dataset.folder ?? "")}"]`;
    return null;
  }

  /** After the tree was drawn again: the name field being typed in, or the item `focused`, keeps the focus. */
  drawn(focused: string | null): void {
    if (this.naming?.input.isConnected) this.naming.input.focus();
    else {
      this.naming?.cancel();
      if (focused) document.querySelector<HTMLElement>(`#tree ${focused}`)?.focus();
    }
  }

  /** Show the active tab's file in the tree: its folders unfolded, it scrolled to and focused. */
  reveal(): void {
    const path = this.host.activePath();
    const tree = document.getElementById("tree");
    if (!path || !tree) {
      toast("The active tab has no file to reveal", "warning");
      return;
    }
    for (const section of tree.querySelectorAll<HTMLElement>("section.workspace")) {
      const root = section.dataset.root ?? "";
      if (!path.startsWith(`${root}/`)) continue;
      const relative = path.slice(root.length + 1);
      const button = section.querySelector<HTMLElement>(`button.file[data-path="${CSS.escape(relative)}"]`);
      if (!button) continue;
      for (let li = button.closest("li.folder"); li; li = li.parentElement?.closest("li.folder") ?? null) {
        const list = li.querySelector<HTMLElement>(":scope > ul");
        const label = li.querySelector<HTMLElement>(":scope > .folder-label");
        if (list) list.hidden = false;
        label?.setAttribute("aria-expanded", "true");
        const twisty = label?.querySelector(".twisty");
        if (twisty) twisty.textContent = "▾";
        this.folded.delete(`${root}/${li.getAttribute("data-folder")}`);
      }
      button.scrollIntoView({ block: "nearest" });
      button.focus();
      button.classList.add("revealed");
      window.setTimeout(() => button.classList.remove("revealed"), 1500);
      return;
    }
    toast("The active file is not in this workspace's tree", "warning");
  }

  private wireItem(item: HTMLElement, target: Target): void {
    item.addEventListener("contextmenu", (event) => {
      event.preventDefault();
      this.openMenu(event.clientX, event.clientY, item, target);
    });
    item.addEventListener("keydown", (event) => {
      if (event.key === "F2") {
        event.preventDefault();
        this.startRename(item, target);
      } else if (event.key === "Delete") {
        event.preventDefault();
        void this.remove(target);
      } else if (event.key === "ContextMenu" || (event.shiftKey && event.key === "F10")) {
        event.preventDefault();
        const box = item.getBoundingClientRect();
        this.openMenu(box.left + 10, box.bottom, item, target);
      }
    });
    item.addEventListener("dragstart", (event) => {
      event.dataTransfer?.setData("application/x-vmark-path", target.path);
      if (event.dataTransfer) event.dataTransfer.effectAllowed = "move";
    });
  }

  private dropTarget(item: HTMLElement, folder: string): void {
    item.addEventListener("dragover", (event) => {
      if (!event.dataTransfer?.types.includes("application/x-vmark-path")) return;
      event.preventDefault();
      event.dataTransfer.dropEffect = "move";
      item.classList.add("drop-target");
    });
    item.addEventListener("dragleave", () => item.classList.remove("drop-target"));
    item.addEventListener("drop", (event) => {
      item.classList.remove("drop-target");
      const from = event.dataTransfer?.getData("application/x-vmark-path");
      if (!from) return;
      event.preventDefault();
      const name = from.slice(from.lastIndexOf("/") + 1);
      const to = `${folder}/${name}`;
      if (to === from || from.slice(0, from.lastIndexOf("/")) === folder) return;
      void this.move(from, to);
    });
  }

  async move(from: string, to: string): Promise<void> {
    try {
      await this.channel.request("ui.file_rename", { from, to });
      toast(`Moved ${from.slice(from.lastIndexOf("/") + 1)} to ${to.slice(0, to.lastIndexOf("/"))}`);
    } catch (err) {
      toast(errorText(err), "error");
    }
    await this.host.reload();
  }

  // --- the context menu -----------------------------------------------------------------------------
  private openMenu(x: number, y: number, item: HTMLElement, target: Target): void {
    this.closeMenu();
    const entries: [string, () => void][] = [];
    if (target.kind === "file") entries.push(["Open", () => void this.host.open(target.path)]);
    entries.push(["Rename…", () => this.startRename(item, target)]);
    if (target.kind === "folder") {
      const section = item.closest<HTMLElement>("section.workspace");
      if (section) {
        entries.push(["New file here…", () => this.startCreate(section, target.path, "file")]);
        entries.push(["New folder here…", () => this.startCreate(section, target.path, "folder")]);
      }
    }
    entries.push(["Delete…", () => void this.remove(target)]);
    const menu = el("div", { class: "menu", role: "menu", "aria-label": `Actions for ${target.path.slice(target.path.lastIndexOf("/") + 1)}` });
    for (const [label, run] of entries) {
      const entry = el("button", { type: "button", role: "menuitem" }, label);
      entry.addEventListener("click", () => {
        this.closeMenu();
        run();
      });
      menu.append(entry);
    }
    menu.addEventListener("keydown", (event) => menuArrows(menu, event));
    document.body.append(menu);
    const box = menu.getBoundingClientRect();
    menu.style.left = `${Math.min(x, window.innerWidth - box.width - 4)}px`;
    menu.style.top = `${Math.min(y, window.innerHeight - box.height - 4)}px`;
    this.menu = menu;
    menu.querySelector<HTMLElement>("[role=menuitem]")?.focus();
  }

  private closeMenu(): void {
    this.menu?.remove();
    this.menu = null;
  }

  // --- rename, create, delete ---------------------------------------------------------------------------
  private startRename(drawn: HTMLElement, target: Target): void {
    let item = drawn.isConnected ? drawn : shownItem(target);
    if (!item) return;
    const name = target.path.slice(target.path.lastIndexOf("/") + 1);
    const folder = target.path.slice(0, target.path.lastIndexOf("/"));
    const input = el("input", { type: "text", class: "tree-input", "aria-label": `New name for ${name}`, spellcheck: "false" });
    input.value = name;
    const place = (at: HTMLElement): void => {
      item = at;
      at.hidden = true;
      at.after(input);
    };
    place(item);
    input.focus();
    const dot = name.lastIndexOf(".");
    input.setSelectionRange(0, target.kind === "file" && dot > 0 ? dot : name.length);
    const finish = this.nameField(target.root, input, (section) => {
      const at = itemIn(section, target);
      if (at) place(at);
      return at !== null;
    }, () => {
      input.remove();
      if (item) item.hidden = false;
    });
    input.addEventListener("keydown", (event) => {
      if (event.key === "Escape") {
        event.preventDefault();
        event.stopPropagation();
        finish();
        item?.focus();
      } else if (event.key === "Enter") {
        event.preventDefault();
        const fresh = input.value.trim();
        if (!fresh || fresh === name) {
          finish();
          return;
        }
        void this.channel
          .request("ui.file_rename", { from: target.path, to: `${folder}/${fresh}` })
          .then(async () => {
            finish();
            await this.host.reload();
          })
          .catch((err) => {
            toast(errorText(err), "error");
            input.focus();
          });
      }
    });
  }

  private startCreate(shown: HTMLElement, folder: string, kind: "file" | "folder"): void {
    const root = shown.dataset.root ?? "";
    // The tree may have been drawn again since the menu opened (a file changed on disk): use the section shown now.
    const section = shown.isConnected ? shown : shownSection(root);
    if (!section) return;
    const relative = folder === root ? "" : folder.slice(root.length + 1);
    const label = kind === "file" ? "New file name" : "New folder name";
    const input = el("input", { type: "text", class: "tree-input", "aria-label": label, placeholder: kind === "file" ? "name.md" : "folder name", spellcheck: "false" });
    const row = el("li", { class: "tree-new" }, input);
    const place = (into: HTMLElement): boolean => {
      const list = relative
        ? into.querySelector<HTMLElement>(`li.folder[data-folder="${CSS.escape(relative)}"] > ul`)
        : into.querySelector<HTMLElement>(":scope > ul.files");
      if (!list) return false;
      list.hidden = false;
      list.prepend(row);
      return true;
    };
    if (!place(section)) return;
    input.focus();
    const finish = this.nameField(root, input, place, () => row.remove());
    input.addEventListener("keydown", (event) => {
      if (event.key === "Escape") {
        event.preventDefault();
        event.stopPropagation();
        finish();
      } else if (event.key === "Enter") {
        event.preventDefault();
        const name = input.value.trim();
        if (!name) return finish();
        void this.channel
          .request("ui.file_create", { path: `${folder}/${name}`, type: kind })
          .then(async ({ path }) => {
            finish();
            await this.host.reload();
            if (kind === "file") await this.host.open(path);
          })
          .catch((err) => {
            toast(errorText(err), "error");
            input.focus();
          });
      }
    });
  }

  /**
   * `input` becomes the name field being typed in (one at a time): put back by `attach` when the tree is drawn
   * again, and ended (`remove`) by the returned function, by another name field, or when the person leaves it.
   */
  private nameField(root: string, input: HTMLInputElement, attach: (section: HTMLElement) => boolean, remove: () => void): () => void {
    this.naming?.cancel();
    let done = false;
    const finish = (): void => {
      if (done) return;
      done = true;
      if (this.naming?.input === input) this.naming = null;
      remove();
    };
    this.naming = { root, input, attach, cancel: finish };
    input.addEventListener("blur", () => {
      // A redraw moves the field (which blurs it) and focuses it again at once (`drawn`): only a real leave ends it.
      if (!done) window.setTimeout(() => !done && document.activeElement !== input && finish(), 0);
    });
    return finish;
  }

  private async remove(target: Target): Promise<void> {
    const name = target.path.slice(target.path.lastIndexOf("/") + 1);
    const what = target.kind === "folder" ? `the folder ${name} and everything in it` : name;
    if (!(await confirmDialog(`Move ${what} to the trash?`, "You can restore it from your system's trash.", "Move to trash"))) return;
    try {
      await this.channel.request("ui.file_delete", { path: target.path });
      toast(`Moved ${name} to the trash`);
    } catch (err) {
      toast(errorText(err), "error");
    }
    await this.host.reload();
  }
}

/** A modal question with a default of "Cancel" (Escape and Enter on Cancel answer no). */
export function confirmDialog(question: string, detail: string, yes: string): Promise<boolean> {
  const ok = el("button", { type: "button", class: "danger" }, yes);
  const cancel = el("button", { type: "button" }, "Cancel");
  const dialog = el(
    "dialog",
    { class: "dialog confirm-dialog", "data-testid": "confirm", role: "alertdialog", "aria-label": question },
    el("h2", {}, question),
    el("p", { class: "hint" }, detail),
    el("div", { class: "actions" }, cancel, ok),
  );
  let answer = false;
  ok.addEventListener("click", () => {
    answer = true;
    dialog.close();
  });
  cancel.addEventListener("click", () => dialog.close());
  return modalAnswer(dialog, cancel, () => answer);
}

// The tree may have been drawn again since a menu opened (a file changed on disk): these find what is shown now.

/** The workspace section of `root` as the tree shows it now. */
function shownSection(root: string): HTMLElement | null {
  return document.querySelector<HTMLElement>(`#tree section.workspace[data-root="${CSS.escape(root)}"]`);
}

/** The tree item of `target` as the tree shows it now. */
function shownItem(target: Target): HTMLElement | null {
  const section = shownSection(target.root);
  return section ? itemIn(section, target) : null;
}

/** The tree item of `target` in a drawn workspace section. */
function itemIn(section: HTMLElement, target: Target): HTMLElement | null {
  const relative = CSS.escape(target.path.slice(target.root.length + 1));
  const selector = target.kind === "file" ? `button.file[data-path="${relative}"]` : `button.folder-label[data-folder="${relative}"]`;
  return section.querySelector<HTMLElement>(selector);
}
