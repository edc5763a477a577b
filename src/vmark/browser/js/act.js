// Locating and verifying the target of an act. The act itself is real input sent by the driver
// (act.py); this side only answers "which element, is it safe to act on, and where".
(() => {
  'use strict';
  const V = globalThis.__vmark;

  // Every element (hidden ones included, so that matchedTotal counts them) with this exact
  // role and accessible name.
  /**
   * @param {string} role
   * @param {unknown} name
   * @returns {Element[]}
   */
  function matches(role, name) {
    const wanted = V.normalize(String(name));
    /** @type {Element[]} */
    const out = [];
    V.walk((el) => {
      if (V.roleOf(el) !== role) return undefined;
      // the name of an element that is not rendered includes its hidden content (accname)
      const hidden = !el.checkVisibility({ visibilityProperty: true });
      if (V.nameOf(el, role, hidden) === wanted) out.push(el);
      return undefined;
    }, null);
    return out;
  }

  /**
   * @typedef {{left: number, top: number, right: number, bottom: number}} Box
   * @param {Document} doc a document shown in a window (the top one or a frame's)
   * @returns {Box}
   */
  function viewportOf(doc) {
    const win = /** @type {Window} */ (doc.defaultView);
    return { left: 0, top: 0, right: win.innerWidth, bottom: win.innerHeight };
  }

  /**
   * @param {Box} a
   * @param {Box} b
   * @returns {Box}
   */
  function intersect(a, b) {
    return {
      left: Math.max(a.left, b.left),
      top: Math.max(a.top, b.top),
      right: Math.min(a.right, b.right),
      bottom: Math.min(a.bottom, b.bottom),
    };
  }

  /** @param {Box} r */
  function empty(r) {
    return r.right - r.left < 1 || r.bottom - r.top < 1;
  }

  // The inner (padding) box of a clipping element in its document's viewport coordinates.
  /**
   * @param {Element} el
   * @returns {Box}
   */
  function clipBox(el) {
    const r = el.getBoundingClientRect();
    const left = r.left + el.clientLeft;
    const top = r.top + el.clientTop;
    return { left, top, right: left + el.clientWidth, bottom: top + el.clientHeight };
  }

  // Where a frame's viewport starts in its parent document's viewport.
  /** @param {Element} frame */
  function frameOrigin(frame) {
    const r = frame.getBoundingClientRect();
    const cs = V.style(frame);
    return {
      x: r.left + frame.clientLeft + parseFloat(cs.paddingLeft),
      y: r.top + frame.clientTop + parseFloat(cs.paddingTop),
    };
  }

  // The part of the element a person can see, in top-level viewport coordinates (clipped by
  // scrolling/overflow ancestors, frames and viewports), or null.
  /**
   * @param {Element} el
   * @returns {Box | null}
   */
  function visibleRect(el) {
    const own = el.getBoundingClientRect();
    let rect = { left: own.left, top: own.top, right: own.right, bottom: own.bottom };
    let node = el;
    let doc = el.ownerDocument;
    for (;;) {
      if (V.style(node).position !== 'fixed') {
        for (let p = V.flatParent(node); p; p = V.flatParent(p)) {
          const cs = V.style(p);
          if (cs.display !== 'contents' && (cs.overflowX !== 'visible' || cs.overflowY !== 'visible')) {
            rect = intersect(rect, clipBox(p));
          }
          if (cs.position === 'fixed') break;
        }
      }
      rect = intersect(rect, viewportOf(doc));
      if (empty(rect)) return null;
      if (doc === document) return rect;
      // a document that is not the top one is a frame's: it has a window and a frame element
      const frame = /** @type {Element} */ (/** @type {Window} */ (doc.defaultView).frameElement);
      const origin = frameOrigin(frame);
      rect = { left: rect.left + origin.x, top: rect.top + origin.y, right: rect.right + origin.x, bottom: rect.bottom + origin.y };
      rect = intersect(rect, clipBox(frame));
      node = frame;
      doc = frame.ownerDocument;
    }
  }

  // elementFromPoint through open shadow roots and same-origin frames (top-level coordinates).
  /**
   * @param {number} x
   * @param {number} y
   * @returns {Element | null}
   */
  function deepHit(x, y) {
    let doc = document;
    let lx = x;
    let ly = y;
    for (;;) {
      let hit = doc.elementFromPoint(lx, ly);
      if (!hit) return null;
      while (hit.shadowRoot) {
        const inner = hit.shadowRoot.elementFromPoint(lx, ly);
        if (!inner || inner === hit) break;
        hit = inner;
      }
      const frame = /** @type {HTMLIFrameElement} */ (hit);
      if ((hit.localName === 'iframe' || hit.localName === 'frame') && frame.contentDocument) {
        const origin = frameOrigin(hit);
        lx -= origin.x;
        ly -= origin.y;
        doc = frame.contentDocument;
        continue;
      }
      return hit;
    }
  }

  /**
   * @param {Element} hit
   * @param {Element} el
   */
  function within(hit, el) {
    /** @type {Element | null} */
    let n = hit;
    for (; n; n = V.composedParent(n)) {
      if (n === el) return true;
      if (n.localName === 'label' && /** @type {HTMLLabelElement} */ (n).control === el) return true;
    }
    return false;
  }

  /** @param {Element} el */
  function kindOf(el) {
    const tag = el.localName;
    if (tag === 'select') return 'select';
    if (tag === 'textarea') return 'text';
    if (tag === 'input') {
      const type = (el.getAttribute('type') || 'text').toLowerCase();
      const text = ['text', 'search', 'email', 'url', 'tel', 'password', 'number', ''].includes(type);
      return text ? 'text' : 'other';
    }
    if (/** @type {HTMLElement} */ (el).isContentEditable) return 'editable';
    return 'other';
  }

  /**
   * @param {string} reason
   * @param {string} detail
   */
  function refusal(reason, detail) {
    return { ok: false, reason, detail };
  }

  // The checks before acting on one element; on success the point to click in top-level
  // viewport coordinates.
  /**
   * @typedef {{ok: boolean, reason?: string, detail?: string, x?: number, y?: number, kind?: string,
   *   matchedTotal?: number, matchedVisible?: number, ref?: Ref}} Prepared
   * @param {Element} el
   * @param {string} op
   * @returns {Prepared}
   */
  function verify(el, op) {
    if (el.localName === 'input' && /** @type {HTMLInputElement} */ (el).type === 'file') {
      return refusal('upload', 'a file input: uploads are never automated');
    }
    const hidden = V.notRendered(el);
    if (hidden) return refusal('hidden', hidden);
    if (V.inertOrModalOutside(el)) return refusal('disabled', 'inside an inert subtree');
    if (el.matches(':disabled')) return refusal('disabled', 'the element is disabled');
    if (V.ariaDisabled(el)) return refusal('disabled', 'aria-disabled');
    if ((op === 'click' || op === 'type') && V.style(el).pointerEvents === 'none') {
      return refusal('disabled', 'pointer-events: none');
    }
    const kind = kindOf(el);
    if (op === 'type') {
      if (kind === 'other') return refusal('not-editable', 'not a text field, select or contenteditable');
      if (kind === 'text' && /** @type {HTMLInputElement} */ (el).readOnly) return refusal('disabled', 'read-only');
    }
    el.scrollIntoView({ block: 'center', inline: 'center', behavior: 'instant' });
    const rect = visibleRect(el);
    if (!rect) return refusal('offscreen', 'cannot be scrolled into the viewport');
    const x = (rect.left + rect.right) / 2;
    const y = (rect.top + rect.bottom) / 2;
    if (op === 'click' || op === 'type') {
      const hit = deepHit(x, y);
      if (!hit || !within(hit, el)) {
        return refusal('covered', 'covered by ' + (hit ? V.describe(hit) : 'nothing at the click point'));
      }
    }
    return { ok: true, x, y, kind };
  }

  /** @param {Element[]} found */
  function visibleMatches(found) {
    return found.filter((el) => V.notRendered(el) === null);
  }

  // The matches of role + name in this world (the driver adds those of cross-origin frames,
  // listed in `frames`, and then prepares the one target by ref).
  V.actFind = function actFind(role, name) {
    const found = matches(String(role), name === undefined || name === null ? '' : name);
    return {
      total: found.length,
      visible: visibleMatches(found).map((el) => V.refOf(el)),
      first: found.length ? V.refOf(found[0]) : null,
      frames: V.S.unentered.map((frame) => V.frameIndexOf(frame)),
    };
  };

  // Where a frame's viewport starts in top-level viewport coordinates.
  /** @param {Document} doc */
  function docOffset(doc) {
    let x = 0;
    let y = 0;
    while (doc !== document) {
      const frame = /** @type {Element} */ (/** @type {Window} */ (doc.defaultView).frameElement);
      const origin = frameOrigin(frame);
      x += origin.x;
      y += origin.y;
      doc = frame.ownerDocument;
    }
    return { x, y };
  }

  // A point of a cross-origin frame (in its viewport) -> the same point here, checked: inside
  // the visible part of the frame element and (hitTest) not covered by anything of this page.
  V.framePoint = function framePoint(index, x, y, hitTest) {
    const frame = V.frameByIndex(index);
    if (!frame) return refusal('hidden', 'its frame is gone');
    const clip = visibleRect(frame);
    if (!clip) return refusal('offscreen', 'its frame cannot be scrolled into the viewport');
    const origin = frameOrigin(frame);
    const offset = docOffset(frame.ownerDocument);
    const px = x + origin.x + offset.x;
    const py = y + origin.y + offset.y;
    if (px < clip.left || px >= clip.right || py < clip.top || py >= clip.bottom) {
      return refusal('offscreen', 'outside the visible part of its frame');
    }
    if (hitTest) {
      const hit = deepHit(px, py);
      if (hit !== frame) return refusal('covered', 'covered by ' + (hit ? V.describe(hit) : 'nothing at the click point'));
    }
    return { ok: true, x: px, y: py };
  };

  // Verify the element of a ref for an operation. -> {ok, reason?, detail?, matchedTotal,
  // matchedVisible, ref, x?, y?, kind?} (the driver replaces the counters when it located the
  // element by role + name through actFind).
  V.actPrepare = function actPrepare(ref, op) {
    const found = V.resolve(ref);
    if (found.error !== undefined) return { ok: false, reason: 'ref-' + found.error, matchedTotal: 0, matchedVisible: 0 };
    const el = found.el;
    const visible = V.notRendered(el) === null ? 1 : 0;
    const result = verify(el, op);
    result.matchedTotal = 1;
    result.matchedVisible = visible;
    result.ref = V.refOf(el);
    return result;
  };

  /** @param {Element} frame an iframe or frame */
  function frameDocument(frame) {
    return /** @type {HTMLIFrameElement} */ (frame).contentDocument;
  }

  /**
   * @param {Document} doc
   * @returns {Element | null}
   */
  function deepActive(doc) {
    let active = doc.activeElement;
    for (;;) {
      if (active && active.shadowRoot && active.shadowRoot.activeElement) {
        active = active.shadowRoot.activeElement;
      } else if (active && (active.localName === 'iframe' || active.localName === 'frame') && frameDocument(active)) {
        active = /** @type {Document} */ (frameDocument(active)).activeElement;
      } else {
        return active;
      }
    }
  }

  V.focus = function focus(ref) {
    const { el } = V.resolve(ref);
    if (!el) return false;
    if (deepActive(document) !== el) /** @type {HTMLElement} */ (el).focus({ preventScroll: true });
    return deepActive(document) === el;
  };

  // The value the field holds now (to compare with what was typed).
  V.fieldValue = function fieldValue(ref) {
    const { el } = V.resolve(ref);
    if (!el) return null;
    if (el.localName === 'input' || el.localName === 'textarea') return /** @type {HTMLInputElement} */ (el).value;
    return /** @type {HTMLElement} */ (el).innerText.replace(/\u00a0/g, ' ').replace(/\n+$/, '');
  };

  // Choose the option of a <select> whose label (first) or value equals `choice`; the events
  // are the ones a person's choice fires (input, change), dispatched from here.
  V.selectOption = function selectOption(ref, choice) {
    const el = /** @type {HTMLSelectElement | undefined} */ (V.resolve(ref).el); // the driver checked it is a select
    if (!el) return { ok: false, reason: 'ref-gone' };
    const options = Array.from(el.options);
    const wanted = V.normalize(String(choice));
    const option =
      options.find((o) => V.normalize(o.label) === wanted) || options.find((o) => o.value === String(choice));
    if (!option) {
      const labels = options.slice(0, LIMITS.SELECT_OPTIONS_SHOWN).map((o) => o.label);
      return { ok: false, reason: 'no-such-option', detail: 'options: ' + JSON.stringify(labels) };
    }
    if (option.disabled) return { ok: false, reason: 'disabled', detail: 'the option is disabled' };
    el.focus({ preventScroll: true });
    option.selected = true;
    el.dispatchEvent(new Event('input', { bubbles: true, composed: true }));
    el.dispatchEvent(new Event('change', { bubbles: true }));
    return { ok: el.value === option.value, value: option.value, label: option.label };
  };

  // Key presses: remember what is focused and watch for a form submission, then report.
  /** @type {{active: Element | null, submitted: boolean, doc: Document, listener?: () => void} | null} */
  let armed = null;
  V.keyArm = function keyArm() {
    const active = deepActive(document);
    const doc = active ? active.ownerDocument : document;
    /** @type {{active: Element | null, submitted: boolean, doc: Document, listener: () => void}} */
    const state = {
      active,
      submitted: false,
      doc,
      listener: () => {
        state.submitted = true;
      },
    };
    doc.addEventListener('submit', state.listener, true);
    armed = state;
    const form = active && /** @type {HTMLInputElement} */ (active).form; // undefined: not a form control
    return { inForm: Boolean(form) };
  };

  V.keyResult = function keyResult() {
    const state = armed;
    armed = null;
    if (!state) return { submitted: false, focusMoved: false };
    if (state.listener) state.doc.removeEventListener('submit', state.listener, true);
    return { submitted: state.submitted, focusMoved: deepActive(document) !== state.active };
  };

  // Clicks: whether the click sent this document away. The Navigation API's `navigate` event is fired while the
  // click is handled (a link) or its form is submitted, before the renderer answers the click, so the answer does
  // not depend on how soon the browser reports the new page's request (a loaded machine reports it late).
  /** @type {{event: any, listener: (e: any) => void} | null} */
  let leaving = null;
  V.navArm = function navArm() {
    const nav = /** @type {any} */ (window).navigation;
    if (leaving || !nav) return Boolean(nav);
    /** @type {{event: any, listener: (e: any) => void}} */
    const state = {
      event: null,
      listener: (e) => {
        state.event = e;
      },
    };
    nav.addEventListener('navigate', state.listener);
    leaving = state;
    return true;
  };

  V.navResult = function navResult() {
    const state = leaving;
    leaving = null;
    if (!state) return false;
    /** @type {any} */ (window).navigation.removeEventListener('navigate', state.listener);
    const e = state.event;
    // a new document is coming: not cancelled, not a fragment, not a download, not taken over by the page
    // (an intercepted navigation has already moved this document to its destination)
    return Boolean(
      e && !e.defaultPrevented && !e.hashChange && e.downloadRequest === null && location.href !== e.destination.url,
    );
  };

  V.scrollTo = function scrollTo(ref) {
    const { el } = V.resolve(ref);
    if (!el) return false;
    el.scrollIntoView({ block: 'center', inline: 'center', behavior: 'instant' });
    return visibleRect(el) !== null;
  };

  V.selectAllIn = function selectAllIn(ref) {
    const { el } = V.resolve(ref);
    if (!el) return false;
    const field = /** @type {HTMLInputElement} */ (el); // a text field has select(), other elements do not
    if (field.select) {
      field.select();
      return true;
    }
    const selection = /** @type {Selection} */ (el.ownerDocument.getSelection()); // null only without a view
    selection.selectAllChildren(el);
    return true;
  };
})();
