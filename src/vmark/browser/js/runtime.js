// The core of VMark's in-page runtime, evaluated once per isolated world (see isolated.py).
// It shares the DOM with the page but none of the page's globals, so nothing here can be
// monkey-patched by the page. Other scripts (snapshot.js, act.js, query.js, style.js) add
// their entry points to the same object, globalThis.__vmark.
(() => {
  'use strict';
  if (globalThis.__vmark) return;

  // Refs live here and only here: the page can neither see nor forge them (no DOM attribute).
  // Numbering continues past every ref issued to earlier documents of the tab (init(base)),
  // so an old ref can never name an element of the current document.
  /** @type {VmarkRuntime['S']} */
  const S = {
    next: 1,
    base: 1,
    refs: new Map(),
    byEl: new WeakMap(),
    frameIndex: new WeakMap(),
    frameByIndex: new Map(),
    nextFrame: 1,
    // the frames the last walk could not enter (cross-origin): the driver enters them itself
    unentered: /** @type {Element[]} */ ([]),
  };

  const SKIP_TAGS = new Set(['script', 'style', 'template', 'noscript', 'head', 'meta', 'link', 'title', 'base']);
  /** @type {Record<string, string | undefined>} */
  const INPUT_ROLES = {
    button: 'button', submit: 'button', reset: 'button', image: 'button', file: 'button', color: 'button',
    checkbox: 'checkbox', radio: 'radio', range: 'slider', number: 'spinbutton', search: 'searchbox',
  };
  const NAME_FROM_CONTENT = new Set([
    'button', 'link', 'heading', 'cell', 'columnheader', 'rowheader', 'option', 'tab', 'menuitem',
    'menuitemcheckbox', 'menuitemradio', 'treeitem', 'checkbox', 'radio', 'switch', 'tooltip', 'row',
    'gridcell', 'legend', 'term', 'sectionhead',
  ]);
  const CHECKABLE = new Set(['checkbox', 'radio', 'switch', 'menuitemcheckbox', 'menuitemradio']);
  const NO_ROLE = new Set(['none', 'presentation', 'generic']);
  const NAME_LIMIT = LIMITS.ACCESSIBLE_NAME_CHARS;

  /** @param {number} base */
  function init(base) {
    if (base > S.next) S.next = base;
    S.base = S.next;
    return S.next;
  }

  // Every frame element gets a number for the life of the world: the ref prefix f<k> of the
  // elements inside it (same-origin frames here, cross-origin ones in the driver).
  /** @param {Element} frame */
  function frameIndexOf(frame) {
    let index = S.frameIndex.get(frame);
    if (!index) {
      index = S.nextFrame++;
      S.frameIndex.set(frame, index);
      S.frameByIndex.set(index, new WeakRef(frame));
    }
    return index;
  }

  /** @param {number} index */
  function frameByIndex(index) {
    const weak = S.frameByIndex.get(index);
    const frame = weak && weak.deref();
    return frame && inCurrentView(frame) ? frame : null;
  }

  /** @param {Document} doc */
  function framePrefix(doc) {
    if (doc === document) return '';
    const frame = doc.defaultView && doc.defaultView.frameElement;
    return frame ? 'f' + frameIndexOf(frame) : '';
  }

  /**
   * @param {Element} el
   * @returns {Ref}
   */
  function refOf(el) {
    let ref = S.byEl.get(el);
    if (ref) return ref;
    ref = framePrefix(el.ownerDocument) + 'e' + S.next++;
    S.byEl.set(el, ref);
    S.refs.set(ref, new WeakRef(el));
    return ref;
  }

  // Is the element part of what the tab shows now (its document is the top document or a
  // document currently loaded in a connected frame of it)?
  /** @param {Element} el */
  function inCurrentView(el) {
    if (!el.isConnected) return false;
    let doc = el.ownerDocument;
    while (doc !== document) {
      const frame = doc.defaultView && doc.defaultView.frameElement;
      if (!frame || !frame.isConnected || /** @type {HTMLIFrameElement} */ (frame).contentDocument !== doc) return false;
      doc = frame.ownerDocument;
    }
    return true;
  }

  // -> {el} or {error: 'malformed' | 'stale' | 'gone' | 'unknown'}
  /**
   * @param {Ref} ref
   * @returns {ReturnType<VmarkRuntime['resolve']>}
   */
  function resolve(ref) {
    const m = /^(?:f\d+)?e(\d+)$/.exec(String(ref));
    if (!m) return { error: 'malformed' };
    const number = Number(m[1]);
    const weak = S.refs.get(ref);
    const el = weak && weak.deref();
    if (!el) {
      if (number < S.base) return { error: 'stale' };
      return { error: weak ? 'gone' : 'unknown' };
    }
    if (!inCurrentView(el)) return { error: 'gone' };
    return { el };
  }

  /** @param {Element} el an element of a document shown in a window */
  function style(el) {
    return /** @type {Window} */ (el.ownerDocument.defaultView).getComputedStyle(el);
  }

  // The parent in the flat tree (slots, shadow hosts), stopping at the element's document.
  /**
   * @param {Node} node
   * @returns {Element | null}
   */
  function flatParent(node) {
    const slotted = /** @type {Element} */ (node).assignedSlot; // text nodes and elements have it
    if (slotted) return slotted;
    const parent = node.parentNode;
    if (!parent) return null;
    if (parent.nodeType === 11) return /** @type {ShadowRoot} */ (parent).host || null;
    if (parent.nodeType === 9) return null;
    return /** @type {Element} */ (parent);
  }

  // Like flatParent, but continues from a frame's document into the frame element.
  /**
   * @param {Node} node
   * @returns {Element | null}
   */
  function composedParent(node) {
    const parent = flatParent(node);
    if (parent) return parent;
    const doc = /** @type {Document} */ (node.ownerDocument);
    if (node === doc.documentElement && doc !== document) {
      return (doc.defaultView && doc.defaultView.frameElement) || null;
    }
    return null;
  }

  /** @param {Element} el */
  function headingLevel(el) {
    const aria = parseInt(el.getAttribute('aria-level') || '', 10);
    if (aria > 0) return aria;
    const m = /^h([1-6])$/.exec(el.localName);
    return m ? Number(m[1]) : 2;
  }

  /** @param {Element} el */
  function sectioningAncestor(el) {
    for (let p = flatParent(el); p; p = flatParent(p)) {
      if (['article', 'aside', 'main', 'nav', 'section'].includes(p.localName)) return true;
    }
    return false;
  }

  /**
   * @param {Element} el
   * @returns {string | null}
   */
  function implicitRole(el) {
    const tag = el.localName;
    switch (tag) {
      case 'a':
      case 'area':
        return el.hasAttribute('href') ? 'link' : null;
      case 'button':
      case 'summary':
        return 'button';
      case 'input': {
        const type = (el.getAttribute('type') || 'text').toLowerCase();
        if (type === 'hidden') return null;
        if (el.hasAttribute('list') && !INPUT_ROLES[type]) return 'combobox';
        return INPUT_ROLES[type] || 'textbox';
      }
      case 'textarea':
        return 'textbox';
      case 'select':
        return /** @type {HTMLSelectElement} */ (el).multiple || /** @type {HTMLSelectElement} */ (el).size > 1 ? 'listbox' : 'combobox';
      case 'option':
        return 'option';
      case 'h1': case 'h2': case 'h3': case 'h4': case 'h5': case 'h6':
        return 'heading';
      case 'img':
        return el.getAttribute('alt') === '' ? null : 'img';
      case 'ul': case 'ol': case 'menu':
        return 'list';
      case 'li':
        return 'listitem';
      case 'nav':
        return 'navigation';
      case 'main':
        return 'main';
      case 'aside':
        return 'complementary';
      case 'header':
        return sectioningAncestor(el) ? null : 'banner';
      case 'footer':
        return sectioningAncestor(el) ? null : 'contentinfo';
      case 'form':
        return 'form';
      case 'section':
        return el.hasAttribute('aria-label') || el.hasAttribute('aria-labelledby') ? 'region' : null;
      case 'article':
        return 'article';
      case 'dialog':
        return 'dialog';
      case 'table':
        return 'table';
      case 'tr':
        return 'row';
      case 'td':
        return 'cell';
      case 'th':
        return 'columnheader';
      case 'details':
      case 'fieldset':
        return 'group';
      case 'progress':
        return 'progressbar';
      case 'meter':
        return 'meter';
      case 'hr':
        return 'separator';
      case 'iframe':
      case 'frame':
        return 'iframe';
      default:
        if (/** @type {HTMLElement} */ (el).isContentEditable && !(el.parentElement && el.parentElement.isContentEditable)) return 'textbox';
        return null;
    }
  }

  /**
   * @param {Element} el
   * @returns {string | null}
   */
  function roleOf(el) {
    const explicit = el.getAttribute('role');
    if (explicit) {
      const first = explicit.trim().split(/\s+/)[0].toLowerCase();
      if (first) return NO_ROLE.has(first) ? null : first;
    }
    return implicitRole(el);
  }

  /** @param {string} text */
  function normalize(text) {
    return text.replace(/[\s\u00a0]+/g, ' ').trim();
  }

  /** @param {Element} el */
  function isBlock(el) {
    const display = style(el).display;
    return display !== 'inline' && display !== 'contents' && display !== 'inline-block';
  }

  // Text of a subtree for a name (accname "name from content", simplified): text nodes, alt of
  // images, aria-label of descendants, open shadow trees through their slots. Hidden
  // descendants are skipped unless the root itself is not rendered. Stops after `limit` chars.
  /**
   * @param {Element} root
   * @param {boolean} includeHidden
   * @param {Element | null} skip
   * @param {number} limit
   * @returns {string}
   */
  function contentText(root, includeHidden, skip, limit) {
    /** @type {string[]} */
    const parts = [];
    let length = 0;
    /** @param {Node} node */
    function visit(node) {
      if (length > limit) return;
      if (node.nodeType === 3) {
        const data = /** @type {Text} */ (node).data;
        parts.push(data);
        length += data.length;
        return;
      }
      if (node.nodeType !== 1 || node === skip) return;
      const el = /** @type {Element} */ (node);
      if (SKIP_TAGS.has(el.localName)) return;
      if (!includeHidden) {
        if (el.getAttribute('aria-hidden') === 'true') return;
        const cs = style(el);
        if (cs.display === 'none') return;
        if (cs.visibility === 'hidden' && !el.firstElementChild) return;
      }
      const label = el !== root && el.getAttribute('aria-label');
      if (label && label.trim()) {
        parts.push(' ' + label + ' ');
        length += label.length;
        return;
      }
      if (el.localName === 'img' || (el.localName === 'input' && /** @type {HTMLInputElement} */ (el).type === 'image')) {
        const alt = el.getAttribute('alt') || '';
        parts.push(alt);
        length += alt.length;
        return;
      }
      if (el !== root && el.localName === 'input') {
        parts.push(' ' + (/** @type {HTMLInputElement} */ (el).value || '') + ' ');
        return;
      }
      const block = el !== root && isBlock(el);
      if (block) parts.push(' ');
      if (el.localName === 'slot') {
        const assigned = /** @type {HTMLSlotElement} */ (el).assignedNodes({ flatten: true });
        if (assigned.length) {
          for (const child of assigned) visit(child);
          if (block) parts.push(' ');
          return;
        }
      }
      const children = el.shadowRoot ? el.shadowRoot.childNodes : el.childNodes;
      for (const child of children) visit(child);
      if (block) parts.push(' ');
    }
    visit(root);
    return normalize(parts.join(''));
  }

  /** @param {Element} el */
  function labelsText(el) {
    const labels = /** @type {HTMLInputElement} */ (el).labels; // undefined: not a labelable element
    if (!labels || !labels.length) return '';
    return normalize(Array.from(labels, (label) => contentText(label, false, el, NAME_LIMIT + 1)).join(' '));
  }

  /**
   * @param {Element} el
   * @param {string} id
   */
  function byIdNear(el, id) {
    const root = /** @type {Document | ShadowRoot} */ (el.getRootNode()); // a detached element's is itself
    return (root.getElementById && root.getElementById(id)) || el.ownerDocument.getElementById(id);
  }

  /**
   * @param {Element} el
   * @param {boolean} includeHidden
   * @returns {string}
   */
  function nativeName(el, includeHidden) {
    const tag = el.localName;
    if (tag === 'input') {
      const type = (el.getAttribute('type') || 'text').toLowerCase();
      if (type === 'button' || type === 'submit' || type === 'reset') {
        const labelled = labelsText(el);
        if (labelled) return labelled;
        if (el.hasAttribute('value')) return /** @type {HTMLInputElement} */ (el).value;
        return type === 'submit' ? 'Submit' : type === 'reset' ? 'Reset' : '';
      }
      if (type === 'image') return el.getAttribute('alt') || el.getAttribute('value') || 'Submit';
      return labelsText(el);
    }
    if (tag === 'textarea' || tag === 'select' || tag === 'meter' || tag === 'progress' || tag === 'button') {
      const labelled = labelsText(el);
      if (labelled || tag !== 'button') return labelled;
    }
    if (tag === 'img' || tag === 'area') return el.getAttribute('alt') || '';
    if (tag === 'fieldset') {
      const legend = el.querySelector(':scope > legend');
      return legend ? contentText(legend, includeHidden, null, NAME_LIMIT + 1) : '';
    }
    if (tag === 'table') {
      const caption = el.querySelector(':scope > caption');
      return caption ? contentText(caption, includeHidden, null, NAME_LIMIT + 1) : '';
    }
    if (tag === 'option') return normalize(/** @type {HTMLOptionElement} */ (el).label || el.textContent || '');
    return '';
  }

  // The accessible name (accname, simplified), whitespace-normalized and NOT cut.
  /**
   * @param {Element} el
   * @param {string | null} role
   * @param {boolean} includeHidden
   * @returns {string}
   */
  function nameOf(el, role, includeHidden) {
    const labelledby = el.getAttribute('aria-labelledby');
    if (labelledby) {
      const text = labelledby
        .trim()
        .split(/\s+/)
        .map((id) => byIdNear(el, id))
        .filter((found) => found !== null)
        .map((ref) => (ref.getAttribute('aria-label') || '').trim() || contentText(ref, true, null, NAME_LIMIT + 1))
        .join(' ');
      if (normalize(text)) return normalize(text);
    }
    const label = el.getAttribute('aria-label');
    if (label && label.trim()) return normalize(label);
    const native = nativeName(el, includeHidden);
    if (native && normalize(native)) return normalize(native);
    if (role !== null && NAME_FROM_CONTENT.has(role)) {
      const text = contentText(el, includeHidden, null, NAME_LIMIT + 1);
      if (text) return text;
    }
    const title = el.getAttribute('title');
    if (title && title.trim()) return normalize(title);
    const placeholder = el.getAttribute('placeholder') || el.getAttribute('aria-placeholder');
    if (placeholder && placeholder.trim()) return normalize(placeholder);
    return '';
  }

  /**
   * @param {Element} el
   * @param {string} role
   * @returns {boolean | 'mixed' | undefined}
   */
  function checkedOf(el, role) {
    if (!CHECKABLE.has(role)) return undefined;
    const input = /** @type {HTMLInputElement} */ (el);
    if (el.localName === 'input' && (input.type === 'checkbox' || input.type === 'radio')) {
      return input.indeterminate ? 'mixed' : input.checked;
    }
    const aria = el.getAttribute('aria-checked');
    if (aria === 'mixed') return 'mixed';
    return aria === 'true';
  }

  /** @param {Element} el */
  function inertOrModalOutside(el) {
    /** @type {Element | null} */
    let n = el;
    for (; n; n = composedParent(n)) {
      if (/** @type {HTMLElement} */ (n).inert || n.hasAttribute('inert')) return true;
    }
    const modal = document.querySelector('dialog:modal');
    if (modal) {
      for (n = el; n; n = composedParent(n)) if (n === modal) return false;
      return true;
    }
    return false;
  }

  /** @param {Element} el */
  function ariaDisabled(el) {
    /** @type {Element | null} */
    let n = el;
    for (; n; n = composedParent(n)) {
      if (n.getAttribute('aria-disabled') === 'true') return true;
    }
    return false;
  }

  /** @param {Element} el */
  function isDisabled(el) {
    return el.matches(':disabled') || ariaDisabled(el) || inertOrModalOutside(el);
  }

  // Walks the flat tree of the document and of every reachable same-origin frame, calling
  // visit(el, ctx) for each element; visit returns false to prune the subtree. Closed shadow
  // root candidates (custom elements without an open root, in found.hosts) and the frames it
  // could not enter (found.frames, with found.mark() = where they were met) are collected.
  /**
   * @param {Visit} visit
   * @param {WalkFound | null} found
   * @returns {boolean} whether the visit stopped it
   */
  function walk(visit, found) {
    let stopped = false;
    S.unentered = [];
    /**
     * @param {Element} el
     * @param {WalkContext} ctx
     */
    function element(el, ctx) {
      if (stopped) return;
      if (SKIP_TAGS.has(el.localName)) return;
      const verdict = visit(el, ctx);
      if (verdict === 'stop') {
        stopped = true;
        return;
      }
      if (verdict === false) return;
      // what the children get: the visit's context, else the one this element got
      const inner = /** @type {WalkContext} */ (verdict || ctx);
      const tag = el.localName;
      if (tag === 'iframe' || tag === 'frame') {
        const doc = contentDocumentOf(el);
        if (doc && doc.documentElement) {
          element(doc.documentElement, inner);
        } else {
          S.unentered.push(el);
          if (found) found.frames.push({ frame: frameIndexOf(el), at: found.mark ? found.mark() : 0 });
        }
        return;
      }
      if (tag === 'slot') {
        const assigned = /** @type {HTMLSlotElement} */ (el).assignedElements({ flatten: true });
        if (assigned.length) {
          for (const child of assigned) element(child, inner);
          return;
        }
      }
      const root = el.shadowRoot;
      if (!root && found && tag.includes('-')) found.hosts.push(el);
      for (let c = (root || el).firstElementChild; c; c = c.nextElementSibling) element(c, inner);
    }
    element(document.documentElement, {});
    return stopped;
  }

  // Is the element visibly rendered (display, visibility, opacity of it and its ancestors,
  // closed <details>, zero size, collapsed clipping ancestors)? -> null or a reason text.
  /**
   * @param {Element} el
   * @returns {string | null}
   */
  function notRendered(el) {
    const opts = { opacityProperty: true, visibilityProperty: true };
    if (!el.checkVisibility(opts)) return 'not rendered (display, visibility, opacity or a closed section)';
    for (let doc = el.ownerDocument; doc !== document; ) {
      // a document that is not the top one is a frame's: it has a window and a frame element
      const frame = /** @type {Element} */ (/** @type {Window} */ (doc.defaultView).frameElement);
      if (!frame.checkVisibility(opts)) return 'its frame is not rendered';
      doc = frame.ownerDocument;
    }
    const rects = el.getClientRects();
    let area = false;
    for (const r of rects) if (r.width > 0 && r.height > 0) area = true;
    if (!area) return 'zero size';
    if (style(el).position !== 'fixed') {
      for (let p = flatParent(el); p; p = flatParent(p)) {
        const cs = style(p);
        if (cs.display === 'contents') continue;
        if (cs.overflowX !== 'visible' || cs.overflowY !== 'visible') {
          const box = p.getBoundingClientRect();
          if (box.width === 0 || box.height === 0) return 'inside a collapsed ' + describe(p);
        }
        if (cs.position === 'fixed') break;
      }
    }
    return null;
  }

  // "tag.firstClass" or "tag#id" of an element (or of its nearest ancestor that has either).
  /** @param {Element} el */
  function describe(el) {
    /** @type {Element | null} */
    let n = el;
    while (n && !(n.classList && n.classList.length) && !n.id) {
      const parent = flatParent(n);
      if (!parent || parent === n.ownerDocument.body) break;
      n = parent;
    }
    if (!n || (!(n.classList && n.classList.length) && !n.id)) n = el;
    const cls = n.classList && n.classList.length ? '.' + n.classList[0] : '';
    return n.localName + (cls || (n.id ? '#' + n.id : ''));
  }

  // null when the ref names an element of the current view, else the refusal code.
  /** @param {Ref} ref */
  function checkRef(ref) {
    const found = resolve(ref);
    return found.error || null;
  }

  /** @param {Ref} ref */
  function refElements(ref) {
    const found = resolve(ref);
    return found.el ? [found.el] : [];
  }

  // The frames the last walk could not enter, as live objects (the driver asks CDP which
  // frame each one shows).
  function unenteredFrames() {
    return S.unentered;
  }

  // 'same' (this world walks into it), 'cross' (the driver's world for the frame does) or 'gone'.
  /**
   * @param {number} index
   * @returns {'same' | 'cross' | 'gone'}
   */
  function frameKind(index) {
    const frame = frameByIndex(index);
    if (!frame) return 'gone';
    return contentDocumentOf(frame) ? 'same' : 'cross';
  }

  /**
   * A frame's document when this world may reach it (same origin), else null.
   * @param {Element} frame an iframe or frame
   * @returns {Document | null}
   */
  function contentDocumentOf(frame) {
    try {
      return /** @type {HTMLIFrameElement} */ (frame).contentDocument;
    } catch (e) {
      return null;
    }
  }

  const api = {
    frameKind,
    unenteredFrames,
    frameByIndex,
    frameIndexOf,
    inCurrentView,
    checkRef,
    refElements,
    S,
    SKIP_TAGS,
    NAME_LIMIT,
    init,
    refOf,
    resolve,
    style,
    flatParent,
    composedParent,
    roleOf,
    nameOf,
    normalize,
    headingLevel,
    checkedOf,
    isDisabled,
    ariaDisabled,
    inertOrModalOutside,
    walk,
    notRendered,
    describe,
    contentText,
  };
  Object.defineProperty(globalThis, '__vmark', { value: api, configurable: false, writable: false });
})();
