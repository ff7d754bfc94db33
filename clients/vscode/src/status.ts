/**
 * The one status bar item: "starting", indexing progress with its percentage (from the server's `$/progress`
 * work-done reports titled "ragls: indexing"; the language client's own progress item is not shown for them,
 * see server.ts), then files/sections (`chunks`) from `rag/status`, with "(fallback model)" when the index uses the bundled
 * embedding model instead of the configured one, and "loading model" while the embedding model loads (search
 * uses keywords meanwhile). Clicking it runs "ragls: Show Status".
 */
import * as vscode from 'vscode';
import type { WorkDoneProgressBegin, WorkDoneProgressEnd, WorkDoneProgressReport } from 'vscode-languageclient';
import { EMBEDDING_LOADING_MESSAGE, EMBEDDING_LOADING_NOTE, INDEXING_TITLE, StatusResult } from './protocol';
import { counted } from './words';

/** Longest progress message shown whole in the step a waiting chat turn names (`StatusBar.step`: "for meaning search
 * in long sections 10400/12000", the longest of the server's steps with their counts); a longer one is cut there
 * (`barMessage`) and whole in the status bar item's tooltip. */
export const SHORT_MESSAGE_CHARS = 64;

/** Most characters of the status bar item's text while indexing, its icon's `$(sync~spin)` not counted ("ragls:
 * indexing 42% · loading model"): about the width of VS Code's "Ln 12, Col 34" and "Spaces: 4" together. */
export const ITEM_CHARS = 36;

/** A progress message as `StatusBar.step` (a waiting chat turn) says it: whole up to SHORT_MESSAGE_CHARS; else its
 * step alone, the part before its first ": " ("loading the embedding model: using the bundled offline embedding
 * model …" is the step "loading the embedding model" and a notice); else cut at a word with "…" (the status bar
 * item's tooltip has it whole). */
export function barMessage(message: string): string {
  if (message.length <= SHORT_MESSAGE_CHARS) {
    return message;
  }
  const step = message.split(': ')[0];
  if (step !== message && step.length <= SHORT_MESSAGE_CHARS) {
    return step;
  }
  const cut = message.slice(0, SHORT_MESSAGE_CHARS - 1);
  const space = cut.lastIndexOf(' ');
  return `${(space > SHORT_MESSAGE_CHARS / 2 ? cut.slice(0, space) : cut).replace(/[\s,:;(]+$/, '')}…`;
}

/**
 * What a screen reader says for a status bar item (its `accessibilityInformation.label`): the item's words without
 * its icons (an error icon said as a word), " · " as a pause, then the lines of a plain `tooltip` the item
 * does not show ("ragls: indexing 42%, for meaning search 120/288 sections, step 1 of 3"). Without it VS Code reads
 * the icon's name and the item twice: "sync~spin ragls: indexing 42%, ragls: indexing 42% for meaning search …".
 */
export function spokenLabel(text: string, tooltip?: string): string {
  const spoken = (t: string) => t.replace(/\$\([\w~-]+\)\s*/g, '').replace(/ · /g, ', ').trim();
  let head = spoken(text);
  const more: string[] = [];
  for (const line of (tooltip ?? '').split(/\n+/).map(spoken).filter(Boolean)) {
    if (line.startsWith(head)) {
      head = line; // "ragls" shown, "ragls: server not running" in the hover
    } else if (!head.startsWith(line)) {
      more.push(line);
    }
  }
  return [`${text.startsWith('$(error)') ? 'error: ' : ''}${head}`, ...more].join(', ');
}

/**
 * The embedding model for people: "all-MiniLM-L6-v2 (bundled fallback for BAAI/bge-small-en-v1.5)" when the server
 * fell back to its bundled model (`embeddingSource` "offline-fallback"), "X (not loaded yet)" before the model loaded
 * (no `embeddingSource`), else the model name — Neovim's :RagStatus words (status_view.embedding_label).
 */
export function embeddingLabel(status: StatusResult): string {
  const model = status.embeddingModel ?? '?';
  if (status.embeddingSource === 'offline-fallback') {
    const requested = status.embeddingRequested ? ` for ${status.embeddingRequested}` : '';
    return `${model} (bundled fallback${requested})`;
  }
  return status.embeddingSource ? model : `${model} (not loaded yet)`;
}

