/**
 * One function per command (palette category "ragls"). Each returns what the server answered (or undefined when
 * the user cancelled or the request failed), so tests and other extensions can run them with
 * `vscode.commands.executeCommand(id, ...args)`; optional arguments skip the input boxes.
 *
 * Failures never throw out of a command: they are shown once as an error message that says what to do next and
 * are written to the "ragls" output channel.
 */
import * as vscode from 'vscode';
import { ResponseError, WorkDoneProgress } from 'vscode-languageclient/node';
import { copyAnswer, insertAnswer, openAllSources } from './answerActions';
import type { ChatView } from './chat/view';
import { generateCommitMessage } from './commitMessage';
import {
  AskResult,
  Chunk,
  EMBEDDING_LOADING_NOTE,
  ErrorCodes,
  ModelsRequest,
  RebuildRequest,
  RebuildResult,
  StatusRequest,
  StatusResult,
} from './protocol';
import { DocsSearch } from './search';
import { chooseAnswerBackend, openSettings, SetupAnswers } from './walkthrough';
import { RagSelection } from './rags';
import { ServerManager } from './server';
import { answersLabel, embeddingLabel, embeddingLoading, ignoredLlmNote, MANAGE_TRUST, manageWorkspaceTrust, splitErrors, splitNotices, StatusBar, statusWarnings, trustWarning, vectorsPhrase, warningMessage } from './status';
import { counted } from './words';

export const COMMANDS = {
  ask: 'ragls.askQuestion',
  askSelection: 'ragls.askSelection',
  search: 'ragls.searchDocs',
  rebuild: 'ragls.rebuildIndex',
  status: 'ragls.showStatus',
  commitMessage: 'ragls.generateCommitMessage',
  restart: 'ragls.restartServer',
  openAllSources: 'ragls.openAllSources',
  copyAnswer: 'ragls.copyAnswer',
  insertAnswer: 'ragls.insertAnswer',
  chooseAnswers: 'ragls.chooseAnswerBackend',
  serverSettings: 'ragls.openServerSettings',
  answerSettings: 'ragls.openAnswerSettings',
  chatNew: 'ragls.chat.new',
  chatStop: 'ragls.chat.stop',
  chatHistory: 'ragls.chat.history',
  chatAsk: 'ragls.chat.ask',
} as const;

export interface Deps {
  server: ServerManager;
  status: StatusBar;
  output: vscode.OutputChannel;
  search: DocsSearch;
  /** The chat view, the one answer surface: Ask, Ask About Selection and Ask in Chat start a turn there. */
  chat: ChatView;
  /** Knowledge bases picked for questions and searches (rags.ts); absent: the workspace. */
  rags?: RagSelection;
}

/** Most characters of a selection put into the question. */
const MAX_SELECTION_CHARS = 4000;

/** A user-facing sentence for a failed request. */
export function describeError(error: unknown): string {
  if (error instanceof ResponseError) {
    if (error.code === ErrorCodes.RequestFailed || error.code === ErrorCodes.InvalidParams) {
      return `ragls: ${error.message}`;
    }
    if (error.code === ErrorCodes.PendingResponseRejected) {
      // The server process ended under a pending request; the language client restarts it.
      return 'ragls: the server stopped before it answered (Output → ragls says why); ask again, or run "ragls: Restart Server" if it keeps stopping.';
    }
    return `ragls: the server failed (${error.code}): ${error.message}. See Output → ragls.`;
  }
  const message = error instanceof Error ? error.message : String(error);
  return message.startsWith('ragls:') ? message : `ragls: ${message}`;
}

function isCancel(error: unknown): boolean {
  return error instanceof ResponseError && error.code === ErrorCodes.RequestCancelled;
}

export async function guarded<T>(deps: Deps, run: () => Promise<T>): Promise<T | undefined> {
  try {
    return await run();
  } catch (error) {
    if (isCancel(error)) {
      return undefined;
    }
    const message = describeError(error);
    deps.output.appendLine(message);
    void vscode.window.showErrorMessage(message);
    return undefined;
  }
}

/** "ragls: Ask" (Ctrl+Alt+A): input box → a new turn of the chat view (a follow-up of its current thread). */
export function askQuestion(deps: Deps, question?: string): Promise<AskResult | undefined> {
  return guarded(deps, async () => {
    const q = question ?? (await vscode.window.showInputBox({
      title: 'ragls: Ask',
      prompt: 'Ask a question about the docs in this workspace',
      placeHolder: 'How do I …?',
      ignoreFocusOut: true,
    }));
    if (!q?.trim()) {
      return undefined;
    }
    return deps.chat.ask(q.trim());
  });
}

