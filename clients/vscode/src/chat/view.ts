/**
 * The ragls chat view (a webview view in the ragls side bar): a conversation thread — each turn's question, its
 * answer streamed with clickable `[n]` citations, and its sources — an input box for follow-ups, Stop while an
 * answer streams, New Chat, and Chat History: the workspace's last threads (kept in `workspaceState`, so a reload
 * brings them back) in a quick pick.
 *
 * Each turn is tagged with its own `requestId` and its own progress token and cancellation source: deltas and the
 * result are applied only to the turn (in the thread) that started the request, so overlapping asks each land in
 * their own turn and a stale stream never writes into a newer one. Follow-ups send the finished turns as `history`
 * (docs/protocol.md); the server rewrites them into a standalone query and returns it as `retrievalQuery`.
 *
 * This is the one answer surface: "ragls: Ask" (Ctrl+Alt+A), "Ask About Selection" and "Ask in Chat" all start a
 * turn here. Each finished turn has Copy / Insert / Retry / Open all sources; a failed LLM shows its error text with
 * Retry and Open Settings above the extractive answer; closing the view (hiding it from the side bar) stops the
 * answers still streaming.
 *
 * Markdown is rendered in the extension host by markdown-it with raw HTML disabled (answer.ts); the webview's CSP
 * allows no remote resources and only its own nonce'd script and style. A turn's HTML is written by turnHtml.ts,
 * Chat History's items by history.ts.
 */
import * as vscode from 'vscode';
import { escapeHtml } from '../webview';
import { answerBody, citedPlace, createRenderer, openSource } from '../answer';
import { citationTitles, copyAnswer, insertAnswer, openAllSources } from '../answerActions';
import { AskDeltaProgress, AskRequest, AskResult, ErrorCodes, StatusRequest } from '../protocol';
import type { ServerManager } from '../server';
import { chatPage } from './page';
import { ChatThread, ChatTurn, historyOf, newThread, ThreadStore } from './thread';
import { oneLine, ThreadItem, threadItem } from './history';
import { TURN_ACTIONS, TurnAction, turnAnnouncement, turnHtml } from './turnHtml';
import { counted } from '../words';

export interface ChatAskOptions {
  /** Heading shown for the turn (default: the question). */
  shown?: string;
  /** `documents` for this turn (e.g. the selection's file). */
  documents?: string[];
}

/** Shown under an answer asked while the index was still being built (as Neovim's float does). */
export const PARTIAL_INDEX_NOTE = 'The index is still being built: this answer may miss parts of your docs not indexed yet; ask again when it is done.';

export class ChatView implements vscode.WebviewViewProvider, vscode.Disposable {
  static readonly viewType = 'ragls.chat';
  /** The workspace's threads, the current one first. */
  threads: ChatThread[];
  private view: vscode.WebviewView | undefined;
  private seq = 0;
  private readonly cancels = new Map<number, vscode.CancellationTokenSource>();
  /** Hover text of each turn's `[n]` (the cited lines), read after its result arrives; not stored. */
  private readonly titles = new Map<number, Map<number, string>>();
  private readonly render = createRenderer();
  private renderTimer: NodeJS.Timeout | undefined;
  /** What the page's live region says at the next render (`turnAnnouncement`: a turn just ended), once. */
  private announcement: string | undefined;
  private readonly _onDidUpdate = new vscode.EventEmitter<ChatThread>();
  /** Fires after each change of the current thread (tests wait on it). */
  readonly onDidUpdate = this._onDidUpdate.event;
  /** The last HTML posted (tests read it). */
  html = '';

  constructor(
    private readonly server: ServerManager,
    /** Where the threads are kept (`workspaceState`). */
    readonly store: ThreadStore,
    private readonly describeError: (error: unknown) => string,
    /** Is the server still building the index (status.ts)? Answers asked meanwhile get PARTIAL_INDEX_NOTE. */
    private readonly indexing: () => boolean = () => false,
    /** The knowledge bases picked for questions (rags.ts `RagSelection.param`); undefined: the workspace. */
    private readonly rag: () => string | string[] | undefined = () => undefined,
    /** Is the embedding model still loading (status.ts)? An answer waits for it; its turn says so. */
    private readonly modelLoading: () => boolean = () => false,
    /** Show the "ragls" output channel (a turn whose server stopped: the log says how). */
    private readonly showOutput: () => void = () => undefined,
    /** What the server is doing while it starts or indexes (status.ts `StatusBar.step`), undefined otherwise. */
    private readonly serverStep: () => string | undefined = () => undefined,
  ) {
    this.threads = store.load();
    if (!this.threads.length) {
      this.threads = [newThread()];
    }
    this.seq = Math.max(0, ...this.threads.flatMap((t) => t.turns.map((turn) => turn.requestId)));
  }

