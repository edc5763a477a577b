// The Coherence panel of the window's active workspace: the switch that turns provenance tracking on,
// the breakdown of what went stale (grouped by the derived document, with accept newer / revise /
// waive), the delegations the person grants agents, and the canon's claims and contexts. The app
// names the workspace (a page cannot); the panel loads again on the app's `coherence` event and
// after each action, and every refusal shows as a toast.
import { act, byId, el, toast } from "./dom";
import { type DiffLine, lineDiff } from "./linediff";
import { type Channel, errorText } from "./protocol";
import type {
  Claim,
  ClaimAddPayload,
  ClaimUpdatePayload,
  CoherenceOverview as Overview,
  Context,
  Delegation as Grant,
  DelegationGrantPayload,
  Edge,
  IdentitiesAdded,
  ContextSavePayload,
  Maturity,
  ResolvePayload,
  Resolution,
} from "./wire.gen";

function identitiesMessage(done: IdentitiesAdded): string {
  const files = (n: number) => (n === 1 ? "1 file" : `${n} files`);
  if (done.added.length === 0 && done.skipped.length === 0) return "Every tracked file already has its id";
  const added = `Added an id to ${files(done.added.length)}`;
  if (done.skipped.length === 0) return added;
  return `${added}; ${files(done.skipped.length)} left for their next save (unsaved changes or changed meanwhile)`;
}

type View = "breakdown" | "delegations" | "claims" | "contexts";

/** What the panel's parts need of it. */
interface Panel {
  channel: Channel;
  /** Load the panel again: after an action the app's answer, not a guess, is what shows. */
  reload(): Promise<void>;
  /** Open a document in a tab and show it. */
  openDocument(path: string): Promise<void>;
}

interface Part {
  readonly element: HTMLElement;
  show(overview: Overview): Promise<void>;
}

const VIEWS: [View, string][] = [
  ["breakdown", "Breakdown"],
  ["delegations", "Delegations"],
  ["claims", "Claims"],
  ["contexts", "Contexts"],
];

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

const SCOPES: [Resolution, string][] = [
  ["accept-newer", "Accept newer"],
  ["waive", "Waive"],
];

/** A person's waiver may last forever; a delegation never does (7 days unless chosen). */
const WAIVER_EXPIRIES: [string, string][] = [
  ["never", "Never"],
  ["1", "1 day"],
  ["7", "7 days"],
  ["30", "30 days"],
];
const GRANT_EXPIRIES: [string, string][] = [
  ["1d", "1 day"],
  ["7d", "7 days"],
  ["30d", "30 days"],
  ["90d", "90 days"],
];
const DEFAULT_GRANT_EXPIRY = "7d";
const DAY_MS = 86_400_000;
/** Events come in bursts (a save, then its recording): the panel loads once they settle. */
const REFRESH_MS = 150;
const NOT_TRACKED = "Provenance is not tracked in this workspace: switch it on in Breakdown first.";

export class CoherencePanel {
  private toggleButton = el(
    "button",
    { id: "coherence-toggle", type: "button", title: "What derived documents went stale, and why", "aria-pressed": "false" },
    "Coherence",
  );
  private panel = el("aside", {
    id: "coherence",
    class: "coherence-panel",
    "data-testid": "coherence",
    "aria-labelledby": "coherence-title",
    hidden: "",
  });
  private rootLine = el("p", { id: "coherence-root", class: "hint coherence-root" });
  private message = el("p", { id: "coherence-message", class: "coherence-error", role: "status", hidden: "" });
  /** The views: hidden while the app cannot say anything about the window's workspace. */
  private body = el("div", { class: "coherence-body", hidden: "" });
  private tabs = new Map<View, HTMLButtonElement>();
  private parts: Record<View, Part>;
  private view: View = "breakdown";
  private timer: number | undefined;
  private loading: Promise<void> = Promise.resolve();

