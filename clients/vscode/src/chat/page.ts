/**
 * The chat view's webview page (`chat/view.ts` sets it once per view): the current thread's first question (a button
 * opening Chat History, a quick pick), the thread, and the input
 * with Send / Stop (New Chat and Stop are also the view's title-bar actions, package.json `view/title`), its styles
 * in the editor's theme colours, and the script that runs in the webview: it replaces the thread with the HTML of
 * each `render` message (following the stream, a new question shown from its heading) and posts `ask`, `stop`,
 * `history`, `action` and `open` messages back. Everything it shows is rendered in the extension host (view.ts);
 * the page itself carries no data. The CSP (webview.ts) allows only its own nonce'd style and script.
 */
import type * as vscode from 'vscode';
import { escapeHtml, webviewPolicy } from '../webview';

/** What the page shows when it loads (the view's current `render` message), so it is never blank or "Loading…". */
export interface ChatPageInitial {
  /** The thread's HTML, rendered in the extension host (view.ts). */
  html: string;
  header: { label: string; title: string; earlier: number };
  busy: boolean;
}

/**
 * The HTML of the chat view's page, with a fresh nonce for `webview`, showing `initial` from its first paint: the
 * view opened at start-up showed nothing until the page had loaded, asked for its content and got it back.
 */