/**
 * A rag/status's notices for people (docs/protocol.md, Clients): `byFolder` holds the warnings led by a folder's path
 * ("<folder>: no file here matches sources.include ...": that folder's index holds no file, and what to set), by
 * the folder's uri and without the path; `notesByFolder` the notes led by one (its pages that autodoc fills from
 * docstrings), the same way; `notes` the others (the index keeps the model it was built with, an old setting name),
 * which need nothing done. A notice is a warning when its `noticeLevels` entry says so; from an older server (no
 * `noticeLevels`) when a folder's path leads it.
 */
export function splitNotices(status: StatusResult): { byFolder: Map<string, string[]>; notes: string[]; notesByFolder: Map<string, string[]> } {
  const byFolder = new Map<string, string[]>();
  const notesByFolder = new Map<string, string[]>();
  const notes: string[] = [];
  const folders = status.folders.map((f) => ({ uri: f.uri, path: vscode.Uri.parse(f.uri).fsPath }));
  (status.notices ?? []).forEach((notice, i) => {
    const owner = folders
      .filter((f) => notice.startsWith(`${f.path}: `))
      .sort((a, b) => b.path.length - a.path.length)[0];
    if (owner) {
      const level = status.noticeLevels?.[i];
      const into = level === 'warning' || level === undefined ? byFolder : notesByFolder;
      into.set(owner.uri, [...(into.get(owner.uri) ?? []), notice.slice(owner.path.length + 2)]);
    } else {
      notes.push(notice);
    }
  });
  return { byFolder, notes, notesByFolder };
}

/**
 * `errors` split by their `severity` (docs/protocol.md, Clients): `warnings` need the user to decide (an untrusted
 * ragls.toml's ignored settings: nothing failed), `errors` are failures. An older server sends no severity: all
 * are errors.
 */
export function splitErrors(status: StatusResult): { warnings: StatusResult['errors']; errors: StatusResult['errors'] } {
  return {
    warnings: status.errors.filter((e) => e.severity === 'warning'),
    errors: status.errors.filter((e) => e.severity !== 'warning'),
  };
}

/**
 * Why answers are extractive when an untrusted folder named an LLM (`generation.ignored`), said where the
 * generation backend is shown; undefined otherwise. With the folder's warning there it only points at it (the
 * warning names every ignored setting and how to trust the folder), else it is the whole sentence.
 */
export function ignoredLlmNote(status: StatusResult): string | undefined {
  if (!status.generation.ignored) {
    return undefined;
  }
  return splitErrors(status).warnings.length
    ? "extractive answers: the folder's LLM settings wait until you trust it; see the warning"
    : status.generation.ignored;
}

/**
 * Who writes answers, as Neovim's :RagStatus says it: "none (extractive answers, no LLM)", "openai · gpt-4o-mini";
 * when an untrusted folder's LLM settings wait and its warning is shown, why answers are extractive
 * (`ignoredLlmNote`) in place of "extractive answers, no LLM". (It was "generation: none".)
 */
export function answersLabel(status: StatusResult): string {
  const { backend, model } = status.generation;
  const note = splitErrors(status).warnings.length ? ignoredLlmNote(status) : undefined;
  const who = backend === 'none' ? `none (${note ?? 'extractive answers, no LLM'})` : backend;
  return model ? `${who} · ${model}` : who;
}

/** How a VS Code user trusts the folders in Restricted Mode (`warningMessage`). */
export const TRUST_HOW = 'trust this workspace (Workspaces: Manage Workspace Trust) to use them';

/**
 * An `errors` entry's message for people: in Restricted Mode (`trusted` false) the end that says how to trust an
 * untrusted ragls.toml (`trustHow`, newer servers: "trust the workspace in the editor to use them") said the VS Code
 * way (`TRUST_HOW`), naming the command; otherwise, and from an older server, the server's words.
 */
export function warningMessage(e: StatusResult['errors'][number], trusted = vscode.workspace.isTrusted): string {
  const how = e.trustHow;
  return !trusted && how && e.message.endsWith(how) ? `${e.message.slice(0, -how.length)}${TRUST_HOW}` : e.message;
}

/** The button that opens VS Code's Workspace Trust editor (`workbench.trust.manage`) on a message whose warning is
 * resolved by trusting the workspace (`trustWarning`): the way to do what the warning says, without a search for
 * the command it names. */
export const MANAGE_TRUST = 'Manage Workspace Trust';

/**
 * In Restricted Mode (`trusted` false), the first `errors` entry that trusting the workspace resolves: an untrusted
 * ragls.toml's warning that says how to trust it (`trustHow`, newer servers; `message` given: that warning only,
 * as the server showed it in a window/showMessage, "ragls: " before it). Undefined otherwise (trusted, an older
 * server, another warning).
 */
