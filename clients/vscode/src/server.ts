/**
 * Start, stop and restart the ragls LanguageClient; one instance per window (all workspace folders go to the
 * one server, which indexes each of them). Restarts are queued and never overlap. Requests go through
 * `request()`, which waits for the server to be running and starts it if needed.
 */
import { randomUUID } from 'node:crypto';
import { mkdirSync } from 'node:fs';
import * as vscode from 'vscode';
import {
  CancellationToken,
  CloseAction,
  DidChangeConfigurationNotification,
  ErrorAction,
  ErrorHandler,
  LanguageClient,
  LanguageClientOptions,
  ProgressType,
  RequestType,
  MessageType,
  RevealOutputChannelOn,
  ServerOptions,
  ShowMessageNotification,
  ShowMessageParams,
  State,
  TransportKind,
} from 'vscode-languageclient/node';
import { estimateArgs, firstIndexQuestion, longFirstIndexes, runEstimate } from './firstIndex';
import { Launch, resolveLaunch } from './launch';
import { StatusRequest, StatusResult } from './protocol';
import { messageShow } from './serverMessage';
import { crashedMessage, pythonError, RecordingChannel, startFailureMessage } from './startFailure';
import { initializationOptions, SECTION, serverSettings } from './settings';
import { MANAGE_TRUST, manageWorkspaceTrust, StatusBar, trustWarning, warningMessage } from './status';
import { openSettings } from './walkthrough';

/** File types the server indexes by default; their open/save events are forwarded to it. */
const DOCUMENT_PATTERN = '**/*.{md,markdown,mdx,rst,txt,adoc,org}';
/** How long after a ragls.toml changed the status is asked again (then after 3 times as long). */
const SETTINGS_STATUS_MS = 2000;
/** How long a failed start's toast waits for the Python exception on the server's stderr (ms): it often comes
 * after the connection failed. */
const STDERR_GRACE_MS = 1500;
/** How often the status is asked again while the embedding model loads. */
const STATUS_RELOAD_MS = 2000;

/** The language client, without its own toasts while ragls' message says what went wrong: a server that stopped
 * while it started showed "ragls client: couldn't create connection to server." (and after an automatic restart
 * "Restarting server failed") beside ragls' message naming the cause. They still go to its output channel. */
class RaglsLanguageClient extends LanguageClient {
  /** True when ragls has shown its own message about the current failure. */
  saidWhy: () => boolean = () => false;

  override error(message: string, data?: unknown, showNotification: boolean | 'force' = true): void {
    super.error(message, data, this.saidWhy() ? false : showNotification);
  }
}

export class ServerManager implements vscode.Disposable {
  private client: LanguageClient | undefined;
  private queue: Promise<void> = Promise.resolve();
  /** Last launch failure message, so the same error is shown only once. */
  private lastError: string | undefined;
  /** The last rag/status failure logged, until one succeeds: logged once, not per refresh. */
  private lastStatusFailure: string | undefined;
  private readonly _onDidStart = new vscode.EventEmitter<LanguageClient>();
  private reloadTimer: NodeJS.Timeout | undefined;
  /** The folders' ragls.toml changed on disk, for every client this manager starts (the clients do not dispose a
   * watcher given in their options: it is disposed with the manager). */
  private readonly settingsFiles = vscode.workspace.createFileSystemWatcher('**/ragls.toml');
  /** Fires each time a client reaches the running state. */
  readonly onDidStart = this._onDidStart.event;
  private readonly _onDidAnswer = new vscode.EventEmitter<string>();
  /** Fires with a request's method ("rag/ask") each time the server answered one sent through `request`. */
  readonly onDidAnswer = this._onDidAnswer.event;

  /** The output channel as the language client writes to it (the server's stderr), its end kept for
   * `pythonError`: why a server stopped while it started. */
  private readonly recording: RecordingChannel;
  private readonly clientOutput: vscode.OutputChannel;

  /**
   * @param serverDir where the server (and `ragls estimate`) starts: the extension's global storage, a directory no
   * workspace folder controls (launch.ts); created when missing.
   */
  constructor(
    private readonly output: vscode.OutputChannel,
    private readonly status: StatusBar,
    private readonly serverDir: string,
  ) {
    this.recording = new RecordingChannel(output);
    this.clientOutput = this.recording.wrapped;
    // A ragls.toml saved on an open workspace: the server keeps or applies it (a reopen shows its progress, whose
    // end refreshes the item); one that does not load is only in rag/status `errors`: ask for it again shortly.
    this.subscriptions.push(
      this.settingsFiles.onDidChange(() => this.statusSoon()),
      this.settingsFiles.onDidCreate(() => this.statusSoon()),
      vscode.workspace.onDidSaveTextDocument((doc) => {
        if (doc.uri.scheme === 'file' && doc.uri.path.endsWith('/ragls.toml')) {
          this.statusSoon();
        }
      }),
    );
  }