export function chatPage(webview: vscode.Webview, initial?: ChatPageInitial): string {
  const { nonce, csp } = webviewPolicy(webview);
  const header = initial?.header ?? { label: 'New chat', title: 'Chat history', earlier: 0 };
  return `<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="UTF-8">
<meta http-equiv="Content-Security-Policy" content="${csp}">
<meta name="viewport" content="width=device-width, initial-scale=1.0">
<title>ragls chat</title>
<style nonce="${nonce}">
  body { font-family: var(--vscode-font-family); font-size: var(--vscode-font-size); color: var(--vscode-foreground); padding: 0; margin: 0; display: flex; flex-direction: column; height: 100vh; }
  header { display: flex; gap: .4em; padding: .4em .6em; border-bottom: 1px solid var(--vscode-panel-border); }
  header button#threads { flex: 1; min-width: 0; display: flex; align-items: center; gap: .4em; text-align: left; padding: .2em .4em; font-family: inherit; font-size: inherit; background: var(--vscode-dropdown-background); color: var(--vscode-dropdown-foreground); border: 1px solid var(--vscode-dropdown-border); }
  header button#threads .label { flex: 1; min-width: 0; overflow: hidden; white-space: nowrap; text-overflow: ellipsis; }
  header button#threads .more { color: var(--vscode-descriptionForeground); white-space: nowrap; }
  main { flex: 1; overflow-y: auto; padding: 0 .8em; line-height: 1.5; position: relative; }
  section.turn { border-bottom: 1px solid var(--vscode-panel-border); padding-bottom: .6em; }
  h3.question { font-size: 1.05em; margin: .8em 0 .3em; }
  a { color: var(--vscode-textLink-foreground); text-decoration: none; cursor: pointer; }
  a:hover { text-decoration: underline; }
  a.cite { font-size: .85em; vertical-align: super; }
  code, pre { font-family: var(--vscode-editor-font-family); background: var(--vscode-textCodeBlock-background); }
  /* Code wraps inside the narrow side bar (indentation kept) instead of scrolling sideways, where the end of a
     command was hidden behind a scroll bar; a long token breaks only where nothing else fits. */
  pre { padding: .6em; white-space: pre-wrap; overflow-wrap: anywhere; }
  code { overflow-wrap: anywhere; }
  code .nw { white-space: nowrap; } /* a word of inline code kept whole (answer.ts createRenderer) */
  table { display: block; max-width: 100%; overflow-x: auto; }
  .abstained { border-left: 3px solid var(--vscode-editorWarning-foreground); padding: .4em .8em; margin: .6em 0; }
  .error { border-left: 3px solid var(--vscode-editorError-foreground); padding: .4em .8em; margin: .6em 0; }
  .status, .meta, .empty, .note { color: var(--vscode-descriptionForeground); }
  .note { font-style: italic; }
  .error p { margin: 0 0 .4em; }
  .error p.detail { font-family: var(--vscode-editor-font-family); font-size: .9em; overflow-wrap: anywhere; }
  .actions { display: flex; flex-wrap: wrap; gap: .4em; margin: .5em 0; }
  .actions button { padding: .15em .7em; }
  .unsupported { color: var(--vscode-editorWarning-foreground); font-size: .85em; }
  details.sources ol { padding-left: .6em; list-style: none; margin: .2em 0; }
  details.sources li { margin-bottom: .3em; padding-left: 1.9em; text-indent: -1.9em; }
  details.sources a.source { overflow-wrap: anywhere; }
  details.sources a.source .lines { white-space: nowrap; }
  /* (top: a name wider than the view wraps inside it, its first line beside "[1]"; by the baseline "[1]" stood beside
     its last line, the first one above it) */
  details.sources a.source .file { display: inline-block; vertical-align: top; max-width: 100%; text-indent: 0; text-decoration: inherit; }
  details.sources a.source .where-note { color: var(--vscode-descriptionForeground); font-size: .92em; }
  details.sources.uncited summary { color: var(--vscode-descriptionForeground); }
  details.sources .heading { display: block; color: var(--vscode-descriptionForeground); font-size: .92em; text-indent: 0; }
  footer { display: flex; gap: .4em; padding: .5em .6em; border-top: 1px solid var(--vscode-panel-border); }
  textarea { flex: 1; resize: none; font-family: inherit; font-size: inherit; background: var(--vscode-input-background); color: var(--vscode-input-foreground); border: 1px solid var(--vscode-input-border, transparent); padding: .3em; }
  /* The theme's button border: Dark Modern's secondary buttons (Copy, Insert, Retry) have no background of their own,
     only that border, and read as plain words without it. */
  button { background: var(--vscode-button-background); color: var(--vscode-button-foreground); border: 1px solid var(--vscode-button-border, transparent); padding: .3em .8em; cursor: pointer; }
  button.secondary { background: var(--vscode-button-secondaryBackground); color: var(--vscode-button-secondaryForeground); }
  /* Keyboard focus in the theme's focus colour, as VS Code draws it: the webview's own rule outlines a focused link
     in -webkit-focus-ring-color, near black (#101010), unseen on a dark theme, and a focused button not at all. */
  a:focus, button:focus, summary:focus, textarea:focus { outline: 1px solid var(--vscode-focusBorder); outline-offset: -1px; }
  [hidden] { display: none !important; }
  /* Read by a screen reader, not shown: the live region that says an answer is ready (#announce). */
  .sr-only { position: absolute; width: 1px; height: 1px; overflow: hidden; clip-path: inset(50%); white-space: nowrap; }
</style>
</head>
<body>
<header>
  <button id="threads" title="${escapeHtml(header.title)}"><span class="label">${escapeHtml(header.label)}</span><span class="more">${header.earlier ? `History (${header.earlier}) ▾` : 'History ▾'}</span></button>
</header>
<main id="content" aria-label="Chat thread">${initial?.html ?? '<p class="empty">Loading…</p>'}</main>
<footer>
  <textarea id="input" rows="2" placeholder="Ask your docs, or follow up…" title="Enter sends, Shift+Enter starts a new line"></textarea>
  <button id="send">Send</button>
  <button id="stop" class="secondary"${initial?.busy ? '' : ' hidden'}>Stop</button>
</footer>
<div id="announce" class="sr-only" role="status" aria-live="polite"></div>
<script nonce="${nonce}">
  const vscode = acquireVsCodeApi();
  const content = document.getElementById('content');
  const input = document.getElementById('input');
  const send = document.getElementById('send');
  const stop = document.getElementById('stop');
  const threads = document.getElementById('threads');
  const announce = document.getElementById('announce');
  // The thread turn by turn: a turn whose HTML did not change keeps its elements, so keyboard focus (a link or button
  // of an earlier turn, reached with Shift+Tab while an answer streams), a <details> the user opened and a screen
  // reader's place stay; a turn that changed is replaced, its focused element focused again in the new one. The
  // whole thread was replaced at each render (every 50 ms while an answer streams), which dropped focus to the page.
  // Focus is given back only while the page has it: given back to a citation just clicked, it took the focus from
  // the editor its source had opened in.
  const FOCUSABLE = 'a, button, summary, [tabindex]';
  const shown = new Map(); // data-turn -> the HTML its section was made from
  function patch(html) {
    const tpl = document.createElement('template');
    tpl.innerHTML = html;
    const next = Array.from(tpl.content.children);
    if (!next.length || !next.every((n) => n.matches('section.turn[data-turn]'))) {
      shown.clear();
      content.replaceChildren(tpl.content);
      return;
    }
    // (only while the page has the focus: a citation clicked opens its file, and the editor has the focus then)
    const focused = document.hasFocus() ? document.activeElement : null;
    const focusTurn = focused && content.contains(focused) ? focused.closest('section.turn') : null;
    const focusAt = focusTurn ? Array.from(focusTurn.querySelectorAll(FOCUSABLE)).indexOf(focused) : -1;
    const old = new Map();
    for (const node of Array.from(content.childNodes)) {
      if (node.nodeType === 1 && node.matches('section.turn[data-turn]')) { old.set(node.dataset.turn, node); } else { node.remove(); }
    }
    const ids = new Set(next.map((n) => n.dataset.turn));
    for (const id of Array.from(shown.keys())) { if (!ids.has(id)) { shown.delete(id); } }
    const wanted = next.map((n) => {
      const id = n.dataset.turn;
      const kept = old.get(id) && shown.get(id) === n.outerHTML ? old.get(id) : n;
      shown.set(id, n.outerHTML);
      return kept;
    });
    for (const node of old.values()) { if (!wanted.includes(node)) { node.remove(); } }
    wanted.forEach((node, i) => {
      if (content.children[i] !== node) { content.insertBefore(node, content.children[i] || null); }
    });
    if (focusTurn && !focusTurn.isConnected && focusAt >= 0) {
      const again = wanted.find((n) => n.dataset.turn === focusTurn.dataset.turn);
      const target = again ? again.querySelectorAll(FOCUSABLE)[focusAt] : undefined;
      if (target) { target.focus({ preventScroll: true }); }
    }
  }
  window.addEventListener('message', (event) => {
    const msg = event.data;
    if (!msg || msg.type !== 'render') { return; }
    const atEnd = content.scrollTop + content.clientHeight >= content.scrollHeight - 40;
    const before = content.querySelectorAll('section.turn').length;
    patch(msg.html);
    const turns = content.querySelectorAll('section.turn');
    const newest = turns[turns.length - 1];
    if (turns.length > before && before > 0) {
      newest.scrollIntoView({ block: 'start' }); // a new question: show it from its heading
    } else if (atEnd) {
      // Follow the stream, but never past the newest turn's heading (its error and first lines stay in view).
      content.scrollTop = newest ? Math.min(content.scrollHeight, newest.offsetTop) : content.scrollHeight;
    }
    stop.hidden = !msg.busy;
    const header = msg.header || { label: 'New chat', title: 'Chat history', earlier: 0 };
    threads.querySelector('.label').textContent = header.label;
    threads.querySelector('.more').textContent = header.earlier ? 'History (' + header.earlier + ') ▾' : 'History ▾';
    threads.title = header.title;
    if (msg.announce) {
      // Said again when the same words come twice (two answers in a row citing as many sources).
      announce.textContent = '';
      setTimeout(() => { announce.textContent = msg.announce; }, 100);
    }
  });
  function submit() {
    const text = input.value.trim();
    if (!text) { return; }
    input.value = '';
    vscode.postMessage({ type: 'ask', text });
  }
  // Focus coming to the view from the keyboard (its Focus command, F6, Tab from the workbench) lands in the question
  // box, as in VS Code's own chat: it came to the page, whose last focused link or nothing took it, and the keys typed
  // next were lost. A click keeps what it clicked (its pointer press comes just before the focus).
  let pressedAt = 0;
  document.addEventListener('pointerdown', () => { pressedAt = Date.now(); }, true);
  window.addEventListener('focus', () => {
    if (Date.now() - pressedAt > 500 && document.activeElement !== input) { input.focus(); }
  });
  send.addEventListener('click', submit);
  input.addEventListener('keydown', (e) => { if (e.key === 'Enter' && !e.shiftKey) { e.preventDefault(); submit(); } });
  stop.addEventListener('click', () => vscode.postMessage({ type: 'stop' }));
  threads.addEventListener('click', () => vscode.postMessage({ type: 'history' }));
  content.addEventListener('click', (event) => {
    const action = event.target.closest('button[data-action]');
    if (action) {
      const section = action.closest('section.turn');
      if (section) { vscode.postMessage({ type: 'action', turn: Number(section.dataset.turn), action: action.dataset.action }); }
      return;
    }
    const link = event.target.closest('a');
    if (!link) { return; }
    event.preventDefault();
    const turn = link.closest('section.turn');
    const n = Number(link.dataset.n);
    if (turn && link.dataset.n !== undefined && Number.isInteger(n)) {
      // The answer's item holding a [n] picks the place of a source quoted at several (answer.ts citedPlace).
      const item = link.classList.contains('cite') ? link.closest('li, p') : null;
      vscode.postMessage({ type: 'open', turn: Number(turn.dataset.turn), n, quote: item ? item.textContent : '' });
    }
  });
  vscode.postMessage({ type: 'ready' });
</script>
</body>
</html>`;
}