  constructor(
    private channel: Channel,
    openDocument: (path: string) => Promise<void>,
  ) {
    const panel: Panel = { channel, reload: () => this.load(), openDocument };
    this.parts = {
      breakdown: new Breakdown(panel),
      delegations: new Delegations(panel),
      claims: new Claims(panel),
      contexts: new Contexts(panel),
    };
    const refresh = el("button", { id: "coherence-refresh", type: "button", title: "Scan the workspace again" }, "Refresh");
    refresh.addEventListener("click", () => void act(() => this.load()));
    const tablist = el("div", { class: "coherence-tabs", role: "tablist", "aria-label": "Coherence views" });
    for (const [view, label] of VIEWS) {
      const tab = el(
        "button",
        { id: `coherence-tab-${view}`, type: "button", role: "tab", "aria-controls": `coherence-view-${view}` },
        label,
      );
      tab.addEventListener("click", () => this.select(view));
      this.tabs.set(view, tab);
      tablist.append(tab);
      const part = this.parts[view].element;
      part.id = `coherence-view-${view}`;
      part.setAttribute("role", "tabpanel");
      part.setAttribute("aria-labelledby", tab.id);
    }
    this.body.append(tablist, ...VIEWS.map(([view]) => this.parts[view].element));
    this.panel.append(
      el("div", { class: "coherence-head" }, el("h2", { id: "coherence-title" }, "Coherence"), refresh),
      this.rootLine,
      this.message,
      this.body,
    );
    this.select("breakdown");
    this.toggleButton.addEventListener("click", () => this.toggle());
    byId("comments-toggle").after(this.toggleButton);
    byId("comments").after(this.panel);
  }

  /** Something in the coherence layer moved (the app's `coherence` event): load again shortly. */
  refresh(): void {
    if (this.panel.hidden) return;
    window.clearTimeout(this.timer);
    // In the background: a failure shows in the panel, not as a toast at every event.
    this.timer = window.setTimeout(() => void this.load().catch(() => {}), REFRESH_MS);
  }

  private toggle(): void {
    this.panel.hidden = !this.panel.hidden;
    this.toggleButton.setAttribute("aria-pressed", String(!this.panel.hidden));
    if (!this.panel.hidden) this.refresh();
  }

  private select(view: View): void {
    this.view = view;
    for (const [name, tab] of this.tabs) {
      tab.setAttribute("aria-selected", String(name === view));
      this.parts[name].element.hidden = name !== view;
    }
    this.refresh();
  }

  /** One load at a time, in order: a later one always shows the later state. */
  private load(): Promise<void> {
    const run = this.loading.then(() => this.render());
    this.loading = run.catch(() => {});
    return run;
  }

  private async render(): Promise<void> {
    let overview: Overview;
    try {
      overview = await this.channel.request("coherence.overview", {});
    } catch (err) {
      this.body.hidden = true;
      this.rootLine.textContent = "";
      this.showMessage(`Coherence unavailable: ${errorText(err)}`);
      throw err;
    }
    this.body.hidden = false;
    this.showMessage("");
    this.rootLine.textContent = overview.workspaceRoot;
    this.rootLine.title = overview.workspaceRoot;
    try {
      await this.parts[this.view].show(overview);
    } catch (err) {
      this.showMessage(errorText(err));
      throw err;
    }
  }

  private showMessage(text: string): void {
    this.message.textContent = text;
    this.message.hidden = text === "";
  }
}

// --- the breakdown ------------------------------------------------------------------------------------

/** A waiver being written: what was typed and chosen, and why it was refused. */
interface WaiverDraft {
  reason: string;
  expiry: string;
  error: string;
}

/** What "Revise" shows: the upstream's change since the pin, or why it cannot be shown. */
type Change = DiffLine[] | string;

class Breakdown implements Part {
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

// --- delegations ----------------------------------------------------------------------------------------

class Delegations implements Part {
  readonly element = el("section", { class: "coherence-view", "data-view": "delegations" });
  private list = el("ul", { class: "coherence-grants", "data-testid": "coherence-grants" });
  private principal = el("select", { id: "coherence-grant-principal" });
  private scopes = SCOPES.map(([value]) => el("input", { type: "checkbox", class: "coherence-grant-scope", value }));
  private expiry = select("coherence-grant-expiry", GRANT_EXPIRIES, DEFAULT_GRANT_EXPIRY);
  private onlyHere = el("input", { type: "checkbox", id: "coherence-grant-workspace" });
  private error = el("p", { class: "coherence-error", role: "alert", hidden: "" });
  private noPrincipals = el("p", { class: "hint", hidden: "" }, "No agent has a name yet: create a client token first (vmark principals).");
  private root: string | null = null;

