// What a transaction changed, for the plugins that keep their work per block and redo only the blocks it touched.
import type { Transaction } from "prosemirror-state";

/** The ranges of the new document a transaction changed (each step's, mapped to the end). */
export function changedRanges(tr: Transaction): [number, number][] {
  const ranges: [number, number][] = [];
  tr.mapping.maps.forEach((map, k) => {
    const rest = tr.mapping.slice(k + 1);
    map.forEach((_oldStart, _oldEnd, start, end) => ranges.push([rest.map(start, -1), rest.map(end, 1)]));
  });
  return ranges;
}