/**
 * The selection's file as a `documents` entry: relative to the first workspace folder when inside it (PROTOCOL:
 * paths are relative to the first folder), else the absolute path; undefined for unsaved/untitled files.
 */
export function selectionDocument(document: vscode.TextDocument): string | undefined {
  if (document.uri.scheme !== 'file' || document.isUntitled) {
    return undefined;
  }
  const first = vscode.workspace.workspaceFolders?.[0];
  if (first) {
    const rel = vscode.workspace.asRelativePath(document.uri, false);
    const folder = vscode.workspace.getWorkspaceFolder(document.uri);
    if (folder?.uri.toString() === first.uri.toString() && rel !== document.uri.fsPath) {
      return rel;
    }
  }
  return document.uri.fsPath;
}

/**
 * "ragls: Ask About Selection": a new turn in the chat view (the thread continues from it). PROTOCOL v1's `documents` takes paths, globs, URLs, `%%` and commands, not raw
 * text, so the selection goes in two ways: its file as an ephemeral document, and its text (with the file and
 * line range) appended to the question.
 */
export function askSelection(deps: Deps, question?: string): Promise<AskResult | undefined> {
  return guarded(deps, async () => {
    const editor = vscode.window.activeTextEditor;
    if (!editor || editor.selection.isEmpty) {
      void vscode.window.showInformationMessage('ragls: select some text first, then run "ragls: Ask About Selection".');
      return undefined;
    }
    // The selection as it was when the command ran (the input box keeps focus out of the editor).
    const { document, selection } = editor;
    // A selection ending at the start of a line (Shift+Down, Ctrl+L, a triple click) holds nothing of that line: the
    // lines end before it ("3-7" was shown, and told the model, for lines 3-6), as answer.ts reads a range's end.
    const last = selection.end.character === 0 && selection.end.line > selection.start.line ? selection.end.line : selection.end.line + 1;
    const where = `${vscode.workspace.asRelativePath(document.uri)}:${selection.start.line + 1}-${last}`;
    const q = question ?? (await vscode.window.showInputBox({
      title: 'ragls: Ask About Selection',
      prompt: `Ask a question about ${where}`, // (it said "the selected text": which lines, the turn's heading says)
      value: 'What does this mean?',
      ignoreFocusOut: true,
    }));
    if (!q?.trim()) {
      return undefined;
    }
    let text = document.getText(selection);
    if (text.length > MAX_SELECTION_CHARS) {
      text = `${text.slice(0, MAX_SELECTION_CHARS)}\n…`;
    }
    const fence = text.includes('```') ? '~~~~' : '```';
    const full = `${q.trim()}\n\nSelected text (${where}):\n${fence}\n${text}\n${fence}`;
    const doc = selectionDocument(document);
    return deps.chat.ask(full, { shown: `${q.trim()} (${where})`, documents: doc ? [doc] : undefined });
  });
}

/** "ragls: Search Docs": the live quick pick (search.ts); with `query` it opens prefilled. Returns the chunk. */
export function searchDocs(deps: Deps, query?: string): Promise<Chunk | undefined> {
  return guarded(deps, () => deps.search.open(query ?? ''));
}

/** "ragls: Rebuild Index": all folders, or the folder given (Uri or URI string). */
export function rebuildIndex(deps: Deps, folder?: vscode.Uri | string): Promise<RebuildResult | undefined> {
  return guarded(deps, async () => {
    const workspaceFolder = folder === undefined ? undefined : folder.toString();
    const result = await vscode.window.withProgress(
      { location: vscode.ProgressLocation.Notification, title: 'ragls: rebuilding index', cancellable: true },
      (progress, cancel) => {
        let last = 0;
        return deps.server.withProgressToken(
          WorkDoneProgress.type,
          (value) => {
            if (value.kind === 'end') {
              return;
            }
            const increment = value.percentage !== undefined ? Math.max(0, value.percentage - last) : undefined;
            last = value.percentage ?? last;
            progress.report({ message: value.message, increment });
          },
          (token) =>
            deps.server.request(
              RebuildRequest,
              { ...(workspaceFolder ? { workspaceFolder } : {}), workDoneToken: token },
              cancel,
            ),
        );
      },
    );
    const left = result.skipped.length + (result.skippedMore ?? 0); // newer servers list 50, count the rest
    const skipped = left ? `, ${left} skipped` : '';
    void vscode.window.showInformationMessage(
      `ragls: indexed ${counted(result.files, 'file')}, ${counted(result.chunks, 'section')}${skipped} in ${(result.elapsedMs / 1000).toFixed(1)} s.`,
    );
    await deps.server.refreshStatus();
    return result;
  });
}