  private readonly subscriptions: vscode.Disposable[] = [];
  private settingsTimers: NodeJS.Timeout[] = [];

  /** Refresh the status item after the server had time to read a changed ragls.toml (twice: a busy machine). */
  private statusSoon(): void {
    this.settingsTimers.forEach(clearTimeout);
    // Not while the workspace could not be opened ('error'): the server opens it once the file is fixed and the
    // progress of that opening refreshes the item; asking meanwhile only logs the same failure again.
    this.settingsTimers = [SETTINGS_STATUS_MS, 3 * SETTINGS_STATUS_MS].map((ms) => setTimeout(() => {
      if (!this.status.indexing && this.status.state !== 'starting' && this.status.state !== 'error') {
        void this.refreshStatus();
      }
    }, ms));
  }

  /** The running client, if any. */
  get running(): LanguageClient | undefined {
    return this.client?.state === State.Running ? this.client : undefined;
  }

  /** How the question before a long first index is asked (tests replace it). */
  askFirstIndex: (message: string, ...items: string[]) => Thenable<string | undefined> = (message, ...items) =>
    vscode.window.showWarningMessage(message, ...items);

  /**
   * Start unless running (queued behind any restart in progress). Resolves when the attempt is over. `confirm`
   * (activation): first ask before a long first index (firstIndex.ts); a start a command needs never asks.
   */
  start(confirm = false): Promise<void> {
    return this.enqueue(async () => {
      if (!this.client) {
        await this.doStart(confirm);
      }
    });
  }

  /**
   * Whether to index now: true unless a workspace folder not indexed yet would take longer than
   * `ragls.indexConfirmMinutes` (`ragls estimate`) and the user does not choose "Index Now".
   */
  async firstIndexApproved(launch: Extract<Launch, { ok: true }>, env: NodeJS.ProcessEnv): Promise<boolean> {
    const minutes = vscode.workspace.getConfiguration(SECTION).get<number>('indexConfirmMinutes', 10);
    const folders = vscode.workspace.workspaceFolders ?? [];
    if (!(minutes > 0) || !folders.length) {
      return true;
    }
    const settings = initializationOptions();
    this.status.starting('measuring the documents to index, to ask first if the first index would take long (ragls estimate)',
      'measuring the folder');
    const estimates = await Promise.all(folders.map((f) => {
      const args = estimateArgs(launch.args, f.uri.fsPath, settings);
      return args ? runEstimate(launch.command, args, env, launch.cwd) : Promise.resolve(undefined);
    }));
    folders.forEach((f, i) => {
      const e = estimates[i];
      this.output.appendLine(e
        ? `ragls: estimate for ${f.uri.fsPath}: ${e.files} files, ~${e.chunks} chunks, ${e.seconds} s to embed${e.indexed ? ' (indexed before)' : ''}`
        : `ragls: no estimate for ${f.uri.fsPath} (the server will index it)`);
    });
    const long = longFirstIndexes(estimates, minutes);
    if (!long.length) {
      return true;
    }
    this.status.set('starting', '$(question) ragls: index?', 'ragls: waiting for your answer: index now?');
    const name = (folder: string) => folders.find((f) => f.uri.fsPath === folder)?.name ?? folder;
    const choice = await this.askFirstIndex(firstIndexQuestion(long, name), 'Index Now', 'Not Now');
    if (choice === 'Index Now') {
      return true;
    }
    this.output.appendLine(`ragls: not indexing ${long.map((e) => e.folder).join(', ')} now; any ragls command starts it`);
    this.status.set('stopped', '$(book) ragls: not indexed',
      'ragls: the first index was not started — click here (or run any ragls command) to start it');
    return false;
  }

  /** Stop then start again; queued, so two quick restarts never overlap. */
  restart(): Promise<void> {
    return this.enqueue(async () => {
      this.output.appendLine('ragls: restarting the server');
      await this.doStop();
      this.lastError = undefined;
      await this.doStart();
    });
  }