  /** The thread shown (and continued by the next question). */
  get thread(): ChatThread {
    return this.threads[0];
  }

  /** Is the view on screen (resolved, and its side bar open)? */
  get visible(): boolean {
    return this.view?.visible ?? false;
  }

  /** Is any answer still streaming? */
  get busy(): boolean {
    return this.cancels.size > 0;
  }

  resolveWebviewView(view: vscode.WebviewView): void {
    this.view = view;
    view.webview.options = { enableScripts: true, localResourceRoots: [] };
    this.html = this.bodyHtml();
    view.webview.html = chatPage(view.webview, { html: this.html, header: this.header(), busy: this.busy });
    view.webview.onDidReceiveMessage((message) => void this.handleMessage(message));
    // Closing the view (hiding it from the side bar) disposes it: answers still streaming are stopped.
    view.onDidDispose(() => {
      this.view = undefined;
      this.stop();
    });
  }

  /** Bring the chat view into sight (without taking focus from the editor). */
  reveal(): void {
    if (this.view) {
      this.view.show(true);
    } else {
      void vscode.commands.executeCommand(`${ChatView.viewType}.focus`).then(undefined, () => undefined);
    }
  }

  /**
   * Ask `question` as the next turn of the current thread; resolves with the result (undefined when stopped or
   * failed: the turn then says so). Never throws.
   */
  async ask(question: string, opts: ChatAskOptions = {}): Promise<AskResult | undefined> {
    question = question.trim();
    if (!question) {
      return undefined;
    }
    const thread = this.thread; // a New Chat meanwhile does not move this turn
    const history = historyOf(thread);
    const turn: ChatTurn = {
      requestId: ++this.seq,
      question,
      shown: opts.shown ?? question,
      markdown: '',
      streamed: '',
      status: 'waiting',
      ...(opts.documents?.length ? { documents: opts.documents } : {}),
    };
    const indexingAtStart = this.indexing();
    thread.turns.push(turn);
    const cancel = new vscode.CancellationTokenSource();
    this.cancels.set(turn.requestId, cancel);
    this.reveal();
    this.changed(true);
    try {
      const result = await this.server.withProgressToken(
        AskDeltaProgress,
        (value) => this.applyDelta(thread, turn.requestId, value.delta),
        (token) =>
          this.server.request(
            AskRequest,
            {
              question,
              partialResultToken: token,
              rag: this.rag(),
              ...(history.length ? { history } : {}),
              ...(opts.documents?.length ? { documents: opts.documents } : {}),
            },
            cancel.token,
          ),
      );
      const target = this.find(thread, turn.requestId);
      if (!target || target.status === 'stopped') {
        return undefined;
      }
      target.result = result;
      target.markdown = answerBody(result); // without the server's label line: the footer says who wrote it
      target.status = 'done';
      if (indexingAtStart || this.indexing()) {
        // An index pass is running — but a pass over unchanged files (after a settings change) leaves nothing
        // out: the note only when the server still has files queued or chunks without vectors. The answer is
        // shown first; the note follows.
        this.changed(true);
        if (await this.indexIncomplete()) {
          target.note = PARTIAL_INDEX_NOTE;
        }
      }
      void citationTitles(result).then((titles) => {
        this.titles.set(target.requestId, titles);
        this.changed(true);
      });
      return result;
    } catch (error) {
      const target = this.find(thread, turn.requestId);
      if (target) {
        const cancelled = cancel.token.isCancellationRequested
          || (error instanceof Error && 'code' in error && (error as { code: number }).code === ErrorCodes.RequestCancelled);
        target.status = cancelled ? 'stopped' : 'error';
        if (!cancelled) {
          target.error = this.describeError(error);
          target.serverStopped = error instanceof Error && 'code' in error
            && (error as { code: number }).code === ErrorCodes.PendingResponseRejected;
        }
      }
      return undefined;
    } finally {
      this.cancels.delete(turn.requestId);
      cancel.dispose();
      const ended = this.find(thread, turn.requestId);
      this.announcement = ended ? turnAnnouncement(ended) : undefined;
      this.changed(true);
    }
  }

  /** Does the server still have files queued or chunks without vectors (`rag/status`)? True when it cannot say. */
  private async indexIncomplete(): Promise<boolean> {
    try {
      const status = await this.server.request(StatusRequest, {});
      return status.folders.some((f) => f.pending > 0 || (f.pendingVectors ?? 0) > 0);
    } catch {
      return true;
    }
  }