  constructor(private panel: Panel) {
    this.expiry.id = "coherence-grant-expiry";
    const form = el(
      "form",
      { class: "coherence-form", id: "coherence-grant-form", novalidate: "" },
      el("h3", {}, "Let an agent resolve"),
      el("label", { for: "coherence-grant-principal" }, "Agent (principal)"),
      this.principal,
      this.noPrincipals,
      el(
        "fieldset",
        {},
        el("legend", {}, "It may"),
        ...SCOPES.map(([, label], i) => el("label", { class: "coherence-check" }, this.scopes[i], label)),
      ),
      el("label", { for: "coherence-grant-expiry" }, "Expires after"),
      this.expiry,
      el("label", { class: "coherence-check" }, this.onlyHere, "Only in this workspace"),
      this.error,
      el("button", { type: "submit", id: "coherence-grant" }, "Grant"),
    );
    form.addEventListener("submit", (event) => {
      event.preventDefault();
      this.submit();
    });
    this.element.append(
      el("p", { class: "hint" }, "A delegation lets one agent accept newer sources or waive, until it expires or you revoke it."),
      this.list,
      form,
    );
  }

  async show(overview: Overview): Promise<void> {
    this.root = overview.workspaceRoot;
    const { grants, principals } = await this.panel.channel.request("delegations.list", {});
    const chosen = this.principal.value;
    this.principal.replaceChildren(...principals.map((name) => el("option", { value: name }, name)));
    if (principals.includes(chosen)) this.principal.value = chosen;
    this.principal.disabled = principals.length === 0;
    this.noPrincipals.hidden = principals.length > 0;
    const items = grants.map((g) => this.item(g));
    rebuild(this.list, items.length ? items : [el("li", { class: "hint" }, "No delegations.")]);
    this.list.dataset.count = String(grants.length);
  }

  private item(grant: Grant): HTMLElement {
    const scope = grant.scope.map((s) => SCOPES.find(([value]) => value === s)?.[1] ?? s).join(", ");
    const item = el(
      "li",
      { class: "coherence-grant", "data-grant-id": grant.id, "data-state": grant.state, "data-principal": grant.principal },
      el(
        "div",
        { class: "coherence-item-head" },
        el("strong", {}, grant.principal),
        badge("coherence-grant-state", grant.state, grant.state),
      ),
      el("div", { class: "hint" }, `${scope} · ${grant.workspace ?? "every workspace"}`),
      el(
        "div",
        { class: "hint coherence-expiry" },
        grant.revoked === null ? `expires ${formatTime(grant.expires)}` : `revoked ${formatTime(grant.revoked)}`,
      ),
    );
    if (grant.state === "live") {
      const revoke = button("coherence-revoke", "Revoke");
      revoke.addEventListener("click", () =>
        void act(async () => {
          await this.panel.channel.request("delegations.revoke", { id: grant.id });
          await this.panel.reload();
        }),
      );
      item.append(el("div", { class: "coherence-actions" }, revoke));
    }
    return item;
  }

  private submit(): void {
    const scope = SCOPES.filter((_, i) => this.scopes[i].checked).map(([value]) => value);
    const problem =
      this.principal.value === "" ? "Choose an agent." : scope.length === 0 ? "Choose at least one thing it may do." : "";
    this.error.textContent = problem;
    this.error.hidden = problem === "";
    if (problem) return;
    const payload: DelegationGrantPayload = { principal: this.principal.value, scope, expires: this.expiry.value };
    if (this.onlyHere.checked && this.root) payload.workspaceRoot = this.root;
    void act(async () => {
      await this.panel.channel.request("delegations.grant", payload);
      for (const box of this.scopes) box.checked = false;
      this.onlyHere.checked = false;
      await this.panel.reload();
    });
  }
}

// --- claims -------------------------------------------------------------------------------------------

class Claims implements Part {
  readonly element = el("section", { class: "coherence-view", "data-view": "claims" });
  private off = el("p", { class: "hint" }, NOT_TRACKED);
  private on = el("div", {});
  private list = el("ul", { class: "coherence-claims", "data-testid": "coherence-claims" });
  private statement = el("textarea", { id: "coherence-claim-statement", rows: "2" });
  private maturity = maturitySelect("coherence-claim-maturity");
  private error = el("p", { class: "coherence-error", role: "alert", hidden: "" });
  /** Replacements being written, by the claim they supersede. */
  private superseding = new Map<string, { statement: string; maturity: Maturity }>();
  private claims: Claim[] = [];

