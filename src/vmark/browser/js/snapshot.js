// The ARIA-oriented read: a flat list of {role, name, ref} nodes in document (flat tree) order.
(() => {
  'use strict';
  const V = globalThis.__vmark;
  const MAX_NODES = LIMITS.SNAPSHOT_MAX_NODES;

  // Elements the walk could not enter (custom elements without an open shadow root) stay here
  // until the driver asks which of them carry a closed root (only CDP can tell).
  /** @type {Element[]} */
  let hosts = [];
  /**
   * @typedef {{role: string, name: string, ref: Ref, level?: number, checked?: boolean | 'mixed',
   *   disabled?: true, upload?: true}} SnapshotNode
   */

  V.snapshot = function snapshot() {
    /** @type {SnapshotNode[]} */
    const nodes = [];
    let truncated = false;
    /** @type {WalkFound} */
    const found = { frames: [], hosts: [], mark: () => nodes.length };
    V.walk((el, ctx) => {
      if (el.getAttribute('aria-hidden') === 'true') return false;
      const cs = V.style(el);
      if (cs.display === 'none') return false;
      const inert = ctx.inert || /** @type {HTMLElement} */ (el).inert;
      const ariaDisabled = ctx.ariaDisabled || el.getAttribute('aria-disabled') === 'true';
      const next = inert !== ctx.inert || ariaDisabled !== ctx.ariaDisabled ? { inert, ariaDisabled } : ctx;
      const role = V.roleOf(el);
      if (!role || cs.visibility === 'hidden' || cs.visibility === 'collapse') return next;
      // a skipped subtree (content-visibility: hidden, e.g. the content of a closed <details>);
      // the options of a drop-down <select> have no box but are what it offers
      if (cs.display !== 'contents' && role !== 'option' && !el.checkVisibility()) return false;
      if (nodes.length >= MAX_NODES) {
        truncated = true;
        return 'stop';
      }
      let name = V.nameOf(el, role, false);
      if (name.length > V.NAME_LIMIT) {
        name = name.slice(0, V.NAME_LIMIT);
        truncated = true;
      }
      /** @type {SnapshotNode} */
      const node = { role, name, ref: V.refOf(el) };
      if (role === 'heading') node.level = V.headingLevel(el);
      const checked = V.checkedOf(el, role);
      if (checked !== undefined) node.checked = checked;
      if (inert || ariaDisabled || el.matches(':disabled')) node.disabled = true;
      if (el.localName === 'input' && /** @type {HTMLInputElement} */ (el).type === 'file') node.upload = true;
      nodes.push(node);
      return next;
    }, found);
    hosts = found.hosts;
    /** @type {{snapshot: SnapshotNode[], frames: WalkFound['frames'], hosts: number, truncated?: true}} */
    const result = { snapshot: nodes, frames: found.frames, hosts: hosts.length };
    if (truncated) result.truncated = true;
    return result;
  };

  // The custom elements of the last snapshot that had no open shadow root (for the driver's
  // closed-root check through CDP); returned as live objects, not by value.
  V.snapshotHosts = function snapshotHosts(limit) {
    return hosts.slice(0, limit);
  };
})();
