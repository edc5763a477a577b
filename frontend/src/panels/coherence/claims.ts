// The Coherence panel's Claims: the canon's statements, added, edited and matured by the person.
import { act, el, toast } from "../../shared/dom";
import type {
  Claim,
  ClaimAddPayload,
  ClaimUpdatePayload,
  CoherenceOverview as Overview,
  Maturity,
} from "../../wire.gen";
import { type Panel, type Part, TrackedView, button, badge, chosen, maturitySelect, rebuild } from "./part";

export class Claims implements Part {
  private view = new TrackedView("claims");
  readonly element = this.view.element;
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
    this.view.content.append(this.list, form);
  }

  async show(overview: Overview): Promise<void> {
    if (!this.view.show(overview)) return;
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