  constructor(private panel: Panel) {
    const form = el(
      "form",
      { class: "coherence-form", id: "coherence-claim-form", novalidate: "" },
      el("h3", {}, "Add a claim"),
      el("label", { for: "coherence-claim-statement" }, "Statement"),
      this.statement,
      el("label", { for: "coherence-claim-maturity" }, "Maturity"),
      this.maturity,
      this.error,
      el("button", { type: "submit", id: "coherence-claim-add" }, "Add claim"),
    );
    form.addEventListener("submit", (event) => {
      event.preventDefault();
      const statement = this.statement.value;
      this.error.textContent = statement.trim() === "" ? "Write the statement first." : "";
      this.error.hidden = statement.trim() !== "";
      if (statement.trim() === "") return;
      void act(async () => {
        await this.add({ statement, maturity: chosen<Maturity>(this.maturity) });
        this.statement.value = "";
      });
    });
    this.on.append(this.list, form);
    this.element.append(this.off, this.on);
  }

  async show(overview: Overview): Promise<void> {
    this.off.hidden = overview.status.initialized;
    this.on.hidden = !overview.status.initialized;
    if (!overview.status.initialized) return;
    this.claims = (await this.panel.channel.request("coherence.claims", {})).claims;
    for (const key of this.superseding.keys()) if (!this.claims.some((c) => c.claim === key)) this.superseding.delete(key);
    this.render();
  }

  private render(): void {
    const items = this.claims.map((c) => this.item(c));
    rebuild(this.list, items.length ? items : [el("li", { class: "hint" }, "No claims yet.")]);
    this.list.dataset.count = String(this.claims.length);
  }

  private item(claim: Claim): HTMLElement {
    const item = el(
      "li",
      {
        class: "coherence-claim",
        "data-claim": claim.claim,
        "data-maturity": claim.maturity,
        "data-visible": String(claim.visible),
      },
      el("p", { class: "coherence-statement" }, claim.statement),
      el(
        "div",
        { class: "coherence-item-head" },
        badge("coherence-maturity", claim.maturity, claim.maturity === "established" ? "Established" : "Draft"),
        ...(claim.invalidAt ? [el("span", { class: "hint coherence-invalid-at" }, `invalid from ${claim.invalidAt}`)] : []),
        ...(claim.visible ? [] : [el("span", { class: "hint coherence-hidden" }, "not visible")]),
      ),
    );
    const actions = el("div", { class: "coherence-actions" });
    if (claim.maturity !== "established") {
      const establish = button("coherence-establish", "Establish");
      establish.addEventListener("click", () => void act(() => this.update(claim, { maturity: "established" })));
      actions.append(establish);
    }
    if (claim.invalidAt === null || Date.parse(claim.invalidAt) > Date.now()) {
      const invalidate = button("coherence-invalidate", "Invalidate now");
      invalidate.addEventListener("click", () => void act(() => this.update(claim, { invalidAt: new Date().toISOString() })));
      actions.append(invalidate);
    }
    const supersede = button("coherence-supersede", "Supersede");
    supersede.setAttribute("aria-expanded", String(this.superseding.has(claim.claim)));
    supersede.addEventListener("click", () => {
      if (this.superseding.has(claim.claim)) this.superseding.delete(claim.claim);
      else this.superseding.set(claim.claim, { statement: claim.statement, maturity: claim.maturity });
      this.render();
    });
    actions.append(supersede);
    item.append(actions);
    const draft = this.superseding.get(claim.claim);
    if (draft) item.append(this.supersedeForm(claim, draft));
    return item;
  }

  private supersedeForm(claim: Claim, draft: { statement: string; maturity: Maturity }): HTMLElement {
    const statement = el("textarea", { class: "coherence-supersede-statement", rows: "2", "data-focus": `supersede:${claim.claim}` });
    statement.value = draft.statement;
    statement.addEventListener("input", () => (draft.statement = statement.value));
    const maturity = maturitySelect("", draft.maturity);
    maturity.addEventListener("change", () => (draft.maturity = chosen<Maturity>(maturity)));
    const form = el(
      "form",
      { class: "coherence-supersede-form", novalidate: "" },
      el("label", {}, "Replacement statement", statement),
      el("label", {}, "Maturity", maturity),
      el("button", { type: "submit", class: "coherence-supersede-confirm" }, "Add replacement"),
    );
    form.addEventListener("submit", (event) => {
      event.preventDefault();
      if (draft.statement.trim() === "") {
        toast("Write the replacement statement first", "warning");
        return;
      }
      void act(async () => {
        await this.add({ statement: draft.statement, maturity: draft.maturity, supersedes: claim.claim });
        this.superseding.delete(claim.claim);
        this.render();
      });
    });
    return form;
  }