export function trustWarning(status: StatusResult, message?: string, trusted = vscode.workspace.isTrusted): StatusResult['errors'][number] | undefined {
  const said = message?.replace(/^ragls: /, '');
  return trusted ? undefined : splitErrors(status).warnings.find((e) =>
    e.trustHow && e.message.endsWith(e.trustHow) && (said === undefined || e.message === said));
}

/** Open VS Code's Workspace Trust editor (the command behind "Workspaces: Manage Workspace Trust"). */
export function manageWorkspaceTrust(): Thenable<unknown> {
  return vscode.commands.executeCommand('workbench.trust.manage');
}

/**
 * What the user must act on, as whole sentences, each once: the `errors` of severity warning (an untrusted
 * ragls.toml: what was ignored, how to trust it), else from an older server the folders' LLM settings ignored until
 * trusted (`generation.ignored`); then each folder's notice with its path. Empty when all is well.
 */
export function statusWarnings(status: StatusResult): string[] {
  const { byFolder } = splitNotices(status);
  const folderNotices = status.folders.flatMap((f) =>
    (byFolder.get(f.uri) ?? []).map((n) => `${vscode.Uri.parse(f.uri).fsPath}: ${n}`));
  const trust = splitErrors(status).warnings.map((e) => warningMessage(e));
  const ignored = status.generation.ignored && !trust.length ? [status.generation.ignored] : [];
  return [...trust, ...ignored, ...folderNotices];
}

/** Is the embedding model of any folder still loading (rag/status `embeddingLoading`)? */
export function embeddingLoading(status: StatusResult): boolean {
  return status.folders.some((f) => f.embeddingLoading === true);
}

/**
 * The long sections whose later embedding windows are still embedded once every section has its first vector
 * (rag/status `pendingWindows`): "later parts of 3 long sections not embedded yet (meaning search sees their start
 * meanwhile)", so a folder does not read as done while they run; '' when none is left or the server does not say.
 */
export function laterParts(pendingWindows: number | null | undefined): string {
  return pendingWindows ? `later parts of ${counted(pendingWindows, 'long section')} not embedded yet (meaning search sees their start meanwhile)` : '';
}

/**
 * A folder's vector count for people: "N sections without vectors", or while the embedding model loads (when every
 * section counts as without vectors) that it is loading, with the sections really left to embed when the index knows.
 */
export function vectorsPhrase(folder: { pendingVectors: number; pendingWindows?: number | null; embeddingLoading?: boolean; storedPendingVectors?: number | null }): string {
  if (!folder.embeddingLoading) {
    return !folder.pendingVectors && folder.pendingWindows ? laterParts(folder.pendingWindows)
      : `${counted(folder.pendingVectors, 'section')} without vectors`;
  }
  const stored = folder.storedPendingVectors;
  const left = stored === undefined || stored === null ? '' : stored === 0 ? '; every section is embedded' : `; ${counted(stored, 'section')} not embedded yet`;
  return `${EMBEDDING_LOADING_NOTE}${left}`;
}

export type StatusState = 'untrusted' | 'starting' | 'indexing' | 'ready' | 'error' | 'stopped';

export class StatusBar implements vscode.Disposable {
  readonly item: vscode.StatusBarItem;
  private _state: StatusState = 'stopped';
  private readonly indexingTokens = new Set<string | number>();
  private readonly _onDidChange = new vscode.EventEmitter<StatusState>();
  /** Fires after each state or text change (tests wait on it). */
  readonly onDidChange = this._onDidChange.event;
  /** Totals from the last `rag/status`, summed over folders. */
  totals: { files: number; chunks: number; folders: number; pendingVectors: number } | undefined;
  private loadingModel = false;
  private progressMessage: string | undefined;
  private progressPercentage: number | undefined;

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

  /** Whether `token` is an indexing progress this item shows. */
  isIndexingToken(token: string | number): boolean {
    return this.indexingTokens.has(token);
  }

  /** Whether the server is currently reporting indexing progress. */
  get indexing(): boolean {
    return this.indexingTokens.size > 0;
  }

  /** Whether the embedding model is still loading: the indexing progress says so, or (when no progress runs) the
   * last rag/status did. */
  get embeddingLoading(): boolean {
    return this.indexing ? (this.progressMessage ?? '').startsWith(EMBEDDING_LOADING_MESSAGE) : this.loadingModel;
  }

  /** After this long in one start-up step the item counts its seconds ("ragls: starting · 12 s"). */
  static STARTING_SECONDS_AFTER_MS = 3000;
  private startingTimer: NodeJS.Timeout | undefined;