/** The status as plain text lines (for the output channel). */
export function formatStatus(status: StatusResult): string[] {
  const lines = [
    `ragls status — embedding ${embeddingLabel(status)}, store ${status.store}`,
    `  answers: ${answersLabel(status)}`, // (with the untrusted folder's warning below: why they are extractive)
  ];
  const { warnings, errors } = splitErrors(status);
  const ignored = ignoredLlmNote(status);
  if (ignored && !warnings.length) { // an older server: no warning names the ignored settings
    lines.push(`  warning: ${ignored}`);
  }
  for (const w of warnings) {
    lines.push(`  warning: ${warningMessage(w)}`);
  }
  const { byFolder, notes, notesByFolder } = splitNotices(status);
  for (const f of status.folders) {
    lines.push(
      `  ${vscode.Uri.parse(f.uri).fsPath}: ${counted(f.files, 'file')}, ${counted(f.chunks, 'section')}, ${f.pending} queued, ` +
        `${vectorsPhrase(f)}; index ${f.indexPath}${f.writer ? '' : ' (read-only: another process holds the lock)'}`,
    );
    for (const notice of byFolder.get(f.uri) ?? []) {
      lines.push(`    warning: ${notice}`);
    }
    for (const notice of notesByFolder.get(f.uri) ?? []) {
      lines.push(`    note: ${notice}`);
    }
    for (const s of f.skipped) {
      lines.push(`    skipped ${s.path}: ${s.reason}`);
    }
    if (f.skippedMore) { // newer servers list the first 50 files left out and count the rest
      lines.push(`    skipped … and ${f.skippedMore} more`);
    }
  }
  for (const note of notes) {
    lines.push(`  note: ${note}`);
  }
  for (const e of errors) {
    // A message that already leads with its file (an untrusted ragls.toml's notice) is not prefixed with it again.
    const where = e.path && !e.message.startsWith(e.path) ? ` in ${e.path}` : '';
    lines.push(`  error${where}: ${e.message}`);
  }
  return lines;
}

/** Longest warning a Show Status message shows (`shortWarning`); the output channel has it whole. */
export const SHORT_WARNING_CHARS = 90;

/**
 * A status warning as a notification shows it: a folder's path as the folder's name ("/tmp/ws/app: no file here
 * matches ..." is "app: no file here matches ..."), cut before what it goes on to explain — its first ": " or code
 * span ("no file here matches sources.include `{globs}`: ragls indexes documentation files by default;
 * to index others, ... in /tmp/ws/app/ragls.toml (docs/configuration.md)" is "app: no file here matches
 * sources.include") — and at most SHORT_WARNING_CHARS characters, cut at a word. The whole warning is in the output
 * channel (formatStatus), which the message's Show Details opens.
 */
export function shortWarning(warning: string, status: StatusResult): string {
  let text = warning;
  const folders = status.folders.map((f) => vscode.Uri.parse(f.uri).fsPath).sort((a, b) => b.length - a.length);
  for (const path of folders) {
    const name = path.split(/[\\/]/).filter(Boolean).pop() ?? path;
    text = text.split(`${path}/`).join(`${name}/`).split(`${path}: `).join(`${name}: `);
  }
  const lead = /^[^\s:]+: /.exec(text)?.[0] ?? ''; // "app: " of a folder's notice
  const rest = text.slice(lead.length);
  const cut = [rest.indexOf(': '), rest.indexOf(' `')].filter((i) => i >= 12).sort((a, b) => a - b)[0];
  text = lead + (cut === undefined ? rest : rest.slice(0, cut));
  if (text.length > SHORT_WARNING_CHARS) {
    const head = text.slice(0, SHORT_WARNING_CHARS - 1);
    text = `${head.slice(0, Math.max(head.lastIndexOf(' '), SHORT_WARNING_CHARS / 2))}…`;
  }
  return text.replace(/[\s.;,]+$/, '');
}

