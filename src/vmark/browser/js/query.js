// browser_read.query: structured DOM data for a CSS selector (top document, light DOM).
(() => {
  'use strict';
  const V = globalThis.__vmark;
  const MAX_ELEMENTS = LIMITS.QUERY_MAX_ELEMENTS;
  const MAX_TEXT = LIMITS.QUERY_TEXT_CHARS;

  function cut(text) {
    return text.length > MAX_TEXT ? text.slice(0, MAX_TEXT) : text;
  }

  // -> {count, elements, truncated?} or {error: 'invalid-selector', message}
  V.query = function query(selector, fields) {
    let found;
    try {
      found = document.querySelectorAll(String(selector));
    } catch (e) {
      return { error: 'invalid-selector', message: String(e instanceof Error && e.message ? e.message : e) };
    }
    const wanted = fields || {};
    const elements = [];
    for (const el of Array.from(found).slice(0, MAX_ELEMENTS)) {
      const text = typeof el.innerText === 'string' ? el.innerText : el.textContent || '';
      const item = { ref: V.refOf(el), tag: el.localName, text: cut(text.trim()) };
      if (wanted.attributes) {
        item.attributes = {};
        for (const attr of Array.from(el.attributes)) item.attributes[attr.name] = cut(attr.value);
      }
      if (wanted.box) {
        const r = el.getBoundingClientRect();
        item.box = { x: Math.round(r.left), y: Math.round(r.top), width: Math.round(r.width), height: Math.round(r.height) };
      }
      if (Array.isArray(wanted.styles) && wanted.styles.length) {
        const cs = V.style(el);
        item.styles = {};
        for (const prop of wanted.styles) item.styles[String(prop)] = cut(cs.getPropertyValue(String(prop)));
      }
      elements.push(item);
    }
    const result = { count: found.length, elements };
    if (found.length > MAX_ELEMENTS) result.truncated = true;
    return result;
  };
})();
