// A command by name, as the command palette (and quick open) lists it: what the toolbar, the panels and
// the editors offer the palette, without depending on the palette.

export interface PickItem {
  label: string;
  detail?: string;
  hint?: string;
  run: () => void | Promise<void>;
}
