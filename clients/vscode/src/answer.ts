/**
 * How an answer is rendered and opened, shared by the chat view (the one answer surface: chat/view.ts) and the
 * `@ragls` participant: markdown with `[n]` citation links, source labels ("path:12-18") and opening a source at
 * its focus lines.
 *
 * Markdown is rendered in the extension host by markdown-it with raw HTML disabled (so server text can never
 * inject markup); the webview only swaps in the HTML.
 */
import MarkdownIt from 'markdown-it';
import * as vscode from 'vscode';
import { escapeHtml } from './webview';
import { focusOf, revealSource } from './decorations';
import type { Source } from './protocol';

/** Render answer markdown; `[n]` becomes a citation link when `n` is a known source number. */
export function createRenderer(): (
  markdown: string,
  sources: ReadonlySet<number>,
  titles?: ReadonlyMap<number, string>,
) => string {
  const md = new MarkdownIt({ html: false, linkify: false, breaks: false });
  let known: ReadonlySet<number> = new Set();
  let hover: ReadonlyMap<number, string> = new Map();
  md.inline.ruler.before('link', 'ragls_cite', (state, silent) => {
    const match = /^\[(\d{1,3})\]/.exec(state.src.slice(state.pos));
    if (!match || !known.has(Number(match[1]))) {
      return false;
    }
    if (!silent) {
      const token = state.push('ragls_cite', '', 0);
      token.meta = { n: Number(match[1]) };
    }
    state.pos += match[0].length;
    return true;
  });
  md.renderer.rules.ragls_cite = (tokens, idx) => {
    const n = Number(tokens[idx].meta.n);
    // Hover shows the cited text (answerActions.citationTitles) once it is read, else what a click does.
    const title = escapeHtml(hover.get(n) ?? `Open source ${n}`);
    return `<a href="#" class="cite" data-n="${n}" title="${title}">[${n}]</a>`;
  };
  // Links in answers open outside the webview only through VS Code (never navigate the webview itself).
  return (markdown, sources, titles) => {
    known = sources;
    hover = titles ?? new Map();
    return md.render(markdown);
  };
}

/** The source's path; in a multi-root workspace prefixed with its folder's name ("notes/meeting-notes.md"). */
export function displayPath(source: Source): string {
  const uri = vscode.Uri.parse(source.uri);
  // Relative to its workspace folder even when the server sent an absolute path (a file of the selection, sent
  // with the question as an ephemeral document, is not named relative to its folder).
  if (uri.scheme === 'file' && vscode.workspace.getWorkspaceFolder(uri)) {
    return vscode.workspace.asRelativePath(uri, (vscode.workspace.workspaceFolders?.length ?? 0) > 1);
  }
  return source.path;
}

/**
 * "path:12-18" with 1-based lines, as people read them (path as in `displayPath`): the cited lines (`focusRange`,
 * else the chunk's range), as the CLI prints them and where opening the source puts the cursor. A source an
 * extractive answer quotes at places far apart lists them all (`focusRanges`): "path:4-10, 22-27".
 */
export function sourceLabel(source: Source): string {
  const path = displayPath(source);
  if (source.focusRanges && source.focusRanges.length > 1) {
    return `${path}:${source.focusRanges.map(linesOf).join(', ')}`;
  }
  return `${path}:${linesOf(focusOf(source))}`;
}

/** "12-18", "12", or "3:1996" for one line entered mid-way: the 1-based lines of a wire range as labels show them. */
function linesOf(range: Source['range']): string {
  const start = range.start.line + 1;
  // An end at character 0 means the range stops at the end of the previous line.
  const endLine = range.end.character === 0 && range.end.line > range.start.line
    ? range.end.line
    : range.end.line + 1;
  if (start !== endLine) {
    return `${start}-${endLine}`;
  }
  // One line entered mid-way (a chunk of a line longer than a chunk): ":column", as the CLI and Neovim print it, so
  // two chunks of that line are told apart.
  return range.start.character > 0 ? `${start}:${range.start.character + 1}` : `${start}`;
}

/**
 * Open `source.uri` at its focus lines (`focusRange`, else the chunk range) in `column` (default the first), with
 * the transient highlight of decorations.ts; returns the editor. A web source opens in the browser (undefined).
 */
export async function openSource(
  source: Source,
  column = vscode.ViewColumn.One,
): Promise<vscode.TextEditor | undefined> {
  if (/^https?:/i.test(source.uri)) {
    await vscode.env.openExternal(vscode.Uri.parse(source.uri, true));
    return undefined;
  }
  return revealSource(source, { column, preview: true });
}
