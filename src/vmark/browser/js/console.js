// The console capture shim, run in the PAGE world of the main frame before the page's own
// scripts (an init script). It records console.* calls, uncaught errors and unhandled
// rejections as a JSON array in a hidden buffer element that the driver reads from its
// isolated world: no message channel from the page into VMark exists.
// __BUFFER_ID__ is replaced by the driver with the tab's buffer id.
(() => {
  if (window !== window.top) return;
  const BUFFER_ID = '__BUFFER_ID__';
  const LIMIT = LIMITS.CONSOLE_RING_ENTRIES;
  const TEXT_LIMIT = LIMITS.CONSOLE_TEXT_CHARS;
  // The page's own scripts run after this one and may replace these: keep the originals.
  const stringify = JSON.stringify;
  const parse = JSON.parse;
  const toString = String;
  const isArray = Array.isArray;
  /** @typedef {'log' | 'info' | 'warn' | 'error' | 'debug'} Level */
  /** @type {{level: Level, text: string}[]} */
  let ring = [];
  /** @type {string | null} */
  let written = null;
  /** @type {HTMLElement | null} */
  let buffer = null;
  let pending = 0; // entries recorded since the buffer was last written

  function attach() {
    const root = document.documentElement;
    if (!root) return null;
    if (!buffer || !buffer.isConnected) {
      const found = document.getElementById(BUFFER_ID) || document.createElement('template');
      found.id = BUFFER_ID;
      if (!found.isConnected) root.appendChild(found);
      written = found.textContent;
      buffer = found;
    }
    return buffer;
  }

  function flush() {
    const el = attach();
    if (!el) return;
    // The driver clears by writing "[]": start over from what the buffer holds now.
    if (written !== null && el.textContent !== written) {
      try {
        const held = parse(el.textContent || '[]');
        ring = isArray(held) ? held.concat(ring.slice(ring.length - pending)) : [];
      } catch (e) {
        ring = [];
      }
    }
    pending = 0;
    written = stringify(ring);
    el.textContent = written;
  }

  /**
   * A logged value as text, as the console shows it (a string as is, an error by its message).
   * @param {unknown} value
   * @returns {string}
   */
  function show(value) {
    if (typeof value === 'string') return value;
    if (value instanceof Error) return toString(value);
    try {
      const json = stringify(value);
      if (json !== undefined) return json;
    } catch (e) {
      // fall through to String()
    }
    try {
      return toString(value);
    } catch (e) {
      return Object.prototype.toString.call(value);
    }
  }

  /**
   * @param {Level} level
   * @param {string} text
   */
  function record(level, text) {
    ring.push({ level, text: text.length > TEXT_LIMIT ? text.slice(0, TEXT_LIMIT) : text });
    pending += 1;
    if (ring.length > LIMIT) ring = ring.slice(ring.length - LIMIT);
    if (pending > LIMIT) pending = LIMIT;
    flush();
  }

  for (const level of /** @type {Level[]} */ (['log', 'info', 'warn', 'error', 'debug'])) {
    const original = console[level];
    /** @type {(this: Console, ...args: unknown[]) => void} */
    console[level] = function (...args) {
      try {
        let text = '';
        for (let i = 0; i < args.length; i++) text += (i ? ' ' : '') + show(args[i]);
        record(level, text);
      } catch (e) {
        // never break the page's logging
      }
      return original.apply(this, args);
    };
  }
  window.addEventListener('error', (event) => {
    const text = event.error !== undefined && event.error !== null ? show(event.error) : toString(event.message);
    record('error', text.startsWith('Uncaught') ? text : 'Uncaught ' + text);
  });
  window.addEventListener('unhandledrejection', (event) => {
    record('error', 'Unhandled rejection: ' + show(event.reason));
  });
  document.addEventListener('DOMContentLoaded', () => {
    if (ring.length) flush();
  });
})();
