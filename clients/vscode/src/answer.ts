/**
 * The answer panel: a webview that shows the question, the markdown answer as it streams, `[n]` citations and
 * the sources list. Citations and sources are links; clicking one posts `{type: "open", n}` back and the file
 * opens with the source's range selected.
 *
 * Markdown is rendered here, in the extension host, by markdown-it with raw HTML disabled (so server text can
 * never inject markup); the webview only swaps in the HTML. The webview's Content Security Policy allows no
 * remote resources: styles and the one script come from the extension with a per-render nonce.
 */
import MarkdownIt from 'markdown-it';
import * as vscode from 'vscode';
import { escapeHtml, webviewPolicy } from './webview';
import { citationTitles } from './answerActions';
import { revealSource } from './decorations';
import type { AskResult, NumberedSource, Source } from './protocol';

type Phase = 'waiting' | 'streaming' | 'done' | 'error';

/** Commands (`ragls.<name>`) the panel's buttons run on the shown answer. */
export const ANSWER_ACTIONS = ['openAllSources', 'copyAnswer', 'insertAnswer'];

/** What the panel currently shows (tests read it). */
export interface AnswerView {
  question: string;
  phase: Phase;
  /** Markdown received so far (all deltas joined), or the final answer. */
  markdown: string;
  /** Number of `$/progress` deltas received for this answer. */
  deltas: number;
  result?: AskResult;
  error?: string;
  /** Last HTML body posted to the webview. */
  html: string;
  /** Hover text of each `[n]` (the cited lines), filled in after the result arrives. */
  titles?: Map<number, string>;
}

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
  if ((vscode.workspace.workspaceFolders?.length ?? 0) > 1) {
    const folder = vscode.workspace.getWorkspaceFolder(vscode.Uri.parse(source.uri));
    if (folder) {
      return `${folder.name}/${source.path}`;
    }
  }
  return source.path;
}

