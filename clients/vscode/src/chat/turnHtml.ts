/**
 * The HTML of one chat turn, which the chat view (view.ts) posts to its page (page.ts): the question, what a waiting
 * turn waits for, an error with what to do about it, the answer with its `[n]` citations, the sources it cites and
 * (closed) those it does not, the turn's buttons (`TURN_ACTIONS`, run by `ChatView.runAction`) and its footer. Every
 * text is escaped; the answer's markdown is rendered by markdown-it with raw HTML disabled (answer.ts).
 */
import { escapeHtml } from '../webview';
import { citedSources, createRenderer, sourceLabelParts } from '../answer';
import type { AskResult } from '../protocol';
import type { ChatTurn } from './thread';

/** The buttons under a turn (`data-action`), run by `ChatView.runAction`. */
export const TURN_ACTIONS = ['copy', 'insert', 'retry', 'openAll', 'settings', 'setup', 'output'] as const;
export type TurnAction = (typeof TURN_ACTIONS)[number];

/** A waiting turn's line while the embedding model loads (answers wait for it; search uses keywords meanwhile). */
export const WAITING_FOR_MODEL = 'Waiting for the embedding model to load (search uses keywords until it is ready)…';

/**
 * The footer of a finished turn: who wrote the answer and how long it took. An LLM model is named only when the
 * LLM wrote the answer: an abstention ("no answer") and an extractive fallback after an LLM error never name one.
 */
export function answerFooter(result: AskResult): string {
  const writer = result.abstained
    ? 'no answer (no LLM call)'
    : result.error
      ? 'extractive (the LLM failed)'
      : !result.model || result.model === 'extractive' ? 'extractive (no LLM)' : result.model;
  return [writer, ...(result.cached ? ['cached'] : []), `${(result.elapsedMs / 1000).toFixed(1)} s`].join(' · ');
}

/**
 * What a screen reader says when `turn` ends (the chat page's live region, `#announce`): the thread itself is not a
 * live region (it is redrawn as the answer streams), so without it nothing told a blind user the answer had come.
 * "Answer ready, 2 sources cited." / "No answer in your docs; 3 closest matches listed." / "The LLM failed: an
 * extractive answer is shown." / "The question failed: <why>" / "Answer stopped."; undefined while it runs.
 */
export function turnAnnouncement(turn: ChatTurn): string | undefined {
  const r = turn.result;
  const count = (n: number, what: string) => `${n} ${what}${n === 1 ? '' : 's'}`;
  if (turn.status === 'done' && r) {
    const { cited } = citedSources(r);
    if (r.abstained) {
      return `No answer in your docs; ${cited.length === 1 ? '1 closest match' : `${cited.length} closest matches`} listed.`;
    }
    const sources = `${count(cited.length, 'source')} cited.`;
    return r.error ? `The LLM failed: an extractive answer is shown, ${sources}` : `Answer ready, ${sources}`;
  }
  if (turn.status === 'error') {
    return `The question failed: ${turn.error ?? 'see the chat'}`;
  }
  return turn.status === 'stopped' ? 'Answer stopped.' : undefined;
}

/** What a turn's HTML needs besides the turn. */
export interface TurnHtmlContext {
  /** The answer's markdown as HTML, `[n]` a link when source `n` is known (answer.ts `createRenderer`). */
  render: ReturnType<typeof createRenderer>;
  /** Hover text of the turn's `[n]` (the cited lines), once read; undefined before. */
  titles: ReadonlyMap<number, string> | undefined;
  /** Is the embedding model still loading (status.ts)? A waiting turn says so. */
  modelLoading: () => boolean;
  /** What the server is doing while it starts or indexes (status.ts `StatusBar.step`), undefined otherwise. */
  serverStep: () => string | undefined;
}

