/**
 * What a user does with a finished answer: read the cited text on hover over `[n]`, "Open all sources",
 * "Copy answer" (markdown with its numbered sources), "Insert at cursor" (into the last text editor that had
 * focus, since the chat view itself takes it). The buttons under each chat turn run these.
 */
import * as vscode from 'vscode';
import { answerBody, citedSources, sourceLabel } from './answer';
import { focusOf, lineRange, revealSource } from './decorations';
import type { AskResult, NumberedSource } from './protocol';

/** Most characters of cited text shown on hover. */
export const HOVER_CHARS = 400;

/** The text of a source's focus lines (its chunk lines without `focusRange`), trimmed to `max` characters. */
export async function citedText(source: NumberedSource, max = HOVER_CHARS): Promise<string> {
  try {
    const doc = await vscode.workspace.openTextDocument(vscode.Uri.parse(source.uri));
    const text = doc.getText(doc.validateRange(lineRange(focusOf(source)))).trim();
    return text.length > max ? `${text.slice(0, max - 1)}…` : text;
  } catch {
    return '';
  }
}

/** Hover titles for the `[n]` links: "[n] path:lines" and the cited text. */
export async function citationTitles(result: AskResult): Promise<Map<number, string>> {
  const titles = new Map<number, string>();
  await Promise.all(
    result.sources.map(async (s) => {
      const text = await citedText(s);
      titles.set(s.n, `[${s.n}] ${sourceLabel(s)}${text ? `\n\n${text}` : ''}`);
    }),
  );
  return titles;
}

/** The answer as markdown followed by the numbered sources it cites (`[n] path:lines — title`; all of them when
 * `citedSources` cannot tell): what the view lists as "Sources", not the ones it was written from but never cites. */
export function answerMarkdown(result: AskResult): string {
  const lines = [answerBody(result)];
  const { cited } = citedSources(result);
  if (cited.length) {
    lines.push('', 'Sources:', '');
    for (const s of cited) {
      lines.push(`[${s.n}] ${sourceLabel(s)}${s.title ? ` — ${s.title}` : ''}`);
    }
  }
  return `${lines.join('\n')}\n`;
}

/** Open every source of the answer (each in its own tab, the cited lines highlighted); returns the editors. */
export async function openAllSources(result: AskResult): Promise<vscode.TextEditor[]> {
  const editors: vscode.TextEditor[] = [];
  for (const source of result.sources) {
    editors.push(await revealSource(source, { preview: false, preserveFocus: true }));
  }
  return editors;
}

/** Copy `answerMarkdown` to the clipboard; returns the text. */
export async function copyAnswer(result: AskResult): Promise<string> {
  const text = answerMarkdown(result);
  await vscode.env.clipboard.writeText(text);
  void vscode.window.setStatusBarMessage('ragls: answer copied', 3000);
  return text;
}

let lastEditor: vscode.TextEditor | undefined;

/** Remember the last focused text editor (the chat view takes focus from it). */
export function trackEditors(): vscode.Disposable {
  lastEditor = vscode.window.activeTextEditor;
  return vscode.window.onDidChangeActiveTextEditor((e) => {
    if (e && e.document.uri.scheme !== 'output') {
      lastEditor = e;
    }
  });
}

/** Insert `answerMarkdown` at the cursor of the last focused text editor; returns that editor. */
export async function insertAnswer(result: AskResult): Promise<vscode.TextEditor | undefined> {
  const editor = vscode.window.activeTextEditor ?? lastEditor;
  if (!editor || editor.document.isClosed) {
    void vscode.window.showInformationMessage('ragls: open a file and place the cursor where the answer should go.');
    return undefined;
  }
  const shown = await vscode.window.showTextDocument(editor.document, editor.viewColumn);
  await shown.edit((edit) => {
    for (const sel of shown.selections) {
      edit.replace(sel, answerMarkdown(result));
    }
  });
  return shown;
}
