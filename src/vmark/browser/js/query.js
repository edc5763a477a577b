// browser_read.query: structured DOM data for a CSS selector (top document, light DOM).
(() => {
  'use strict';
  const V = globalThis.__vmark;
  const MAX_ELEMENTS = LIMITS.QUERY_MAX_ELEMENTS;
  const MAX_TEXT = LIMITS.QUERY_TEXT_CHARS;

  /** @param {string} text */
  function cut(text) {
    return text.length > MAX_TEXT ? text.slice(0, MAX_TEXT) : text;
  }

  /**
   * @typedef {{ref: Ref, tag: string, text: string, attributes?: Record<string, string>,
   *   box?: {x: number, y: number, width: number, height: number}, styles?: Record<string, string>}} QueryItem
   */
  // -> {count, elements, truncated?} or {error: 'invalid-selector', message}
  V.query = function query(selector, fields) {
    let found;
    try {
      found = document.querySelectorAll(String(selector));
    } catch (e) {
      return { error: 'invalid-selector', message: String(e instanceof Error && e.message ? e.message : e) };
    }
    const wanted = fields || {};
    /** @type {QueryItem[]} */
    const elements = [];
    for (const el of Array.from(found).slice(0, MAX_ELEMENTS)) {
      const shown = /** @type {HTMLElement} */ (el).innerText; // an SVG or MathML element has none
      const text = typeof shown === 'string' ? shown : el.textContent || '';
      /** @type {QueryItem} */
      const item = { ref: V.refOf(el), tag: el.localName, text: cut(text.trim()) };
      if (wanted.attributes) {
        /** @type {Record<string, string>} */
        const attributes = {};
        for (const attr of Array.from(el.attributes)) attributes[attr.name] = cut(attr.value);
        item.attributes = attributes;
      }
      if (wanted.box) {
        const r = el.getBoundingClientRect();
        item.box = { x: Math.round(r.left), y: Math.round(r.top), width: Math.round(r.width), height: Math.round(r.height) };
      }
      if (Array.isArray(wanted.styles) && wanted.styles.length) {
        const cs = V.style(el);
        /** @type {Record<string, string>} */
        const styles = {};
        for (const prop of wanted.styles) styles[String(prop)] = cut(cs.getPropertyValue(String(prop)));
        item.styles = styles;
      }
      elements.push(item);
    }
    /** @type {{count: number, elements: QueryItem[], truncated?: true}} */
    const result = { count: found.length, elements };
    if (found.length > MAX_ELEMENTS) result.truncated = true;
    return result;
  };
})();