/** "ragls: Show Status": a summary message, details in the output channel. Returns the status. */
export function showStatus(deps: Deps): Promise<StatusResult | undefined> {
  return guarded(deps, async () => {
    const status = await deps.server.request(StatusRequest, {});
    deps.status.showStatus(status);
    for (const line of formatStatus(status)) {
      deps.output.appendLine(line);
    }
    const t = deps.status.totals!;
    const errors = splitErrors(status).errors.length;
    const summary =
      `ragls: ${counted(t.files, 'file')}, ${counted(t.chunks, 'section')} in ${counted(t.folders, 'folder')}; ` +
      `answers: ${answersLabel(status)}` +
      // the model when it is not the one configured, or not loaded yet (it said nothing of it until it loaded)
      (status.embeddingSource === 'offline-fallback' || !status.embeddingSource ? `; embedding: ${embeddingLabel(status)}` : '') +
      (errors ? `; ${counted(errors, 'error')}` : '') +
      (embeddingLoading(status) ? `; ${EMBEDDING_LOADING_NOTE}` : '');
    // The first warning in short (what is wrong, where); what to do and the others are in the details.
    const warnings = statusWarnings(status);
    const more = warnings.length > 1 ? ` (+${counted(warnings.length - 1, 'more warning', 'more warnings')})` : '';
    // In Restricted Mode, an untrusted ragls.toml's warning comes with the button that does what it says.
    const trust = trustWarning(status) ? [MANAGE_TRUST] : [];
    const show = warnings.length
      ? vscode.window.showWarningMessage(`${summary}. ${shortWarning(warnings[0], status)}${more}; what to do: ${trust.length ? `${MANAGE_TRUST} or ` : ''}Show Details.`, ...trust, 'Show Details')
      : vscode.window.showInformationMessage(summary, 'Show Details');
    // Not awaited: the command returns while the message is still shown.
    void show.then((choice) => {
      if (choice === MANAGE_TRUST) {
        void manageWorkspaceTrust();
      } else if (choice) {
        deps.output.show(true);
      }
    });
    return status;
  });
}

/** Register every command; the disposables go onto the extension context. */
export function registerCommands(context: vscode.ExtensionContext, deps: Deps): void {
  const register = (id: string, fn: (...args: never[]) => unknown) =>
    context.subscriptions.push(vscode.commands.registerCommand(id, fn));
  register(COMMANDS.ask, (question?: string) => askQuestion(deps, typeof question === 'string' ? question : undefined));
  register(COMMANDS.askSelection, (question?: string) =>
    askSelection(deps, typeof question === 'string' ? question : undefined),
  );
  register(COMMANDS.search, (query?: string) => searchDocs(deps, typeof query === 'string' ? query : undefined));
  register(COMMANDS.rebuild, (folder?: vscode.Uri | string) => rebuildIndex(deps, folder));
  register(COMMANDS.status, () => showStatus(deps));
  register(COMMANDS.commitMessage, (arg?: unknown) => generateCommitMessage(deps, arg));
  register(COMMANDS.restart, () => guarded(deps, () => deps.server.restart()));
  // On the newest answer of the chat's current thread, or on turn `requestId` (a number argument).
  const withAnswer = <T>(fn: (result: AskResult) => Promise<T>) => (requestId?: unknown) => {
    const turn = typeof requestId === 'number' ? deps.chat.turn(requestId) : deps.chat.lastAnswered();
    const result = turn?.result;
    if (!result) {
      void vscode.window.showInformationMessage('ragls: no answer yet; run "ragls: Ask" first.');
      return Promise.resolve(undefined);
    }
    return guarded(deps, () => fn(result));
  };
  register(COMMANDS.openAllSources, withAnswer(openAllSources));
  register(COMMANDS.copyAnswer, withAnswer(copyAnswer));
  register(COMMANDS.insertAnswer, withAnswer(insertAnswer));
  register(COMMANDS.chooseAnswers, (given?: SetupAnswers) =>
    guarded(deps, async () => {
      const answers = given && typeof given === 'object' ? given : {};
      // Who writes them now, in the pick (not asked when the caller gave the kind: no pick is shown)
      const now = answers.kind ? undefined : await deps.server.request(StatusRequest, {}).then(answersLabel, () => undefined);
      return chooseAnswerBackend(async (params) => (await deps.server.request(ModelsRequest, params)).servers, answers, now);
    }),
  );
  register(COMMANDS.serverSettings, () => openSettings('ragls.server', true));
  register(COMMANDS.answerSettings, () => openSettings('ragls.generation'));
  register(COMMANDS.chatNew, () => deps.chat.newChat());
  register(COMMANDS.chatStop, () => deps.chat.stop());
  register(COMMANDS.chatHistory, () => deps.chat.showHistory());
  register(COMMANDS.chatAsk, async (question?: string) => {
    const q = typeof question === 'string' ? question : await vscode.window.showInputBox({
      title: 'ragls: Ask in Chat',
      prompt: 'Ask a question (a follow-up continues the current chat)',
      ignoreFocusOut: true,
    });
    return q?.trim() ? deps.chat.ask(q) : undefined;
  });
}
