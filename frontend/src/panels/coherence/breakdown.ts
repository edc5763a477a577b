// The Coherence panel's Breakdown: provenance tracking switched on or off, and what went stale, grouped by
// the derived document, with accept newer, revise (the upstream's change since the pin) and waive.
import { act, el, toast } from "../../shared/dom";
import { type DiffLine, lineDiff } from "../../shared/linediff";
import type {
  CoherenceOverview as Overview,
  Edge,
  IdentitiesAdded,
  ResolvePayload,
} from "../../wire.gen";
import { type Panel, type Part, edgeKey, button, badge, counter, revision, select, rebuild } from "./part";

function identitiesMessage(done: IdentitiesAdded): string {
  const files = (n: number) => (n === 1 ? "1 file" : `${n} files`);
  if (done.added.length === 0 && done.skipped.length === 0) return "Every tracked file already has its id";
  const added = `Added an id to ${files(done.added.length)}`;
  if (done.skipped.length === 0) return added;
  return `${added}; ${files(done.skipped.length)} left for their next save (unsaved changes or changed meanwhile)`;
}

/** Edge states in words; the raw state stays in the badge's title and `data-state`. */
const STATE_LABELS: Record<string, string> = {
  "version-stale": "Upstream changed",
  "stale-valid": "Upstream changed, still consistent",
  "stale-contradicted": "Upstream changed, contradicted",
  "stale-unknown": "Upstream changed, check inconclusive",
  waived: "Waived",
  diverged: "Diverged",
  "diverged-multi-head": "Diverged (several heads)",
  unpinnable: "Pinned revision lost",
};

/** A person's waiver may last forever (a delegation never does). */
const WAIVER_EXPIRIES: [string, string][] = [
  ["never", "Never"],
  ["1", "1 day"],
  ["7", "7 days"],
  ["30", "30 days"],
];

const DAY_MS = 86_400_000;

/** A waiver being written: what was typed and chosen, and why it was refused. */
interface WaiverDraft {
  reason: string;
  expiry: string;
  error: string;
}

/** What "Revise" shows: the upstream's change since the pin, or why it cannot be shown. */
type Change = DiffLine[] | string;

export class Breakdown implements Part {
  readonly element = el("section", { class: "coherence-view", "data-view": "breakdown" });
  private off = el("div", { class: "coherence-off", "data-testid": "coherence-off" });
  private on = el("div", { class: "coherence-on" });
  private counters = el("p", { class: "coherence-counters", "data-testid": "coherence-counters" });
  private duplicates = el("div", { class: "coherence-duplicates", role: "alert", "data-testid": "coherence-duplicates" });
  private groups = el("div", { class: "coherence-groups", "data-testid": "coherence-groups" });
  private overview: Overview | null = null;
  private shown = "";
  private waivers = new Map<string, WaiverDraft>();
  private changes = new Map<string, Change>();

  constructor(private panel: Panel) {
    const start = el("button", { id: "coherence-init", type: "button" }, "Track provenance in this workspace");
    start.addEventListener("click", () =>
      void act(async () => {
        await this.panel.channel.request("coherence.init", {});
        toast("Provenance tracking is on for this workspace");
        await this.panel.reload();
      }),
    );
    this.off.append(
      el(
        "p",
        {},
        "Provenance is not tracked here. Switched on, VMark records which documents were written from which " +
          "(by you or an agent), and shows here when a source changed after something was derived from it.",
      ),
      el(
        "p",
        { class: "hint" },
        "This creates a .vmark folder in the workspace; no file is changed. Each Markdown file gets an id in its " +
          "front matter when you save it, or when you choose Add identities.",
      ),
      start,
    );
    const identities = el("button", { id: "coherence-add-identities", type: "button" }, "Add identities");
    identities.title =
      "Write each tracked Markdown file's id into its front matter, so a rename or a copy by another program " +
      "keeps it. Files open with unsaved changes are left alone.";
    identities.addEventListener("click", () =>
      void act(async () => {
        const done = await this.panel.channel.request("coherence.add_identities", {});
        toast(identitiesMessage(done));
        await this.panel.reload();
      }),
    );
    const tools = el("p", { class: "coherence-tools" }, identities);
    this.on.append(this.counters, tools, this.duplicates, this.groups);
    this.element.append(this.off, this.on);
  }