  /** Stop the server (used by deactivate). */
  stop(): Promise<void> {
    return this.enqueue(() => this.doStop());
  }

  private enqueue(step: () => Promise<void>): Promise<void> {
    const next = this.queue.then(step, step);
    this.queue = next.catch(() => undefined);
    return next;
  }

  private async doStart(confirm = false): Promise<void> {
    this.status.starting('finding the ragls server', 'finding the server');
    if (!vscode.workspace.isTrusted) {
      // Restricted mode: the server starts (from the user's own ragls.server.* settings), told the workspace is
      // untrusted, so the folders' ragls.toml only tunes retrieval (docs/security.md, "Folder trust").
      this.output.appendLine('ragls: restricted mode: the folders\' ragls.toml settings that run programs, reach the network or read outside the folder are ignored until you trust this workspace');
    }
    const env = { ...process.env };
    mkdirSync(this.serverDir, { recursive: true });
    const launch = await resolveLaunch(serverSettings(), env, this.serverDir);
    if (!launch.ok) {
      this.status.set('error', '$(error) ragls', launch.message);
      this.output.appendLine(launch.message);
      if (launch.message !== this.lastError) {
        this.lastError = launch.message;
        void vscode.window.showErrorMessage(launch.message, 'Open Settings').then((choice) => {
          if (choice) {
            void openSettings('ragls.server', true);
          }
        });
      }
      return;
    }
    if (confirm && !(await this.firstIndexApproved(launch, env))) {
      return;
    }
    this.output.appendLine(`ragls: starting ${launch.command} ${launch.args.join(' ')} (${launch.how})`);
    // Until the server answers `initialize`; its indexing progress ("opening the index", ...) takes over then.
    this.status.starting(`starting the server (${launch.how}): Python loads ragls and its libraries, a few seconds (longer on a busy machine)`,
      'starting the server');
    const serverOptions: ServerOptions = {
      command: launch.command,
      args: launch.args,
      transport: TransportKind.stdio,
      // Never a workspace folder (the language client's default): a folder is untrusted input (launch.ts).
      options: { env, cwd: launch.cwd },
    };
    let failed = false; // initialize failed: a Python error printed after it still names the cause
    let fallback: ErrorHandler | undefined; // the language client's default error handler, once the server ran
    const clientOptions: LanguageClientOptions = {
      // ragls.toml too: its didSave makes the server reopen with it, also when the workspace could not be opened
      // because of it (and so runs no watcher of its own); the watcher below tells it of a change made elsewhere.
      documentSelector: [{ scheme: 'file', pattern: DOCUMENT_PATTERN }, { scheme: 'file', pattern: '**/ragls.toml' }],
      synchronize: { fileEvents: this.settingsFiles },
      initializationOptions: initializationOptions(),
      outputChannel: this.clientOutput,
      revealOutputChannelOn: RevealOutputChannelOn.Never,
      initializationFailedHandler: (error) => {
        // A server that exits before it answers fails as "Pending response rejected since connection got
        // disposed" or "write EPIPE": the Python exception it printed says why (also when its stderr comes after:
        // onText below updates the item; the toast waits STDERR_GRACE_MS for it).
        failed = true;
        const why = (): string => {
          const cause = pythonError(this.recording.text);
          return cause
            ? startFailureMessage(cause, launch.command)
            : `ragls: the server failed to initialize: ${error instanceof Error ? error.message : String(error)}. See Output → ragls.`;
        };
        this.status.set('error', '$(error) ragls', why());
        setTimeout(() => {
          const message = why();
          if (message !== this.lastError) { // the language client starts a crashed server again, up to 4 times
            this.lastError = message;
            void vscode.window.showErrorMessage(message, 'Show Output').then((choice) => {
              if (choice) {
                this.output.show(true);
              }
            });
          }
        }, pythonError(this.recording.text) ? 0 : STDERR_GRACE_MS);
        return false;
      },
      // A server that stops before it ever answered `initialize` is not started again and again (the language
      // client's default: up to 5 times in 3 minutes, each with its toast), and the writes that failed meanwhile
      // ("write EPIPE", a toast each) are only logged: initializationFailedHandler says why. Once it has run, a
      // crash gets the default handling and restarts.
      errorHandler: {
        error: (error, message, count) => (started
          ? (fallback ??= client.createDefaultErrorHandler()).error(error, message, count)
          : { action: ErrorAction.Continue, handled: true }),
        closed: async () => {
          if (!started) {
            return { action: CloseAction.DoNotRestart, handled: true };
          }
          const result = await (fallback ??= client.createDefaultErrorHandler()).closed();
          // its last word, when it gives up restarting: ragls' (the cause the server printed, when it did)
          return result.action === CloseAction.DoNotRestart && !result.handled
            ? { ...result, message: crashedMessage(pythonError(this.recording.text)) }
            : result;
        },
      },
      middleware: {
        handleWorkDoneProgress: (token, params, next) => {
          const wasIndexing = this.status.isIndexingToken(token);
          const ended = this.status.onWorkDoneProgress(token, params);
          // Indexing progress is shown once, by our status item (with its percentage); the language client's own
          // window progress would show it a second time. Its `end` still goes through, to release the client's part.
          if (params.kind === 'end' || !(wasIndexing || this.status.isIndexingToken(token))) {
            next(token, params);
          }
          if (ended) {
            void this.refreshStatus();
          }
        },
      },
    };
    this.recording.reset();
    this.recording.onText = (recent) => {
      const cause = failed && this.status.state === 'error' ? pythonError(recent) : undefined;
      if (cause && !String(this.status.item.tooltip).includes(cause)) {
        this.status.set('error', '$(error) ragls', startFailureMessage(cause, launch.command));
      }
    };
    const client = new RaglsLanguageClient('ragls', 'ragls', serverOptions, clientOptions);
    client.saidWhy = () => failed; // initializationFailedHandler said why
    client.onNotification(ShowMessageNotification.type, (params) => void this.showServerMessage(client, params));
    let started = false;
    client.onDidChangeState((e) => {
      if (this.client !== client) {
        return;
      }
      if (e.newState === State.Stopped) {
        this.status.resetProgress(); // the stopped server's progress will never end
        if (failed && this.status.state === 'error') {
          return; // it stopped while starting: the item keeps saying why (initializationFailedHandler)
        }
        this.status.set('stopped', '$(debug-disconnect) ragls', 'ragls: server stopped — click for status');
      } else if (started && e.newState === State.Starting) {
        // The language client starts a server that stopped again (its error handler), up to 5 times in 3 minutes.
        this.status.starting('the server stopped (Output → ragls says why); starting it again', 'restarting the server');
      } else if (started && e.newState === State.Running) {
        void this.refreshStatus();
      }
    });
    this.client = client;
    try {
      await client.start();
      if (!client.isRunning()) {
        // (start() resolves when the connection closed before initialize failed: the client is "startFailed")
        throw new Error(failed ? 'the server stopped while starting' : `the client is ${client.state === State.Stopped ? 'stopped' : 'not running'}`);
      }
      started = true;
    } catch (error) {
      this.client = undefined;
      void Promise.resolve(client.dispose()).catch(() => undefined);
      const message = `ragls: the server did not start: ${error instanceof Error ? error.message : String(error)}`;
      this.output.appendLine(message);
      if (this.status.state !== 'error') {
        this.status.set('error', '$(error) ragls', message);
      }
      return;
    }
    this._onDidStart.fire(client);
    if (this.status.state === 'starting') { // no indexing progress yet: rag/status answers once the index is open
      this.status.starting('the server is opening the index', 'opening the index');
    }
    if (!this.status.indexing) {
      await this.refreshStatus();
    }
  }

