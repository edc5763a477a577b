// The one shape of a shortcut table: what a key does, as the shortcuts sheet lists it (by group) and the command
// palette hints it. The page's own keys (page/keys.ts), the WYSIWYG block commands (editors/writingkeys.ts) and
// the table keys (editors/tableactions.ts) are each a table of these rows; the sheet shows them all.

export interface Shortcut {
  /** As the sheet shows them: alternatives split by " / ", the first the one the palette names. */
  keys: string;
  action: string;
  /** Where a browser keeps the key for itself: what to press instead. */
  note?: string;
  group: string;
}

/** A command of an editor with its shortcut: run by ``id``, listed and named by its shortcut's ``action``. */
export interface KeyedCommand<Id extends string> extends Shortcut {
  id: Id;
}

/** A row of a group's table: the keys, what they do, and a note when a browser may keep the keys. */
export type ShortcutRow = readonly [keys: string, action: string, note?: string];

/** The rows of one group of the sheet. */
export function shortcutGroup(group: string, rows: readonly ShortcutRow[]): Shortcut[] {
  return rows.map(([keys, action, note]) => (note === undefined ? { group, keys, action } : { group, keys, action, note }));
}

/** The commands of one group: each row an id and its shortcut. */
export function keyedCommands<Id extends string>(group: string, rows: readonly (readonly [Id, ...ShortcutRow])[]): KeyedCommand<Id>[] {
  return rows.map(([id, ...row]) => ({ id, ...shortcutGroup(group, [row])[0] }));
}

/** The keys the palette shows for a shortcut: the first of its alternatives. */
export function paletteKeys(keys: string): string {
  return keys.split(" / ")[0];
}