  async show(overview: Overview): Promise<void> {
    const { status } = overview;
    this.off.hidden = status.initialized;
    this.on.hidden = !status.initialized;
    this.counters.replaceChildren(
      counter("objects", status.objects, "document tracked", "documents tracked"),
      status.open_items === 0
        ? counter("open", 0, "", "", "Nothing to resolve")
        : counter("open", status.open_items, "thing to resolve", "things to resolve"),
      status.quarantined === 0
        ? counter("quarantined", 0, "", "", "Ledger intact")
        : counter("quarantined", status.quarantined, "damaged ledger line set aside", "damaged ledger lines set aside"),
    );
    const duplicates = status.duplicates ?? [];
    this.duplicates.hidden = duplicates.length === 0;
    this.duplicates.replaceChildren(
      el("p", {}, "These files share one id (a copied file?): give the copy a new id by removing its vmark front matter."),
      el(
        "ul",
        {},
        ...duplicates.map((d) =>
          el("li", { class: "coherence-duplicate", "data-object": d.object }, el("code", {}, d.object), `: ${d.paths.join(", ")}`),
        ),
      ),
    );
    const listing = JSON.stringify([overview.workspaceRoot, overview.edges]);
    if (listing === this.shown) return;
    this.shown = listing;
    this.overview = overview;
    const live = new Set(overview.edges.map(edgeKey));
    for (const drafts of [this.waivers, this.changes]) for (const key of drafts.keys()) if (!live.has(key)) drafts.delete(key);
    this.renderEdges();
  }

  private renderEdges(): void {
    const overview = this.overview;
    if (!overview) return;
    const byDownstream = new Map<string, Edge[]>();
    for (const edge of overview.edges) {
      const path = edge.downstream_path ?? "";
      byDownstream.set(path, [...(byDownstream.get(path) ?? []), edge]);
    }
    const groups = [...byDownstream.keys()].sort().map((path) =>
      el(
        "section",
        { class: "coherence-group", "data-downstream": path },
        el("h3", { title: path || "the derived document's file is missing" }, path || "(missing document)"),
        el("ul", { class: "coherence-items" }, ...(byDownstream.get(path) ?? []).map((e) => this.item(e, overview.workspaceRoot))),
      ),
    );
    if (groups.length === 0) {
      groups.push(el("p", { class: "hint coherence-empty" }, "Nothing to resolve: every derived document is up to date."));
    }
    rebuild(this.groups, groups);
    this.groups.dataset.count = String(overview.edges.length);
  }

  private item(edge: Edge, root: string): HTMLElement {
    const key = edgeKey(edge);
    const item = el(
      "li",
      {
        class: "coherence-item",
        "data-txf": edge.txf,
        "data-input": String(edge.input),
        "data-state": edge.state,
        "data-upstream": edge.upstream_path ?? "",
      },
      el(
        "div",
        { class: "coherence-item-head" },
        el("span", { class: "coherence-upstream", title: edge.upstream }, edge.upstream_path ?? "(missing source)"),
        badge("coherence-state", edge.state, STATE_LABELS[edge.state] ?? edge.state),
      ),
      el("div", { class: "coherence-pin hint" }, "derived from revision ", revision(edge.pinned)),
    );
    const accept = button("coherence-accept", "Accept newer", "Mark the document as up to date with the changed source");
    accept.addEventListener("click", () => void act(() => this.accept(edge)));
    const revise = button("coherence-revise", "Revise", "Open the document and show what changed in its source");
    revise.addEventListener("click", () => void act(() => this.revise(edge, root)));
    const waive = button("coherence-waive", "Waive", "Keep the document as it is, with a reason");
    waive.setAttribute("aria-expanded", String(this.waivers.has(key)));
    waive.addEventListener("click", () => {
      if (this.waivers.has(key)) this.waivers.delete(key);
      else this.waivers.set(key, { reason: "", expiry: "never", error: "" });
      this.renderEdges();
      this.focus(`waive-reason:${key}`);
    });
    item.append(el("div", { class: "coherence-actions" }, accept, revise, waive));
    const draft = this.waivers.get(key);
    if (draft) item.append(this.waiverForm(edge, draft));
    const change = this.changes.get(key);
    if (change !== undefined) item.append(this.changeView(edge, change));
    return item;
  }

