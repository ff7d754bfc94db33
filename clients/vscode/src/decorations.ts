/**
 * Opening a source: the file is shown with the cursor at the cited lines — the source's `focusRange` when the
 * server sends one (docs/protocol.md), else its chunk range — and those whole lines get a transient highlight
 * (the colour `ragls.sourceHighlightBackground` and an overview-ruler mark) instead of a selection of the whole chunk.
 * The highlight goes away after `HIGHLIGHT_MS`, or when another source is highlighted in that editor.
 */
import * as vscode from 'vscode';
import { openSourceDocument } from './extracted';
import type { Range as WireRange, Source } from './protocol';

export const HIGHLIGHT_MS = 4000;

let decoration: vscode.TextEditorDecorationType | undefined;

function decorationType(): vscode.TextEditorDecorationType {
  decoration ??= vscode.window.createTextEditorDecorationType({
    isWholeLine: true,
    // ragls' own colour (package.json `colors`): editor.rangeHighlightBackground is #ffffff0b in Dark Modern, and the
    // cited lines could not be told from the others.
    backgroundColor: new vscode.ThemeColor('ragls.sourceHighlightBackground'),
    overviewRulerColor: new vscode.ThemeColor('editorOverviewRuler.rangeHighlightForeground'),
    overviewRulerLane: vscode.OverviewRulerLane.Full,
  });
  return decoration;
}

/** Highlighted line ranges per document URI (tests and hover read them). */
const active = new Map<string, { ranges: vscode.Range[]; timer: NodeJS.Timeout }>();

/** The lines a source points at: `focusRange` when present, else `range`. */
export function focusOf(source: Source): WireRange {
  return source.focusRange ?? source.range;
}

/** Whole-line VS Code range of a wire range (an end at character 0 stops at the previous line). */
export function lineRange(range: WireRange): vscode.Range {
  const first = range.start.line;
  let last = range.end.line;
  if (range.end.character === 0 && last > first) {
    last -= 1;
  }
  return new vscode.Range(first, 0, Math.max(first, last), Number.MAX_SAFE_INTEGER);
}

/** The ranges currently highlighted in the document `uri` (empty when none). */
export function highlightedRanges(uri: vscode.Uri): vscode.Range[] {
  return active.get(uri.toString())?.ranges ?? [];
}

/** Highlight `range`'s lines in `editor` for `ms` milliseconds, replacing any earlier highlight there. */
export function highlight(editor: vscode.TextEditor, range: WireRange, ms = HIGHLIGHT_MS): void {
  const key = editor.document.uri.toString();
  const previous = active.get(key);
  if (previous) {
    clearTimeout(previous.timer);
  }
  const ranges = [editor.document.validateRange(lineRange(range))];
  editor.setDecorations(decorationType(), ranges);
  const timer = setTimeout(() => {
    if (active.get(key)?.timer === timer) {
      active.delete(key);
      for (const e of vscode.window.visibleTextEditors) {
        if (e.document.uri.toString() === key) {
          e.setDecorations(decorationType(), []);
        }
      }
    }
  }, ms);
  active.set(key, { ranges, timer });
}

export interface RevealOptions {
  column?: vscode.ViewColumn;
  /** Keep focus where it is (Search Docs previews while the quick pick is open). */
  preserveFocus?: boolean;
  /** Open as a preview tab (replaced by the next preview). Default true. */
  preview?: boolean;
}

/**
 * Where the cursor goes in a source: the start of the passage that answers (`quoteRanges[0]`, newer servers: the
 * focus can open with neighbouring sentences joined to it, or the passage start mid-line after another sentence)
 * when it lies in the focus lines, else the start of the focus lines.
 */
export function cursorOf(source: Source): WireRange['start'] {
  const focus = focusOf(source);
  const at = source.quoteRanges?.[0]?.start;
  const last = lineRange(focus).end.line;
  return at && at.line >= focus.start.line && at.line <= last ? at : focus.start;
}

/**
 * Open `source.uri` with the cursor on its answering passage (`cursorOf`), revealed in the centre, and highlight
 * its focus lines (transient). Returns the editor.
 */
export async function revealSource(source: Source, opts: RevealOptions = {}): Promise<vscode.TextEditor> {
  const focus = focusOf(source);
  const at = cursorOf(source);
  const start = new vscode.Position(at.line, at.character);
  // a converted document (PDF, HTML, DOCX) opens as its extracted text, whose lines the source counts (extracted.ts)
  const editor = await vscode.window.showTextDocument(await openSourceDocument(source), {
    selection: new vscode.Range(start, start),
    viewColumn: opts.column ?? vscode.ViewColumn.One,
    preserveFocus: opts.preserveFocus ?? false,
    preview: opts.preview ?? true,
  });
  editor.revealRange(lineRange(focus), vscode.TextEditorRevealType.InCenterIfOutsideViewport);
  highlight(editor, focus);
  return editor;
}

/** Drop the decoration type (extension deactivation). */
export function disposeDecorations(): void {
  for (const { timer } of active.values()) {
    clearTimeout(timer);
  }
  active.clear();
  decoration?.dispose();
  decoration = undefined;
}
