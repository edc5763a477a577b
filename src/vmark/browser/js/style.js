// browser.style: change how elements look (dismiss an overlay, highlight a target). CSSOM
// only (element.style, constructed style sheets), which a page's CSP does not block.
(() => {
  'use strict';
  const V = globalThis.__vmark;

  /**
   * The elements a style change applies to: the one a ref names, or those a selector matches.
   * @param {StyleTarget} target
   * @returns {{elements: (HTMLElement | SVGElement)[], error?: undefined} | {error: string, message?: string}}
   */
  function targets(target) {
    if (target.ref !== undefined && target.ref !== null) {
      const found = V.resolve(target.ref);
      if (found.error !== undefined) return { error: 'ref-' + found.error };
      return { elements: [/** @type {HTMLElement | SVGElement} */ (found.el)] };
    }
    try {
      const matched = Array.from(document.querySelectorAll(String(target.selector)));
      return { elements: /** @type {(HTMLElement | SVGElement)[]} */ (matched) };
    } catch (e) {
      return { error: 'invalid-selector', message: String(e instanceof Error && e.message ? e.message : e) };
    }
  }

  // op: {set: {prop: value}} | {addClasses: [..]} | {removeClasses: [..]} | {injectCss: text}
  // -> {count} or {error, message?}
  V.restyle = function restyle(target, op) {
    if (typeof op.injectCss === 'string') {
      const sheet = new CSSStyleSheet();
      sheet.replaceSync(op.injectCss);
      document.adoptedStyleSheets = [...document.adoptedStyleSheets, sheet];
      return { count: 0, injected: true };
    }
    const found = targets(target);
    if (found.error !== undefined) return found;
    for (const el of found.elements) {
      if (op.set) {
        for (const [prop, raw] of Object.entries(op.set)) {
          const value = String(raw);
          const important = /!\s*important\s*$/i.test(value);
          el.style.setProperty(prop, value.replace(/!\s*important\s*$/i, '').trim(), important ? 'important' : '');
        }
      }
      if (op.addClasses) el.classList.add(...op.addClasses.map(String));
      if (op.removeClasses) el.classList.remove(...op.removeClasses.map(String));
    }
    return { count: found.elements.length };
  };
})();