  private async add(claim: ClaimAddPayload): Promise<void> {
    await this.panel.channel.request("coherence.claim_add", claim);
    await this.panel.reload();
  }

  private async update(claim: Claim, changes: Omit<ClaimUpdatePayload, "claim">): Promise<void> {
    await this.panel.channel.request("coherence.claim_update", { claim: claim.claim, ...changes });
    await this.panel.reload();
  }
}

// --- contexts ---------------------------------------------------------------------------------------------

class Contexts implements Part {
  readonly element = el("section", { class: "coherence-view", "data-view": "contexts" });
  private off = el("p", { class: "hint" }, NOT_TRACKED);
  private on = el("div", {});
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
    this.on.append(this.list, form);
    this.element.append(this.off, this.on);
  }

  async show(overview: Overview): Promise<void> {
    this.off.hidden = overview.status.initialized;
    this.on.hidden = !overview.status.initialized;
    if (!overview.status.initialized) return;
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

// --- small parts ----------------------------------------------------------------------------------------

function edgeKey(edge: Edge): string {
  return `${edge.txf}:${edge.input}`;
}

function button(cls: string, label: string, title = ""): HTMLButtonElement {
  const b = el("button", { type: "button", class: cls }, label);
  if (title) b.title = title;
  return b;
}

function badge(cls: string, state: string, label: string): HTMLElement {
  return el("span", { class: `coherence-badge ${cls}`, "data-state": state, title: state }, label);
}

function counter(name: string, value: number, one: string, many: string, words?: string): HTMLElement {
  return el("span", { class: "coherence-counter", "data-counter": name, "data-value": String(value) }, words ?? `${value} ${value === 1 ? one : many}`);
}

/** A revision id, shortened for the eye (the whole id in the title). */
function revision(rev: string): HTMLElement {
  const hash = rev.slice(rev.indexOf(":") + 1);
  return el("code", { class: "coherence-rev", title: rev }, hash.slice(0, 10));
}

function select(cls: string, options: [string, string][], value: string, focus = ""): HTMLSelectElement {
  const field = el("select", { class: cls }, ...options.map(([v, label]) => el("option", { value: v }, label)));
  if (focus) field.dataset.focus = focus;
  field.value = value;
  return field;
}

/** A select's value, typed: each select here offers only the values of its type (built with them). */
function chosen<T extends string>(field: HTMLSelectElement): T {
  return field.value as T;
}

function maturitySelect(id: string, value = "draft"): HTMLSelectElement {
  const field = select("coherence-maturity-select", [
    ["draft", "Draft"],
    ["established", "Established"],
  ], value);
  if (id) field.id = id;
  return field;
}

/** One checkbox per claim for a context's include or exclude list; what was ticked stays ticked. */
function picks(box: HTMLElement, list: string, claims: Claim[]): void {
  const ticked = new Set([...box.querySelectorAll<HTMLInputElement>("input:checked")].map((input) => input.value));
  const boxes = claims.map((c) => {
    const input = el("input", { type: "checkbox", value: c.claim, "data-list": list });
    input.checked = ticked.has(c.claim);
    return el("label", { class: "coherence-check", title: c.claim }, input, shorten(c.statement));
  });
  box.replaceChildren(...(boxes.length ? boxes : [el("span", { class: "hint" }, "No claims yet.")]));
}

function shorten(text: string): string {
  const line = text.replace(/\s+/g, " ").trim();
  return line.length > 60 ? `${line.slice(0, 59)}…` : line;
}

/** Epoch seconds as a UTC time to the minute. */
function formatTime(seconds: number): string {
  return `${new Date(seconds * 1000).toISOString().slice(0, 16).replace("T", " ")} UTC`;
}

/** Replace a list's items; the field being typed in (named by `data-focus`) gets the focus back, caret too. */
function rebuild(container: HTMLElement, children: Node[]): void {
  const active = document.activeElement;
  const name = active instanceof HTMLElement && container.contains(active) ? active.dataset.focus : undefined;
  const caret =
    active instanceof HTMLInputElement || active instanceof HTMLTextAreaElement
      ? [active.selectionStart, active.selectionEnd]
      : [null, null];
  container.replaceChildren(...children);
  if (!name) return;
  const again = container.querySelector<HTMLElement>(`[data-focus="${CSS.escape(name)}"]`);
  again?.focus();
  if ((again instanceof HTMLInputElement || again instanceof HTMLTextAreaElement) && caret[0] !== null) {
    again.setSelectionRange(caret[0], caret[1]);
  }
}