/** The `<section class="turn">` of `turn`. */
export function turnHtml(turn: ChatTurn, ctx: TurnHtmlContext): string {
  const r = turn.result;
  const sources = r?.sources ?? [];
  const known = new Set(sources.map((s) => s.n));
  const parts = [`<section class="turn" data-turn="${turn.requestId}">`, `<h3 class="question">${escapeHtml(turn.shown)}</h3>`];
  // What the question was searched as: the words a follow-up took from earlier questions (`retrievalContext`; appended
  // to it, they read as part of it: "and how do I remove it? register blueprint URL prefix"), else an LLM's rewrite.
  if (r?.retrievalContext) {
    parts.push(`<p class="meta">searched with words from earlier: ${escapeHtml(r.retrievalContext)}</p>`);
  } else if (r?.retrievalQuery && r.retrievalQuery !== turn.question) {
    parts.push(`<p class="meta">searched: ${escapeHtml(r.retrievalQuery)}</p>`);
  }
  if (turn.status === 'waiting') {
    // What it waits for, as the status bar item says it ("starting the server · 4 s"), not a bare "Searching".
    const step = ctx.serverStep();
    parts.push(ctx.modelLoading()
      ? `<p class="status">${escapeHtml(WAITING_FOR_MODEL)}</p>`
      : `<p class="status">${escapeHtml(step ? `Waiting for ragls: ${step}…` : 'Searching your docs…')}</p>`);
  }
  const button = (action: TurnAction, label: string, title: string, primary = false) =>
    `<button data-action="${action}" class="${primary ? '' : 'secondary'}" title="${escapeHtml(title)}">${label}</button>`;
  if (r?.error || turn.error) {
    // The error first, what to do about it, then (for an LLM failure) the extractive answer below.
    // The headline, then the error text on its own (a long URL or errno breaks anywhere, in the editor's font).
    const what = r?.error
      ? '<p><strong>The LLM failed</strong>, so below is an extractive answer (quoted from your docs).</p>' +
        `<p class="detail">${escapeHtml(r.error.message)}</p>`
      : `<p>${escapeHtml(turn.error ?? '')}</p>`;
    // The server stopped under the request: the answer settings have nothing to do with it; the log says how.
    const help = turn.serverStopped && !r?.error
      ? button('output', 'Show Output', 'The ragls log: how the server stopped')
      : button('settings', 'Open Settings', 'The ragls answer settings (backend, model, base URL)') +
        button('setup', 'Set Up Answers…', 'ragls: Choose How Answers Are Written');
    parts.push(
      `<div class="error" role="alert">${what}<div class="actions">` +
        button('retry', 'Retry', 'Ask this question again', true) + help +
        '</div></div>',
    );
  }
  if (turn.markdown) {
    // An abstained answer says itself why ("Not in your docs: ..."): shown once, as a note; its sources are the
    // passages that came closest.
    const body = ctx.render(turn.markdown, known, ctx.titles);
    parts.push(r?.abstained ? `<div class="abstained" role="note">${body}</div>` : `<div class="answer">${body}</div>`);
  }
  if (turn.status === 'streaming') {
    parts.push('<p class="status">…</p>');
  }
  if (turn.status === 'stopped') {
    parts.push('<p class="status stopped">Stopped.</p>');
  }
  if (turn.note) {
    parts.push(`<p class="note" role="note">${escapeHtml(turn.note)}</p>`);
  }
  if (sources.length) {
    const supported = new Map((r?.citations ?? []).map((c) => [c.n, c.supported]));
    const items = (list: typeof sources) => list
      .map((s) => {
        // The heading on a line of its own under the path (a side bar is narrow).
        const title = s.title ? `<span class="heading">${escapeHtml(s.title)}</span>` : '';
        const flag = supported.get(s.n) === false ? ' <span class="unsupported">(unsupported)</span>' : '';
        // A narrow side bar wraps the path after a "/" and keeps each range of lines whole: "deployment.md:12-" above
        // "16" read as line 12. A source quoted at places far apart wraps between its ranges: kept whole, its
        // ":108-110, 119-120, 126-131" went under "[1]" and its path, each on a line of its own (flask-docs). The file
        // name and its first range go to the next line together (`.file`, an inline block) rather than break at a
        // hyphen of the name ("ch04-01-what-is-" above "ownership.md:89-94", rust-book); only a name wider than the
        // view breaks inside.
        const { path, lines, note } = sourceLabelParts(s);
        const noted = note ? ` <span class="where-note">(${escapeHtml(note)})</span>` : '';
        const ranges = lines.split(', ').map((range, i, all) =>
          `<span class="lines">${i ? '' : ':'}${escapeHtml(range)}${i < all.length - 1 ? ',' : ''}</span>`);
        const slash = path.lastIndexOf('/') + 1;
        const folders = escapeHtml(path.slice(0, slash)).replace(/\//g, '/<wbr>');
        const file = `<span class="file">${escapeHtml(path.slice(slash))}${ranges[0]}</span>`;
        const where = `${folders}${file}${ranges.length > 1 ? ` ${ranges.slice(1).join(' ')}` : ''}${noted}`;
        return `<li><a href="#" class="source" data-n="${s.n}">[${s.n}] ${where}</a>${flag}${title}</li>`;
      })
      .join('');
    // The sources the answer cites, then (closed) those it was written from but never cites: flask-docs' "load
    // config from a TOML file" listed "Sources (5)" under an answer citing [1] only.
    const { cited, uncited } = citedSources(r);
    parts.push(`<details class="sources" open><summary>${r?.abstained ? 'Closest matches' : 'Sources'} (${cited.length})</summary><ol>${items(cited)}</ol></details>`);
    if (uncited.length) {
      parts.push(`<details class="sources uncited"><summary>Also retrieved, not cited (${uncited.length})</summary><ol>${items(uncited)}</ol></details>`);
    }
  }
  if (r && turn.status === 'done') {
    const actions = [
      ...(r.abstained ? [] : [button('copy', 'Copy', 'Copy the answer and its sources as markdown'),
        button('insert', 'Insert', 'Insert the answer at the cursor of the last editor')]),
      ...(r.error ? [] : [button('retry', 'Retry', 'Ask this question again')]),
      ...(sources.length && !r.abstained ? [button('openAll', 'Open all sources', 'Open every source at its cited lines')] : []),
    ];
    parts.push(`<div class="actions turn-actions">${actions.join('')}</div>`);
  }
  if (turn.status === 'stopped') {
    parts.push(`<div class="actions">${button('retry', 'Retry', 'Ask this question again')}</div>`);
  }
  if (r) {
    parts.push(`<p class="meta">${escapeHtml(answerFooter(r))}</p>`);
  }
  parts.push('</section>');
  return parts.join('\n');
}
