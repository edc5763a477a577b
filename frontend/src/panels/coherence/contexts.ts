// The Coherence panel's Contexts: named sets of claims (included, excluded) that agents check against.
import { act, el, toast } from "../../shared/dom";
import type { CoherenceOverview as Overview, Context, ContextSavePayload } from "../../wire.gen";
import { type Panel, type Part, TrackedView, button, badge, select, chosen, picks, rebuild } from "./part";

export class Contexts implements Part {
  private view = new TrackedView("contexts");
  readonly element = this.view.element;
  private list = el("ul", { class: "coherence-contexts", "data-testid": "coherence-contexts" });
  private contextId = el("input", { id: "coherence-context-id", type: "text", autocomplete: "off", spellcheck: "false" });
  private name = el("input", { id: "coherence-context-name", type: "text", autocomplete: "off" });
  private parent = el("select", { id: "coherence-context-parent" });
  private enforcement = select("coherence-context-enforcement", [
    ["greenhouse", "Greenhouse (report only)"],
    ["enforcing", "Enforcing"],
  ], "greenhouse");
  private include = el("div", { class: "coherence-claim-picks" });
  private exclude = el("div", { class: "coherence-claim-picks" });

  constructor(private panel: Panel) {
    this.enforcement.id = "coherence-context-enforcement";
    const form = el(
      "form",
      { class: "coherence-form", id: "coherence-context-form", novalidate: "" },
      el("h3", {}, "Create or replace a context"),
      el("label", { for: "coherence-context-id" }, "Id (letters, digits, . _ -)"),
      this.contextId,
      el("label", { for: "coherence-context-name" }, "Name"),
      this.name,
      el("label", { for: "coherence-context-parent" }, "Parent"),
      this.parent,
      el("label", { for: "coherence-context-enforcement" }, "Enforcement"),
      this.enforcement,
      el("fieldset", {}, el("legend", {}, "Include claims"), this.include),
      el("fieldset", {}, el("legend", {}, "Exclude claims"), this.exclude),
      el("button", { type: "submit", id: "coherence-context-save" }, "Save context"),
    );
    form.addEventListener("submit", (event) => {
      event.preventDefault();
      void act(() => this.save());
    });
    this.view.content.append(this.list, form);
  }

  async show(overview: Overview): Promise<void> {
    if (!this.view.show(overview)) return;
    const [{ contexts }, { claims }] = await Promise.all([
      this.panel.channel.request("coherence.contexts", {}),
      this.panel.channel.request("coherence.claims", {}),
    ]);
    rebuild(this.list, contexts.map((c) => this.item(c)));
    this.list.dataset.count = String(contexts.length);
    const parent = this.parent.value || "default";
    this.parent.replaceChildren(...contexts.map((c) => el("option", { value: c.id }, c.id === c.name ? c.id : `${c.name} (${c.id})`)));
    this.parent.value = contexts.some((c) => c.id === parent) ? parent : "default";
    picks(this.include, "include", claims);
    picks(this.exclude, "exclude", claims);
  }

  private item(context: Context): HTMLElement {
    const item = el(
      "li",
      { class: "coherence-context", "data-context-id": context.id, "data-errors": String(context.errors.length) },
      el(
        "div",
        { class: "coherence-item-head" },
        el("strong", {}, context.name),
        ...(context.name === context.id ? [] : [el("code", {}, context.id)]),
        badge("coherence-enforcement", context.enforcement, context.enforcement),
      ),
      el(
        "div",
        { class: "hint" },
        `${context.parent === null ? "no parent" : `parent ${context.parent}`} · ${context.visibleClaims} visible claim${context.visibleClaims === 1 ? "" : "s"}`,
      ),
    );
    if (context.errors.length) {
      item.append(el("ul", { class: "coherence-context-errors", role: "alert" }, ...context.errors.map((e) => el("li", {}, e))));
    }
    if (context.id !== "default") {
      const edit = button("coherence-context-edit", "Edit");
      edit.addEventListener("click", () => this.edit(context));
      const remove = button("coherence-context-delete", "Delete");
      remove.addEventListener("click", () =>
        void act(async () => {
          if (!window.confirm(`Delete the context ${context.id}?`)) return;
          await this.panel.channel.request("coherence.context_delete", { id: context.id });
          await this.panel.reload();
        }),
      );
      item.append(el("div", { class: "coherence-actions" }, edit, remove));
    }
    return item;
  }

  /** The form takes the context's fields; its include / exclude lists are not listed, so they start empty. */
  private edit(context: Context): void {
    this.contextId.value = context.id;
    this.name.value = context.name;
    this.parent.value = context.parent ?? "default";
    this.enforcement.value = context.enforcement;
    for (const box of this.element.querySelectorAll<HTMLInputElement>(".coherence-claim-picks input")) box.checked = false;
    this.name.focus();
  }

  private async save(): Promise<void> {
    const checked = (box: HTMLElement): string[] =>
      [...box.querySelectorAll<HTMLInputElement>("input:checked")].map((input) => input.value);
    await this.panel.channel.request("coherence.context_save", {
      id: this.contextId.value.trim(),
      name: this.name.value,
      parent: this.parent.value === "default" ? null : this.parent.value,
      enforcement: chosen<ContextSavePayload["enforcement"]>(this.enforcement),
      include: checked(this.include),
      exclude: checked(this.exclude),
    });
    toast(`Saved the context ${this.contextId.value.trim()}`);
    await this.panel.reload();
  }
}
