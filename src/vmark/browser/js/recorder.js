// The recording shim, run in the PAGE world of the main frame (an init script, so it follows
// navigations; also evaluated once in the document shown when a recording starts). It is dormant:
// its listeners return at once unless window[FLAG] holds a recording id, which only the driver's
// activation script sets while a recording runs (a new id starts afresh).
//
// It records the clicks and field entries the PERSON performs (trusted events only), value-free
// by construction: the role and accessible name of the element touched (the runtime's own rules,
// runtime.js, evaluated here in a closure of its own: the page cannot reach it), for a field only
// the fact it changed (its value is never read), and whether the field is a secret (password,
// one-time code: replayed as a human gate). Events go to a hidden buffer element that the driver
// reads from its isolated world, and to sessionStorage, so that the events of a document that a
// click navigated away from reach the next document of the same origin: the driver cannot read a
// document once its navigation has started. No message channel from the page into VMark exists.
// The driver fills in the buffer id, the flag's name and runtime.js (recorder.py); LIMITS comes from
// protocol/limits.py (browser/isolated.py page_script).
(() => {
  if (window !== window.top) return;
  const BUFFER_ID = '__BUFFER_ID__';
  const FLAG = '__FLAG__';
  const INSTALLED = FLAG + '-installed';
  const LIMIT = LIMITS.RECORDER_PAGE_EVENT_LIMIT;
  // the carried events of earlier documents of this origin (this document's own are kept apart)
  const CARRY_LIMIT = 2 * LIMIT;
  // the page's window, read by names the driver chose (the flag and the installed mark)
  const page = /** @type {Record<string, unknown>} */ (/** @type {unknown} */ (window));
  if (page[INSTALLED]) return;
  Object.defineProperty(window, INSTALLED, { value: true });

  const V = (() => {
    /** @type {{__vmark?: VmarkRuntime}} */
    const globalThis = {}; // eslint-disable-line no-shadow-restricted-names
    __RUNTIME__;
    return /** @type {VmarkRuntime} */ (globalThis.__vmark); // runtime.js, just run, defined it
  })();

  // The page's own scripts run after this one and may replace these: keep the originals.
  const stringify = JSON.stringify;
  const parse = JSON.parse;
  const now = Date.now;
  const storage = (() => {
    try {
      return window.sessionStorage;
    } catch (e) {
      return null; // an opaque origin: no carrying across documents
    }
  })();
  const doc = now().toString(36) + Math.floor(Math.random() * 1e9).toString(36);
  const CLICK_ROLES = new Set([
    'button', 'link', 'checkbox', 'radio', 'switch', 'tab', 'menuitem', 'menuitemcheckbox', 'menuitemradio',
    'option', 'treeitem', 'gridcell', 'row', 'cell',
  ]);
  const TEXT_TYPES = new Set([
    '', 'text', 'email', 'password', 'search', 'tel', 'url', 'number', 'date', 'datetime-local', 'month', 'week',
    'time',
  ]);
  const SECRET_AUTOCOMPLETE = /(^|\s)(one-time-code|current-password|new-password|cc-number|cc-csc)(\s|$)/;
  const SECRET_WORDS = /(^|[^a-z0-9])(otp|totp|hotp|2fa|mfa|one ?time|two ?factor|passcode|password|passwd|pwd|pin|code|token|secret|cvv|cvc)([^a-z0-9]|$)/;
  const NOT_SECRET_WORDS = /(^|[^a-z0-9])(postal|zip|post|promo|coupon|voucher|discount|country|area|gift)([^a-z0-9]|$)/;

  /** @type {string | null} */
  let session = null;
  /**
   * One recorded event: session, document, index, time, kind, role and name (and for a field whether it
   * is a secret).
   * @typedef {{s: string | null, doc: string, i: number, t: number, k: Kind, role: string, name: string,
   *   secret?: boolean}} Recorded
   * @typedef {'click' | 'type'} Kind
   */
  /** @type {Recorded[]} */
  let own = [];
  /** @type {Recorded[]} */
  let carried = [];
  let dropped = 0;
  /** @type {Element | null} */
  let lastElement = null;
  /** @type {Kind | null} */
  let lastKind = null;
  /** @type {HTMLElement | null} */
  let buffer = null;

  if (storage) {
    try {
      const held = parse(storage.getItem(BUFFER_ID) || '[]');
      if (Array.isArray(held)) carried = held.slice(-CARRY_LIMIT);
    } catch (e) {
      carried = [];
    }
  }

  function active() {
    const current = page[FLAG];
    if (typeof current !== 'string' || !current) return false;
    if (current !== session) {
      session = current;
      own = [];
      dropped = 0;
      carried = carried.filter((event) => event && event.s === current);
    }
    return true;
  }

  function write() {
    const all = carried.concat(own);
    const text = stringify({ doc, dropped, events: all });
    if (storage) {
      try {
        storage.setItem(BUFFER_ID, stringify(all.slice(-CARRY_LIMIT)));
      } catch (e) {
        // storage full or refused: this document's buffer still holds them
      }
    }
    const root = document.documentElement;
    if (!root) return;
    if (!buffer || !buffer.isConnected) {
      const found = document.getElementById(BUFFER_ID) || document.createElement('template');
      found.id = BUFFER_ID;
      if (!found.isConnected) root.appendChild(found);
      buffer = found;
    }
    buffer.textContent = text;
  }

  /**
   * @param {Kind} kind
   * @param {Element} el
   * @param {{secret: boolean}} [extra]
   */
  function push(kind, el, extra) {
    if (own.length >= LIMIT) {
      dropped += 1;
      write();
      return;
    }
    const role = V.roleOf(el) || '';
    /** @type {Recorded} */
    const event = { s: session, doc, i: own.length, t: now(), k: kind, role, name: V.nameOf(el, role, false) };
    if (extra) Object.assign(event, extra);
    own.push(event);
    lastElement = el;
    lastKind = kind;
    write();
  }

  /**
   * @param {Event} event
   * @returns {Element[]}
   */
  function elements(event) {
    return /** @type {Element[]} */ (event.composedPath().filter((node) => node && /** @type {Node} */ (node).nodeType === 1));
  }

  // The field an input event is about: a text-like input, a textarea, a select or an editing host.
  /**
   * @param {Element | undefined} el
   * @returns {Element | null}
   */
  function fieldOf(el) {
    if (!el) return null;
    const tag = el.localName;
    if (tag === 'textarea' || tag === 'select') return el;
    if (tag === 'input') return TEXT_TYPES.has((el.getAttribute('type') || '').toLowerCase()) ? el : null;
    if (/** @type {HTMLElement} */ (el).isContentEditable) {
      let host = /** @type {HTMLElement} */ (el);
      while (host.parentElement && host.parentElement.isContentEditable) host = host.parentElement;
      return host;
    }
    return null;
  }

  // Read from attributes and the accessible name only: never from what the field holds.
  /**
   * @param {Element} el
   * @param {string} name
   */
  function isSecret(el, name) {
    if (el.localName === 'input' && (el.getAttribute('type') || '').toLowerCase() === 'password') return true;
    if (SECRET_AUTOCOMPLETE.test((el.getAttribute('autocomplete') || '').toLowerCase())) return true;
    const hints = [el.getAttribute('name'), el.id, el.getAttribute('autocomplete'), name]
      .filter(Boolean)
      .join(' ')
      .replace(/([a-z])([A-Z])/g, '$1 $2')
      .toLowerCase();
    return SECRET_WORDS.test(hints) && !NOT_SECRET_WORDS.test(hints);
  }

  window.addEventListener(
    'click',
    (event) => {
      if (!event.isTrusted || !active()) return;
      const path = elements(event);
      // a click into a field (or a select's option) only focuses it: the entry is what counts
      if (path.some((el) => fieldOf(el))) return;
      const target = path.find((el) => CLICK_ROLES.has(V.roleOf(el) || ''));
      if (target) push('click', target);
    },
    true,
  );

  window.addEventListener(
    'input',
    (event) => {
      if (!event.isTrusted || !active()) return;
      const field = fieldOf(elements(event)[0]);
      if (!field || (field === lastElement && lastKind === 'type')) return; // one entry, however many keys
      const role = V.roleOf(field) || 'textbox';
      push('type', field, { secret: isSecret(field, V.nameOf(field, role, false)) });
    },
    true,
  );

  // A form sent with Enter: the button it used counts as clicked (a click on it was recorded already).
  window.addEventListener(
    'submit',
    (event) => {
      if (!event.isTrusted || !active()) return;
      const submitter = event.submitter;
      if (!submitter || (submitter === lastElement && lastKind === 'click')) return;
      push('click', submitter);
    },
    true,
  );

  document.addEventListener('DOMContentLoaded', () => {
    if (carried.length && active()) write();
  });
})();
