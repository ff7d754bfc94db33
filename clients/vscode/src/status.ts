/**
 * The status bar item: "starting", indexing progress (from the server's `$/progress` work-done reports titled
 * "ragls: indexing"), then files/chunks from `rag/status`. Clicking it runs "ragls: Show Status".
 */
import * as vscode from 'vscode';
import type { WorkDoneProgressBegin, WorkDoneProgressEnd, WorkDoneProgressReport } from 'vscode-languageclient';
import { INDEXING_TITLE, StatusResult } from './protocol';

export type StatusState = 'untrusted' | 'starting' | 'indexing' | 'ready' | 'error' | 'stopped';

export class StatusBar implements vscode.Disposable {
  readonly item: vscode.StatusBarItem;
  private _state: StatusState = 'stopped';
  private readonly indexingTokens = new Set<string | number>();
  private readonly _onDidChange = new vscode.EventEmitter<StatusState>();
  /** Fires after each state or text change (tests wait on it). */
  readonly onDidChange = this._onDidChange.event;
  /** Totals from the last `rag/status`, summed over folders. */
  totals: { files: number; chunks: number; folders: number } | undefined;

  constructor(showStatusCommand: string) {
    this.item = vscode.window.createStatusBarItem('ragls.status', vscode.StatusBarAlignment.Left, 10);
    this.item.name = 'ragls';
    this.item.command = showStatusCommand;
    this.set('stopped', '$(book) ragls', 'ragls: server not running');
    this.item.show();
  }

  get state(): StatusState {
    return this._state;
  }

  get text(): string {
    return this.item.text;
  }

  /** Whether the server is currently reporting indexing progress. */
  get indexing(): boolean {
    return this.indexingTokens.size > 0;
  }

  set(state: StatusState, text: string, tooltip: string): void {
    this._state = state;
    this.item.text = text;
    this.item.tooltip = tooltip;
    this.item.backgroundColor =
      state === 'error' ? new vscode.ThemeColor('statusBarItem.errorBackground') : undefined;
    this._onDidChange.fire(state);
  }

  /**
   * Feed one work-done progress value (from the language client middleware). Returns true when an indexing
   * progress just ended, so the caller can refresh the totals.
   */
  onWorkDoneProgress(
    token: string | number,
    value: WorkDoneProgressBegin | WorkDoneProgressReport | WorkDoneProgressEnd,
  ): boolean {
    if (value.kind === 'begin') {
      if (!value.title.startsWith(INDEXING_TITLE)) {
        return false;
      }
      this.indexingTokens.add(token);
      this.showIndexing(value.message, value.percentage);
      return false;
    }
    if (!this.indexingTokens.has(token)) {
      return false;
    }
    if (value.kind === 'report') {
      this.showIndexing(value.message, value.percentage);
      return false;
    }
    this.indexingTokens.delete(token);
    return this.indexingTokens.size === 0;
  }

  private showIndexing(message: string | undefined, percentage: number | undefined): void {
    const pct = percentage !== undefined ? ` ${Math.round(percentage)}%` : '';
    const detail = message ? ` ${message}` : '';
    this.set('indexing', `$(sync~spin) ragls:${detail || pct}`, `ragls: indexing${pct}${detail}`);
  }

  /** Forget indexing progress of a server that is gone (its `end` will never come). */
  resetProgress(): void {
    this.indexingTokens.clear();
  }

  /** Show the totals of a `rag/status` result (unless an indexing progress is running). */
  showStatus(status: StatusResult): void {
    const files = status.folders.reduce((n, f) => n + f.files, 0);
    const chunks = status.folders.reduce((n, f) => n + f.chunks, 0);
    const pending = status.folders.reduce((n, f) => n + f.pending, 0);
    this.totals = { files, chunks, folders: status.folders.length };
    if (this.indexing) {
      return;
    }
    const tooltip = new vscode.MarkdownString(
      [
        `**ragls** — ${files} files, ${chunks} chunks in ${status.folders.length} folder(s)`,
        pending ? `${pending} file(s) queued` : '',
        `embedding: ${status.embeddingModel}`,
        `generation: ${status.generation.backend}${status.generation.model ? ` (${status.generation.model})` : ''}`,
        status.errors.length ? `${status.errors.length} error(s) — click for details` : 'Click for details',
      ]
        .filter(Boolean)
        .join('\n\n'),
    );
    const icon = status.errors.length ? '$(warning)' : '$(book)';
    this.set('ready', `${icon} ragls: ${files} files · ${chunks} chunks`, tooltip.value);
    this.item.tooltip = tooltip;
  }

  dispose(): void {
    this.item.dispose();
    this._onDidChange.dispose();
  }
}