  /**
   * The server is not answering yet: `label`, the step in a few words ("starting the server", "opening the index"),
   * in the item, `step` (what it waits for, in whole sentences) in the tooltip; after `STARTING_SECONDS_AFTER_MS`
   * the seconds it has waited, each second, so a slow start (a busy machine loading Python modules, a large folder
   * sized first) never looks hung and says which step takes the time without hovering.
   */
  starting(step: string, label = 'starting'): void {
    clearInterval(this.startingTimer);
    const started = Date.now();
    const show = () => {
      const seconds = Math.floor((Date.now() - started) / 1000);
      const counting = Date.now() - started >= StatusBar.STARTING_SECONDS_AFTER_MS;
      this.step = `${label}${counting ? ` · ${seconds} s` : ''}`;
      this.set('starting', `$(sync~spin) ragls: ${this.step}`, `ragls: ${step}${counting ? ` (${seconds} s so far)` : ''}`, true,
        `ragls: ${step}${counting ? `, ${seconds} s so far` : ''}`);
    };
    show();
    this.startingTimer = setInterval(show, 1000);
  }

  /** While the server starts or indexes: what it is doing, in a few words, as the item says it ("starting the
   * server · 4 s", "indexing 36% · for meaning search 120/333 sections"); undefined otherwise. A question asked meanwhile says
   * what it waits for with it (chat/view.ts). */
  step: string | undefined;