  /** The status changed (status.ts): a waiting turn's line may say the embedding model loads, or no more. */
  statusChanged(): void {
    // A waiting turn says what it waits for; an empty thread what the server is doing (or nothing once it is ready).
    if (!this.thread.turns.length || this.thread.turns.some((t) => t.status === 'waiting')) {
      this.changed(false);
    }
  }

  /** Stop every answer still streaming (their turns keep what arrived, marked stopped). */
  stop(): void {
    for (const [requestId, cancel] of this.cancels) {
      for (const thread of this.threads) {
        const turn = this.find(thread, requestId);
        if (turn && (turn.status === 'waiting' || turn.status === 'streaming')) {
          turn.status = 'stopped';
        }
      }
      cancel.cancel();
    }
    this.changed(true);
  }

  /** Start a new thread (the current one is kept in the list); answers still streaming are stopped. */
  newChat(): void {
    this.stop();
    if (this.thread.turns.length) {
      this.threads.unshift(newThread());
    }
    this.changed(true);
  }

  /** Make the stored thread `id` the current one. */
  switchTo(id: string): boolean {
    const i = this.threads.findIndex((t) => t.id === id);
    if (i <= 0) {
      return i === 0;
    }
    const [thread] = this.threads.splice(i, 1);
    this.threads.unshift(thread);
    this.changed(true);
    return true;
  }

  /** The turn `requestId` of the current thread. */
  turn(requestId: number): ChatTurn | undefined {
    return this.find(this.thread, requestId);
  }

  /** The newest answered turn of the current thread (what Copy / Insert / Open all sources act on by default). */
  lastAnswered(): ChatTurn | undefined {
    return [...this.thread.turns].reverse().find((t) => t.status === 'done' && t.result);
  }

  /** Ask turn `requestId` again: it is taken out of the thread and asked anew as its newest turn. */
  retry(requestId: number): Promise<AskResult | undefined> {
    const thread = this.thread;
    const turn = this.find(thread, requestId);
    if (!turn || turn.status === 'waiting' || turn.status === 'streaming') {
      return Promise.resolve(undefined);
    }
    thread.turns.splice(thread.turns.indexOf(turn), 1);
    this.titles.delete(requestId);
    return this.ask(turn.question, { shown: turn.shown, documents: turn.documents });
  }

  /** Run a turn's button (TURN_ACTIONS) and return what its command returns. */
  async runAction(requestId: number, action: TurnAction): Promise<unknown> {
    const turn = this.find(this.thread, requestId);
    if (!turn) {
      return undefined;
    }
    switch (action) {
      case 'retry':
        return this.retry(requestId);
      case 'settings':
        return vscode.commands.executeCommand('ragls.openAnswerSettings');
      case 'setup':
        return vscode.commands.executeCommand('ragls.chooseAnswerBackend');
      case 'output':
        return this.showOutput();
      default:
        break;
    }
    const result = turn.result;
    if (!result) {
      return undefined;
    }
    return action === 'copy' ? copyAnswer(result) : action === 'insert' ? insertAnswer(result) : openAllSources(result);
  }

  /**
   * Open source `n` of turn `requestId` beside the chat; returns the editor. `quote`: the text of the answer's item
   * holding the clicked `[n]`, which picks the place of a source quoted at several (`citedPlace`).
   */
  async openSource(requestId: number, n: number, quote = ''): Promise<vscode.TextEditor | undefined> {
    const turn = this.find(this.thread, requestId);
    const source = turn?.result?.sources.find((s) => s.n === n);
    return source ? openSource(await citedPlace(source, quote), vscode.ViewColumn.Active) : undefined;
  }

  /**
   * Messages from the webview: ready, ask {text}, stop, new, switch {id}, history, open {turn, n, quote?}, action
   * {turn, action}.
   */
  async handleMessage(message: unknown): Promise<unknown> {
    const msg = message as {
      type?: string; text?: unknown; id?: unknown; turn?: unknown; n?: unknown; quote?: unknown; action?: unknown;
    };
    switch (msg?.type) {
      case 'ready':
        this.post();
        return undefined;
      case 'ask':
        return typeof msg.text === 'string' ? this.ask(msg.text) : undefined;
      case 'stop':
        return this.stop();
      case 'new':
        return this.newChat();
      case 'switch':
        return typeof msg.id === 'string' ? this.switchTo(msg.id) : undefined;
      case 'history':
        return this.showHistory();
      case 'open':
        return typeof msg.turn === 'number' && typeof msg.n === 'number'
          ? this.openSource(msg.turn, msg.n, typeof msg.quote === 'string' ? msg.quote : '')
          : undefined;
      case 'action':
        return typeof msg.turn === 'number' && TURN_ACTIONS.includes(msg.action as TurnAction)
          ? this.runAction(msg.turn, msg.action as TurnAction)
          : undefined;
      default:
        return undefined;
    }
  }

