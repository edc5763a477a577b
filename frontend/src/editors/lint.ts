// Workflow tabs: actionlint's diagnostics in the gutter and under the text, from `ui.validate` (the same
// check as the agents' `workflow.validate`). The app checks the text it holds, so the lint source first
// passes unsent keystrokes on; @codemirror/lint drops an answer if the person typed on meanwhile (it only
// applies diagnostics to the document they were asked for) and asks again after the next pause.
import { type Diagnostic, linter, lintGutter } from "@codemirror/lint";
import type { Extension, Text } from "@codemirror/state";
import type { EditorView } from "@codemirror/view";
import { utf16Offset } from "../shared/merge";
import type { Channel } from "../shared/protocol";
import type { Finding } from "../wire.gen";

/** Quiet time after the last change before the app is asked (the edit debounce is shorter: it goes first). */
export const LINT_DELAY_MS = 400;

const SEVERITIES: ReadonlySet<string> = new Set(["error", "warning", "info", "hint"]);

/** The gutter and the linter for the workflow tab `tabId`; `flush` sends the tab's unsent keystrokes. */
export function workflowLint(channel: Channel, tabId: string, flush: () => Promise<void>): Extension[] {
  const source = async (view: EditorView): Promise<readonly Diagnostic[]> => {
    const doc = view.state.doc; // the document this answer is for
    await flush();
    const verdict = await channel.request("ui.validate", { tabId });
    // Without actionlint the app has no verdict, which is not a finding about the text.
    if (!verdict.binaryAvailable) return [];
    return verdict.diagnostics.map((finding) => diagnosticAt(doc, finding));
  };
  return [linter(source, { delay: LINT_DELAY_MS }), lintGutter()];
}

/**
 * A finding placed in `doc`: from its column to the end of the word there, clamped into the document.
 * One of `ui.validate`'s diagnostics: actionlint's 1-based line and column. The column counts
 * characters for YAML findings but UTF-8 bytes inside `${{ }}` expressions (actionlint's own inconsistency), so
 * it is read as characters and clamped to the line: a marker is always on the right line, at worst a little late.
 */
function diagnosticAt(doc: Text, finding: Finding): Diagnostic {
  const number = Math.min(Math.max(Math.trunc(finding.line) || 1, 1), doc.lines);
  const line = doc.line(number);
  const column = Math.max(Math.trunc(finding.col) || 1, 1) - 1;
  const from = line.from + Math.min(utf16Offset(line.text, column), line.length);
  const word = /^\S+/.exec(line.text.slice(from - line.from));
  return {
    from,
    to: from + (word ? word[0].length : 0),
    severity: SEVERITIES.has(finding.severity) ? (finding.severity as Diagnostic["severity"]) : "error",
    message: finding.message,
    source: "actionlint",
  };
}