  /** Show `text` with `tooltip`; a screen reader says `spoken` (default `spokenLabel(text, tooltip)`). */
  set(state: StatusState, text: string, tooltip: string, keepTimer = false, spoken?: string): void {
    if (!keepTimer && this.startingTimer) {
      clearInterval(this.startingTimer);
      this.startingTimer = undefined;
    }
    if (state !== 'starting' && state !== 'indexing') {
      this.step = undefined;
    }
    this._state = state;
    this.item.text = text;
    this.item.tooltip = tooltip;
    this.item.accessibilityInformation = { label: spoken ?? spokenLabel(text, tooltip) };
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
      this.progressPercentage = value.percentage;
      this.showIndexing(value.message, value.percentage);
      return false;
    }
    if (!this.indexingTokens.has(token)) {
      return false;
    }
    if (value.kind === 'report') {
      // A report without a percentage or a message keeps the last one (LSP: both optional in a report).
      this.progressPercentage = value.percentage ?? this.progressPercentage;
      this.showIndexing(value.message ?? this.progressMessage, this.progressPercentage);
      return false;
    }
    this.indexingTokens.delete(token);
    return this.indexingTokens.size === 0;
  }

  private showIndexing(message: string | undefined, percentage: number | undefined): void {
    this.progressMessage = message;
    const pct = percentage !== undefined ? ` ${Math.round(percentage)}%` : '';
    // The step ("for meaning search 120/456 sections, step 1 of 3"), a long one (a model download) cut, for a waiting
    // chat turn; the whole message in the tooltip.
    const short = message ? ` · ${barMessage(message)}` : '';
    const loadingModel = (message ?? '').startsWith(EMBEDDING_LOADING_MESSAGE);
    const loading = loadingModel ? `\n\n${capitalized(EMBEDDING_LOADING_NOTE)}.` : '';
    const tooltip = `ragls: indexing${pct}${message ? `\n\n${message}` : ''}${loading}`;
    this.step = `indexing${pct}${short}`;
    // The item itself stays short (ITEM_CHARS): with the step it was ~60 characters and pushed VS Code's own Ln/Col,
    // spaces and encoding items out of a 1000-pixel window's status bar for the whole first index. Only "loading
    // model" is said there too (docs/protocol.md: search uses keywords meanwhile), as the ready item says it.
    this.set('indexing', `$(sync~spin) ragls: indexing${pct}${loadingModel ? ' · loading model' : ''}`, tooltip);
  }

  /** Forget indexing progress of a server that is gone (its `end` will never come). */
  resetProgress(): void {
    this.indexingTokens.clear();
    this.progressMessage = undefined;
  }

  /** Show the totals of a `rag/status` result (unless an indexing progress is running). */
  showStatus(status: StatusResult): void {
    const files = status.folders.reduce((n, f) => n + f.files, 0);
    const chunks = status.folders.reduce((n, f) => n + f.chunks, 0);
    const pending = status.folders.reduce((n, f) => n + f.pending, 0);
    const pendingVectors = status.folders.reduce((n, f) => n + (f.pendingVectors ?? 0), 0);
    const pendingWindows = status.folders.reduce((n, f) => n + (f.pendingWindows ?? 0), 0);
    this.totals = { files, chunks, folders: status.folders.length, pendingVectors };
    const fallback = status.embeddingSource === 'offline-fallback';
    const loading = embeddingLoading(status);
    this.loadingModel = loading;
    if (this.indexing) {
      return;
    }
    // While the model loads every chunk counts as without vectors: say it loads, and what is really left to embed.
    const stored = status.folders.map((f) => f.storedPendingVectors);
    const left = stored.every((n) => typeof n === 'number') ? stored.reduce<number>((n, s) => n + (s as number), 0) : undefined;
    const vectors = loading
      ? `${capitalized(EMBEDDING_LOADING_NOTE)}${left ? ` (${counted(left, 'section')} not embedded yet)` : ''}.`
      : pendingVectors ? `${counted(pendingVectors, 'section')} still without vectors (keyword search only for them)`
        : capitalized(laterParts(pendingWindows));
    // Warnings (what to set, what to trust) right under the totals, notes after the models; their text is the
    // server's, shown as text (a glob such as **/*.md is not markdown).
    const warnings = statusWarnings(status);
    const tooltip = new vscode.MarkdownString('', true);
    const paragraph = (markdown: string, text?: string) => {
      tooltip.appendMarkdown(`${tooltip.value ? '\n\n' : ''}${markdown}${text === undefined ? '' : markdownText(text)}`);
    };
    paragraph(`**ragls** — ${counted(files, 'file')}, ${counted(chunks, 'section')} in ${counted(status.folders.length, 'folder')}`);
    // Errors too, as the server words them (a ragls.toml that does not load: its path and why), not only counted.
    for (const error of splitErrors(status).errors) {
      paragraph('$(error) ', error.path && !error.message.includes(error.path) ? `${error.path}: ${error.message}` : error.message);
    }
    for (const warning of warnings) {
      paragraph('$(warning) ', warning);
    }
    for (const line of [pending ? `${counted(pending, 'file')} queued` : '', vectors, `embedding: ${embeddingLabel(status)}`,
      `answers: ${answersLabel(status)}`]) {
      if (line) {
        paragraph(line);
      }
    }
    const { notes, notesByFolder } = splitNotices(status);
    for (const f of status.folders) { // a folder's notes (its autodoc pages): with its path, as the server words them
      for (const note of notesByFolder.get(f.uri) ?? []) {
        paragraph('$(info) ', `${vscode.Uri.parse(f.uri).fsPath}: ${note}`);
      }
    }
    for (const note of notes) {
      paragraph('$(info) ', note);
    }
    const errors = splitErrors(status).errors;
    const problems = [
      errors.length ? `${counted(errors.length, 'error')}` : '',
      warnings.length ? `${counted(warnings.length, 'warning')}` : '',
    ].filter(Boolean).join(', ');
    paragraph(problems ? `${problems} — click for details` : 'Click for details');
    const icon = errors.length || warnings.length ? '$(warning)' : loading ? '$(loading~spin)' : '$(book)';
    const model = loading ? ' · loading model' : fallback ? ' (fallback model)' : '';
    const text = `${icon} ragls: ${counted(files, 'file')} · ${counted(chunks, 'section')}${model}`;
    // (the tooltip is markdown, for the eyes: a screen reader gets the item's words and what needs the user)
    this.set('ready', text, tooltip.value, false, spokenLabel(text, problems ? `${problems}, click for details` : ''));
    this.item.tooltip = tooltip;
    // The marker of a status that needs the user: the status bar's warning colours.
    this.item.backgroundColor = errors.length || warnings.length
      ? new vscode.ThemeColor('statusBarItem.warningBackground') : undefined;
    this.warnings = warnings;
  }

  /** The warnings of the last rag/status shown (`statusWarnings`). */
  warnings: string[] = [];

  dispose(): void {
    clearInterval(this.startingTimer);
    this.item.dispose();
    this._onDidChange.dispose();
  }
}

/**
 * `text` as markdown that shows it as it is: the characters markdown or a theme icon would read escaped. Unlike
 * `MarkdownString.appendText`, spaces stay spaces (it writes `&nbsp;`, and a hover then wraps a sentence mid-word).
 */
export function markdownText(text: string): string {
  return text.replace(/[\\`*_[\]<>$~|{}]/g, '\\$&').replace(/\n/g, ' ');
}

function capitalized(text: string): string {
  return text.charAt(0).toUpperCase() + text.slice(1);
}