  private find(thread: ChatThread, requestId: number): ChatTurn | undefined {
    return thread.turns.find((t) => t.requestId === requestId);
  }

  private applyDelta(thread: ChatThread, requestId: number, delta: string): void {
    const turn = this.find(thread, requestId);
    if (!turn || (turn.status !== 'waiting' && turn.status !== 'streaming')) {
      return; // a stale stream: its turn is finished, stopped or gone
    }
    turn.status = 'streaming';
    turn.markdown += delta;
    turn.streamed += delta;
    this.changed(false);
  }

  /** Re-render (at once, or at most every 50 ms while streaming) and store the threads. */
  private changed(now: boolean): void {
    if (now) {
      if (this.renderTimer) {
        clearTimeout(this.renderTimer);
        this.renderTimer = undefined;
      }
      void this.store.save(this.threads);
      this.post();
    } else if (!this.renderTimer) {
      this.renderTimer = setTimeout(() => {
        this.renderTimer = undefined;
        this.post();
      }, 50);
    }
  }


  private bodyHtml(): string {
    const turns = this.thread.turns;
    if (!turns.length) {
      // While the server starts or indexes, what it is doing and what that means for a question asked now.
      const step = this.serverStep();
      const then = this.indexing()
        ? 'Answers meanwhile come from the documents indexed so far.'
        : 'A question asked now is answered once it is ready.';
      const now = step ? `<p class="status">ragls: ${escapeHtml(step)}. ${then}</p>` : '';
      return `<p class="empty">Ask a question about the docs in this workspace. Follow-up questions continue the thread.</p>${now}`;
    }
    return turns
      .map((t) => turnHtml(t, {
        render: this.render, titles: this.titles.get(t.requestId), modelLoading: this.modelLoading,
        serverStep: this.serverStep,
      }))
      .join('\n');
  }

  /** The page's header: the current thread's first question (the button that opens `showHistory`). */
  private header(): { label: string; title: string; earlier: number } {
    const first = oneLine(this.thread.turns[0]?.shown ?? '') || 'New chat';
    const earlier = this.threads.length - 1;
    const more = earlier ? `\n\n${counted(earlier, 'earlier chat')}: click to pick one (New Chat: + in the title bar)` : '';
    return { label: first, title: `${first}${more}`, earlier };
  }

  /** The open history pick (tests drive it). */
  historyPick: vscode.QuickPick<ThreadItem> | undefined;

  /**
   * "Show Chat History" (the header's button, the view's title bar): the workspace's threads in a quick pick, the
   * current one first — each first question whole as the label (the side bar's width cut them), how many
   * questions and when it started (today: the time) as the description, the latest question as the detail. Picking one makes it the
   * current thread (`switchTo`); resolves with its id, or undefined when dismissed.
   */
  showHistory(): Promise<string | undefined> {
    this.historyPick?.dispose();
    const qp = vscode.window.createQuickPick<ThreadItem>();
    this.historyPick = qp;
    qp.title = 'ragls: Chat History';
    qp.placeholder = 'Pick a chat to continue it (type to filter by its questions)';
    qp.matchOnDetail = true;
    qp.items = this.threads.map((t, i) => threadItem(t, i === 0));
    return new Promise((resolve) => {
      let picked: string | undefined;
      qp.onDidAccept(() => {
        picked = qp.activeItems[0]?.id ?? qp.selectedItems[0]?.id;
        qp.hide();
      });
      qp.onDidHide(() => {
        qp.dispose();
        if (this.historyPick === qp) {
          this.historyPick = undefined;
        }
        if (picked) {
          this.switchTo(picked);
        }
        resolve(picked);
      });
      qp.show();
    });
  }

  private lastBusy = false;

  private post(): void {
    if (this.busy !== this.lastBusy) {
      this.lastBusy = this.busy;
      void vscode.commands.executeCommand('setContext', 'ragls.chatBusy', this.busy);
    }
    this.html = this.bodyHtml();
    const announce = this.announcement;
    this.announcement = undefined;
    void this.view?.webview.postMessage({
      type: 'render', html: this.html, busy: this.busy, header: this.header(), ...(announce ? { announce } : {}),
    });
    this._onDidUpdate.fire(this.thread);
  }

  dispose(): void {
    if (this.renderTimer) {
      clearTimeout(this.renderTimer);
    }
    for (const cancel of this.cancels.values()) {
      cancel.cancel();
    }
    this._onDidUpdate.dispose();
  }
}