  /**
   * The server's window/showMessage, shown as the language client shows it (a notification of its level), except
   * an untrusted ragls.toml's warning in Restricted Mode: said with VS Code's way to trust (`warningMessage`) and a
   * "Manage Workspace Trust" button that opens the Workspace Trust editor (it said "trust the workspace in the
   * editor to use them", and nothing more). Which warning that is, rag/status says (`trustWarning`: its
   * `trustHow`, newer servers); an older server's, or one rag/status cannot confirm, is shown as it came.
   */
  private async showServerMessage(client: LanguageClient, params: ShowMessageParams): Promise<void> {
    if (params.type === MessageType.Warning && !vscode.workspace.isTrusted) {
      const status = await client.sendRequest(StatusRequest, {}).then((s) => s, () => undefined);
      const warning = status && trustWarning(status, params.message);
      if (warning) {
        const choice = await vscode.window.showWarningMessage(`ragls: ${warningMessage(warning)}`, MANAGE_TRUST);
        if (choice === MANAGE_TRUST) {
          await manageWorkspaceTrust();
        }
        return;
      }
    }
    const how = messageShow(params.type);
    if (how === 'output') {
      this.clientOutput.appendLine(`ragls: ${params.message}`);
      return;
    }
    const show = how === 'error' ? vscode.window.showErrorMessage
      : how === 'warning' ? vscode.window.showWarningMessage : vscode.window.showInformationMessage;
    void show(params.message);
  }

