// The person's writing preferences as the page applies them now: spell checking (`editor.spellcheck`, on by
// default), focus mode (`editor.focus_mode`) and typewriter mode (`editor.typewriter_mode`). The editors read
// them and hear every change (modes.ts loads and stores them); the page's root says which modes are on, for
// the style sheet (`data-focus-mode`, `data-typewriter`).
export interface WritingPrefs {
  spellcheck: boolean;
  focus: boolean;
  typewriter: boolean;
}

export const prefs: WritingPrefs = { spellcheck: true, focus: false, typewriter: false };
const listeners = new Set<() => void>();

/** Hear every change of the preferences; the returned function stops it. */
export function onPrefs(listener: () => void): () => void {
  listeners.add(listener);
  return () => listeners.delete(listener);
}

/** Take `next` (the rest stays), mark the page's root, tell the editors. */
export function setPrefs(next: Partial<WritingPrefs>): void {
  const changed = (Object.keys(next) as (keyof WritingPrefs)[]).some((k) => next[k] !== undefined && next[k] !== prefs[k]);
  Object.assign(prefs, next);
  const root = document.documentElement;
  root.toggleAttribute("data-focus-mode", prefs.focus);
  root.toggleAttribute("data-typewriter", prefs.typewriter);
  root.dataset.spellcheck = String(prefs.spellcheck);
  if (changed) for (const listener of listeners) listener();
}
