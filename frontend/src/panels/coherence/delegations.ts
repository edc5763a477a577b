// The Coherence panel's Delegations: what the person lets agents resolve on their own, and for how long.
import { act, el } from "../../shared/dom";
import type {
  CoherenceOverview as Overview,
  Delegation as Grant,
  DelegationGrantPayload,
  Resolution,
} from "../../wire.gen";
import { type Panel, type Part, button, badge, select, formatTime, rebuild } from "./part";

const SCOPES: [Resolution, string][] = [
  ["accept-newer", "Accept newer"],
  ["waive", "Waive"],
];

/** A delegation never lasts forever (7 days unless chosen). */
const GRANT_EXPIRIES: [string, string][] = [
  ["1d", "1 day"],
  ["7d", "7 days"],
  ["30d", "30 days"],
  ["90d", "90 days"],
];

const DEFAULT_GRANT_EXPIRY = "7d";

export class Delegations implements Part {
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