  private async doStop(): Promise<void> {
    const client = this.client;
    this.client = undefined;
    if (client) {
      try {
        await client.stop(5000);
      } catch (error) {
        this.output.appendLine(`ragls: stop failed: ${String(error)}`);
      }
      // (a client that never started throws here as stop() did: the restart must go on to start a new one)
      await Promise.resolve(client.dispose()).catch(() => undefined);
    }
    this.status.resetProgress();
    this.status.set('stopped', '$(book) ragls', 'ragls: server not running');
  }

  /** Send the pass-through settings as `workspace/didChangeConfiguration` (section `ragls`). */
  async sendConfiguration(): Promise<void> {
    const client = this.running;
    if (client) {
      await client.sendNotification(DidChangeConfigurationNotification.type, {
        settings: { ragls: initializationOptions() },
      });
    }
  }

  /** The running client, starting the server if needed; throws an Error with a user-facing message. */
  async ready(): Promise<LanguageClient> {
    if (!this.running) {
      await this.start();
    }
    await this.queue;
    let client = this.running;
    if (!client && this.client?.state === State.Starting) {
      // The language client starting the server again after it stopped (its error handler restarts a server that
      // exits): wait for that start (client.start() returns it) instead of failing the request.
      await this.client.start().catch(() => undefined);
      client = this.running;
    }
    if (!client) {
      throw new Error(this.lastError ?? 'ragls: the server is not running. See Output → ragls, then run "ragls: Restart Server".');
    }
    return client;
  }

  /** Send a request to the running server (starting it if needed). */
  async request<P, R>(type: RequestType<P, R, void>, params: P, token?: CancellationToken): Promise<R> {
    const client = await this.ready();
    const result = await client.sendRequest(type, params, token);
    this._onDidAnswer.fire(type.method);
    return result;
  }

  /**
   * Listen to `$/progress` for a fresh token while `run(token)` runs; the handler is removed afterwards.
   * Used for `partialResultToken` (answer deltas) and client-created `workDoneToken`s.
   */
  async withProgressToken<T, V>(type: ProgressType<V>, onValue: (value: V) => void, run: (token: string) => Promise<T>): Promise<T> {
    const client = await this.ready();
    const token = randomUUID();
    const listener = client.onProgress(type, token, onValue);
    try {
      return await run(token);
    } finally {
      listener.dispose();
    }
  }

  /** Ask `rag/status` and show the totals in the status bar; errors are logged, never thrown. */
  async refreshStatus(): Promise<StatusResult | undefined> {
    const client = this.running;
    if (!client) {
      return undefined;
    }
    try {
      const status = await client.sendRequest(StatusRequest, {});
      this.lastStatusFailure = undefined;
      this.status.showStatus(status);
      if (this.status.embeddingLoading && !this.reloadTimer) {
        // Shown outside an indexing progress, whose end would refresh it: ask again until the model is ready.
        this.reloadTimer = setTimeout(() => {
          this.reloadTimer = undefined;
          void this.refreshStatus();
        }, STATUS_RELOAD_MS);
      }
      return status;
    } catch (error) {
      // Once per failure: two refreshes that met the same unopened workspace (the first index's end and a
      // ragls.toml change, 1 of 6 runs at load 30) logged the same line twice in a row.
      const line = `ragls: rag/status failed: ${String(error)}`;
      if (line !== this.lastStatusFailure) {
        this.output.appendLine(line);
      }
      this.lastStatusFailure = line;
      if (this.running === client) {
        // The workspace could not be opened (e.g. its ragls.toml does not parse): say why instead of "starting"
        // for ever; the server opens it when the file is fixed (the ragls.toml watcher above tells it).
        const message = error instanceof Error ? error.message : String(error);
        this.status.set('error', '$(error) ragls', `ragls: ${message}`);
      }
      return undefined;
    }
  }

  dispose(): void {
    clearTimeout(this.reloadTimer);
    this.settingsTimers.forEach(clearTimeout);
    this.subscriptions.forEach((d) => d.dispose());
    this.settingsFiles.dispose();
    void this.stop();
    this._onDidStart.dispose();
    this._onDidAnswer.dispose();
  }
}