/** "path:12-18" with 1-based lines, as people read them (path as in `displayPath`). */
export function sourceLabel(source: Source): string {
  const start = source.range.start.line + 1;
  // An end at character 0 means the range stops at the end of the previous line.
  const endLine = source.range.end.character === 0 && source.range.end.line > source.range.start.line
    ? source.range.end.line
    : source.range.end.line + 1;
  const path = displayPath(source);
  return start === endLine ? `${path}:${start}` : `${path}:${start}-${endLine}`;
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

export class AnswerPanel implements vscode.Disposable {
  static readonly viewType = 'ragls.answer';
  private panel: vscode.WebviewPanel | undefined;
  private readonly render = createRenderer();
  private renderTimer: NodeJS.Timeout | undefined;
  private readonly _onDidUpdate = new vscode.EventEmitter<AnswerView>();
  /** Fires after each render (tests wait on it). */
  readonly onDidUpdate = this._onDidUpdate.event;
  view: AnswerView = { question: '', phase: 'waiting', markdown: '', deltas: 0, html: '' };

  /** Show the panel for a new question (reusing the open panel), in the "waiting" phase. */
  begin(question: string): void {
    this.view = { question, phase: 'waiting', markdown: '', deltas: 0, html: '' };
    if (!this.panel) {
      this.panel = vscode.window.createWebviewPanel(
        AnswerPanel.viewType,
        'ragls: Answer',
        { viewColumn: vscode.ViewColumn.Beside, preserveFocus: true },
        { enableScripts: true, enableFindWidget: true, retainContextWhenHidden: true, localResourceRoots: [] },
      );
      this.panel.onDidDispose(() => (this.panel = undefined));
      this.panel.webview.onDidReceiveMessage((message) => void this.handleMessage(message));
      this.panel.webview.html = this.shell(this.panel.webview);
    } else {
      this.panel.reveal(vscode.ViewColumn.Beside, true);
    }
    this.panel.title = `ragls: ${question.length > 40 ? `${question.slice(0, 39)}…` : question}`;
    this.post();
  }

  /** Append one streamed piece of the answer; renders at most every 50 ms. */
  appendDelta(delta: string): void {
    this.view.phase = 'streaming';
    this.view.markdown += delta;
    this.view.deltas += 1;
    if (!this.renderTimer) {
      this.renderTimer = setTimeout(() => {
        this.renderTimer = undefined;
        this.post();
      }, 50);
    }
  }

  /** Show the final result (its `answer` replaces the streamed text). */
  finish(result: AskResult): void {
    this.clearTimer();
    this.view.phase = 'done';
    this.view.result = result;
    this.view.markdown = result.answer;
    this.post();
    const view = this.view;
    this.titlesReady = citationTitles(result).then((titles) => {
      if (this.view === view) {
        view.titles = titles;
        this.post();
      }
    });
  }

  /** Resolves when the hover texts of the last finished answer are in the panel (tests wait on it). */
  titlesReady: Promise<void> = Promise.resolve();

  /** Show a failure in the panel. */
  fail(message: string): void {
    this.clearTimer();
    this.view.phase = 'error';
    this.view.error = message;
    this.post();
  }

  /**
   * Handle a message from the webview: `{type: "open", n}` opens source n of the current result and returns
   * its editor; `{type: "ready"}` (sent when the page has loaded) re-sends the current content.
   */
  async handleMessage(message: unknown): Promise<vscode.TextEditor | undefined> {
    const msg = message as { type?: string; n?: unknown; action?: unknown };
    if (msg?.type === 'ready') {
      this.post();
      return undefined;
    }
    if (msg?.type === 'action' && typeof msg.action === 'string' && ANSWER_ACTIONS.includes(msg.action)) {
      await vscode.commands.executeCommand(`ragls.${msg.action}`);
      return undefined;
    }
    if (msg?.type !== 'open' || typeof msg.n !== 'number') {
      return undefined;
    }
    const source = this.view.result?.sources.find((s) => s.n === msg.n);
    if (!source) {
      return undefined;
    }
    // Open next to the panel, never over it.
    const column = this.panel?.viewColumn === vscode.ViewColumn.One ? vscode.ViewColumn.Two : vscode.ViewColumn.One;
    return openSource(source, column);
  }

  private clearTimer(): void {
    if (this.renderTimer) {
      clearTimeout(this.renderTimer);
      this.renderTimer = undefined;
    }
  }

  private bodyHtml(): string {
    const v = this.view;
    const sources: NumberedSource[] = v.result?.sources ?? [];
    const known = new Set(sources.map((s) => s.n));
    const parts = [`<h2 class="question">${escapeHtml(v.question)}</h2>`];
    if (v.phase === 'waiting') {
      parts.push('<p class="status">Searching your docs…</p>');
    }
    if (v.result?.abstained) {
      parts.push(
        '<div class="abstained" role="note"><strong>No answer.</strong> The indexed documents do not seem to cover this question.</div>',
      );
    }
    if (v.markdown) {
      parts.push(`<div class="answer">${this.render(v.markdown, known, v.titles)}</div>`);
    }
    if (v.phase === 'streaming') {
      parts.push('<p class="status">…</p>');
    }
    if (v.error) {
      parts.push(`<div class="error" role="alert">${escapeHtml(v.error)}</div>`);
    }
    if (sources.length) {
      const supported = new Map((v.result?.citations ?? []).map((c) => [c.n, c.supported]));
      const items = sources
        .map((s) => {
          const title = s.title ? ` — ${escapeHtml(s.title)}` : '';
          const flag = supported.get(s.n) === false ? ' <span class="unsupported" title="citation not supported by this source">(unsupported)</span>' : '';
          return `<li><a href="#" class="source" data-n="${s.n}">[${s.n}] ${escapeHtml(sourceLabel(s))}</a>${title}${flag}</li>`;
        })
        .join('');
      parts.push(`<h3>Sources</h3><ol class="sources">${items}</ol>`);
    }
    if (v.result && v.phase === 'done' && !v.result.abstained) {
      parts.push(
        '<div class="actions">' +
          (sources.length ? '<button data-action="openAllSources">Open all sources</button>' : '') +
          '<button data-action="copyAnswer">Copy answer</button>' +
          '<button data-action="insertAnswer">Insert at cursor</button></div>',
      );
    }
    if (v.result) {
      parts.push(`<p class="meta">${escapeHtml(v.result.model || 'extractive')} · ${Math.round(v.result.elapsedMs)} ms</p>`);
    }
    return parts.join('\n');
  }

  private post(): void {
    this.view.html = this.bodyHtml();
    void this.panel?.webview.postMessage({ type: 'render', html: this.view.html });
    this._onDidUpdate.fire(this.view);
  }

  /** The static page: CSP, styles, and a script that swaps in rendered HTML and reports link clicks. */
  private shell(webview: vscode.Webview): string {
    const { nonce, csp } = webviewPolicy(webview);
    return `<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="UTF-8">
<meta http-equiv="Content-Security-Policy" content="${csp}">
<meta name="viewport" content="width=device-width, initial-scale=1.0">
<title>ragls: Answer</title>
<style nonce="${nonce}">
  body { font-family: var(--vscode-font-family); font-size: var(--vscode-font-size); color: var(--vscode-foreground); padding: 0 1em 1em; line-height: 1.5; }
  h2.question { font-size: 1.15em; border-bottom: 1px solid var(--vscode-panel-border); padding-bottom: .4em; }
  a { color: var(--vscode-textLink-foreground); text-decoration: none; cursor: pointer; }
  a:hover { text-decoration: underline; }
  a.cite { font-size: .85em; vertical-align: super; }
  code, pre { font-family: var(--vscode-editor-font-family); background: var(--vscode-textCodeBlock-background); }
  pre { padding: .6em; overflow-x: auto; }
  .abstained { border-left: 3px solid var(--vscode-editorWarning-foreground); padding: .4em .8em; margin: .8em 0; background: var(--vscode-inputValidation-warningBackground); }
  .error { border-left: 3px solid var(--vscode-editorError-foreground); padding: .4em .8em; margin: .8em 0; }
  .status, .meta { color: var(--vscode-descriptionForeground); }
  .unsupported { color: var(--vscode-editorWarning-foreground); font-size: .85em; }
  ol.sources { padding-left: 1.2em; list-style: none; }
  .actions { display: flex; gap: .5em; margin: .8em 0; }
  .actions button { font: inherit; color: var(--vscode-button-secondaryForeground); background: var(--vscode-button-secondaryBackground); border: none; padding: .25em .8em; cursor: pointer; }
  .actions button:hover { background: var(--vscode-button-secondaryHoverBackground); }
</style>
</head>
<body>
<main id="content"><p class="status">Searching your docs…</p></main>
<script nonce="${nonce}">
  const vscode = acquireVsCodeApi();
  const content = document.getElementById('content');
  window.addEventListener('message', (event) => {
    const msg = event.data;
    if (msg && msg.type === 'render') { content.innerHTML = msg.html; }
  });
  content.addEventListener('click', (event) => {
    const button = event.target.closest('button[data-action]');
    if (button) { vscode.postMessage({ type: 'action', action: button.dataset.action }); return; }
    const link = event.target.closest('a');
    if (!link) { return; }
    event.preventDefault();
    const n = Number(link.dataset.n);
    if (link.dataset.n !== undefined && Number.isInteger(n)) { vscode.postMessage({ type: 'open', n }); }
  });
  vscode.postMessage({ type: 'ready' });
</script>
</body>
</html>`;
  }

  dispose(): void {
    this.clearTimer();
    this.panel?.dispose();
    this._onDidUpdate.dispose();
  }
}