  private focus(name: string): void {
    this.groups.querySelector<HTMLElement>(`[data-focus="${CSS.escape(name)}"]`)?.focus();
  }

  private async accept(edge: Edge): Promise<void> {
    await this.panel.channel.request("coherence.resolve", { txf: edge.txf, input: edge.input, resolution: "accept-newer" });
    toast(`${edge.downstream_path ?? "The document"} is up to date with ${edge.upstream_path ?? "its source"} again`);
    await this.panel.reload();
  }

  private async revise(edge: Edge, root: string): Promise<void> {
    if (edge.downstream_path) await this.panel.openDocument(`${root}/${edge.downstream_path}`);
    const texts = await this.panel.channel.request("coherence.diff", { txf: edge.txf, input: edge.input });
    this.changes.set(
      edgeKey(edge),
      texts.pinned_text === null || texts.current_text === null
        ? "The source's text at the pinned revision is not available, so its change cannot be shown."
        : lineDiff(texts.pinned_text, texts.current_text),
    );
    this.renderEdges();
  }

  private changeView(edge: Edge, change: Change): HTMLElement {
    const key = edgeKey(edge);
    const hide = button("coherence-hide-change", "Hide changes");
    hide.addEventListener("click", () => {
      this.changes.delete(key);
      this.renderEdges();
    });
    const body =
      typeof change === "string"
        ? el("p", { class: "hint" }, change)
        : el(
            "div",
            { class: "diff coherence-diff-lines", "data-state": "changed" },
            ...(change.every((l) => l.kind === "same")
              ? [el("p", { class: "hint" }, "No differences in the text.")]
              : change.map((l) => el("div", { class: `diff-line ${l.kind}` }, l.text))),
          );
    return el(
      "div",
      { class: "coherence-change", "data-testid": "coherence-change" },
      el("p", { class: "hint" }, `What changed in ${edge.upstream_path ?? "the source"} since the pinned revision:`),
      body,
      el("div", { class: "coherence-actions" }, hide),
    );
  }

  private waiverForm(edge: Edge, draft: WaiverDraft): HTMLElement {
    const key = edgeKey(edge);
    const reason = el("input", {
      type: "text",
      class: "coherence-waive-reason",
      "aria-required": "true",
      autocomplete: "off",
      "data-focus": `waive-reason:${key}`,
    });
    reason.value = draft.reason;
    reason.addEventListener("input", () => (draft.reason = reason.value));
    const expiry = select("coherence-waive-expiry", WAIVER_EXPIRIES, draft.expiry, `waive-expiry:${key}`);
    expiry.addEventListener("change", () => (draft.expiry = expiry.value));
    const error = el("p", { class: "coherence-error", role: "alert" }, draft.error);
    error.hidden = draft.error === "";
    const cancel = button("coherence-waive-cancel", "Cancel");
    cancel.addEventListener("click", () => {
      this.waivers.delete(key);
      this.renderEdges();
    });
    const form = el(
      "form",
      { class: "coherence-waive-form", novalidate: "" },
      el("label", {}, "Reason (required)", reason),
      el("label", {}, "Waiver expires", expiry),
      error,
      el("div", { class: "coherence-actions" }, cancel, el("button", { type: "submit", class: "coherence-waive-confirm" }, "Waive")),
    );
    form.addEventListener("submit", (event) => {
      event.preventDefault();
      if (draft.reason.trim() === "") {
        draft.error = "A waiver needs a reason.";
        this.renderEdges();
        this.focus(`waive-reason:${key}`);
        return;
      }
      void act(() => this.waive(edge, draft));
    });
    return form;
  }

  private async waive(edge: Edge, draft: WaiverDraft): Promise<void> {
    const payload: ResolvePayload = { txf: edge.txf, input: edge.input, resolution: "waive", reason: draft.reason };
    if (draft.expiry !== "never") payload.expires = new Date(Date.now() + Number(draft.expiry) * DAY_MS).toISOString();
    await this.panel.channel.request("coherence.resolve", payload);
    this.waivers.delete(edgeKey(edge));
    await this.panel.reload();
  }
}
