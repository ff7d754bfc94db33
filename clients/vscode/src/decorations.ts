/**
 * Opening a source: the file is shown with the cursor at the cited lines — the source's `focusRange` when the
 * server sends one (docs/protocol.md), else its chunk range — and those lines get a transient highlight (the colour
 * `ragls.sourceHighlightBackground` and an overview-ruler mark) instead of a selection of the whole chunk: whole
 * lines, except where the range starts or ends inside a line (a cited sentence after another one on its line is lit
 * from its first character, `highlightParts`). The highlight goes away after `HIGHLIGHT_MS`, or when another source
 * is highlighted in that editor.
 */
import * as vscode from 'vscode';
import { openSourceDocument } from './extracted';
import type { Range as WireRange, Source } from './protocol';

export const HIGHLIGHT_MS = 4000;

let decoration: vscode.TextEditorDecorationType | undefined;
let spanDecoration: vscode.TextEditorDecorationType | undefined;

const DECORATION_STYLE: vscode.DecorationRenderOptions = {
  // ragls' own colour (package.json `colors`): editor.rangeHighlightBackground is #ffffff0b in Dark Modern, and the
  // cited lines could not be told from the others.
  backgroundColor: new vscode.ThemeColor('ragls.sourceHighlightBackground'),
  overviewRulerColor: new vscode.ThemeColor('editorOverviewRuler.rangeHighlightForeground'),
  overviewRulerLane: vscode.OverviewRulerLane.Full,
};

/** The decoration of the lines a highlight covers whole (to the editor's edge). */
function decorationType(): vscode.TextEditorDecorationType {
  decoration ??= vscode.window.createTextEditorDecorationType({ ...DECORATION_STYLE, isWholeLine: true });
  return decoration;
}

/** The decoration of a highlight's part of a line it starts or ends inside. */
function spanDecorationType(): vscode.TextEditorDecorationType {
  spanDecoration ??= vscode.window.createTextEditorDecorationType(DECORATION_STYLE);
  return spanDecoration;
}

/** The highlighted range per document URI (`highlightParts`' `lit`; tests and hover read them). */
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

/**
 * What `highlight` lights of `range` in `doc`: `lit`, the range itself — from its first character to its last
 * where they lie inside a line ("exceptions. These error handlers ...": from "These"), else whole lines; `lines`,
 * the lines it covers whole (drawn to the editor's edge), and `spans`, its part of a line it starts or ends inside.
 * Characters are UTF-16 code units, as on the wire; an end at character 0 ends with the line before.
 */
export function highlightParts(doc: vscode.TextDocument, range: WireRange): { lit: vscode.Range; lines: vscode.Range[]; spans: vscode.Range[] } {
  const whole = doc.validateRange(lineRange(range));
  const first = whole.start.line;
  const last = whole.end.line;
  const length = (line: number): number => doc.lineAt(line).text.length;
  const from = range.start.line === first && range.start.character > 0 && range.start.character < length(first) ? range.start.character : 0;
  const to = range.end.line === last && range.end.character > 0 && range.end.character < length(last)
    && (last > first || range.end.character > from) ? range.end.character : undefined;
  const lit = new vscode.Range(first, from, last, to ?? length(last));
  if (from === 0 && to === undefined) {
    return { lit, lines: [whole], spans: [] };
  }
  if (first === last) {
    return { lit, lines: [], spans: [lit] };
  }
  const spans: vscode.Range[] = [];
  let top = first;
  let bottom = last;
  if (from > 0) {
    spans.push(new vscode.Range(first, from, first, length(first)));
    top += 1;
  }
  if (to !== undefined) {
    spans.push(new vscode.Range(last, 0, last, to));
    bottom -= 1;
  }
  return { lit, lines: top <= bottom ? [new vscode.Range(top, 0, bottom, length(bottom))] : [], spans };
}

/** Highlight `range` in `editor` (`highlightParts`) for `ms` milliseconds, replacing any earlier highlight there. */
export function highlight(editor: vscode.TextEditor, range: WireRange, ms = HIGHLIGHT_MS): void {
  const key = editor.document.uri.toString();
  const previous = active.get(key);
  if (previous) {
    clearTimeout(previous.timer);
  }
  const parts = highlightParts(editor.document, range);
  editor.setDecorations(decorationType(), parts.lines);
  editor.setDecorations(spanDecorationType(), parts.spans);
  const ranges = [parts.lit];
  const timer = setTimeout(() => {
    if (active.get(key)?.timer === timer) {
      active.delete(key);
      for (const e of vscode.window.visibleTextEditors) {
        if (e.document.uri.toString() === key) {
          e.setDecorations(decorationType(), []);
          e.setDecorations(spanDecorationType(), []);
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
  spanDecoration?.dispose();
  spanDecoration = undefined;
}
