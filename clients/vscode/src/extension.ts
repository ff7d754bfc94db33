/**
 * Entry point: wires the status bar, server manager, chat view (the one answer surface) and commands together. No
 * logic of its own.
 *
 * The server starts at activation when the workspace is trusted, else when trust is granted. `activate`
 * returns a small API (the same objects the commands use) for tests and other extensions.
 */
import * as vscode from 'vscode';
import { trackEditors } from './answerActions';
import { ChatIntegrations, registerChatIntegrations } from './chat/participant';
import { ThreadStore } from './chat/thread';
import { ChatView } from './chat/view';
import { COMMANDS, describeError, registerCommands } from './commands';
import { disposeDecorations } from './decorations';
import { EXTRACTED_SCHEME, ExtractedTextFileSystem, keepExtractedLanguage } from './extracted';
import { PICK_RAGS_COMMAND, RagSelection } from './rags';
import { DocsSearch } from './search';
import { ServerManager } from './server';
import { needsRestart, touchesPassThrough } from './settings';
import { StatusBar } from './status';
import { revealChatOnFirstRun, WalkthroughProgress } from './walkthrough';

export interface RaglsApi {
  server: ServerManager;
  status: StatusBar;
  search: DocsSearch;
  /** This extension's log folder; the "ragls" output channel's file is beside it (tests read it). */
  logUri: vscode.Uri;
  chat: ChatView;
  chatIntegrations: ChatIntegrations;
  rags: RagSelection;
}

let manager: ServerManager | undefined;

export function activate(context: vscode.ExtensionContext): RaglsApi {
  const output = vscode.window.createOutputChannel('ragls');
  const status = new StatusBar(COMMANDS.status);
  const server = new ServerManager(output, status, context.globalStorageUri.fsPath);
  const search = new DocsSearch(server, () => rags.param(), () => status.indexing);
  const rags = new RagSelection(context.workspaceState, server);
  const chat = new ChatView(server, new ThreadStore(context.workspaceState), describeError, () => status.indexing,
    () => rags.param(), () => status.embeddingLoading, () => output.show(true), () => status.step);
  context.subscriptions.push(status.onDidChange(() => chat.statusChanged()));
  manager = server;
  context.subscriptions.push(output, status, server, search, chat, trackEditors(), { dispose: disposeDecorations });
  context.subscriptions.push(
    vscode.workspace.registerFileSystemProvider(EXTRACTED_SCHEME, new ExtractedTextFileSystem(server), { isReadonly: true, isCaseSensitive: true }),
    keepExtractedLanguage(),
  );
  context.subscriptions.push(
    vscode.window.registerWebviewViewProvider(ChatView.viewType, chat, { webviewOptions: { retainContextWhenHidden: true } }),
  );

  context.subscriptions.push(
    rags,
    vscode.commands.registerCommand(PICK_RAGS_COMMAND, async () => {
      try {
        return await rags.pick();
      } catch (error) {
        void vscode.window.showErrorMessage(describeError(error));
        return undefined;
      }
    }),
  );
  registerCommands(context, { server, status, output, rags, search, chat });
  const chatIntegrations = registerChatIntegrations(context, server);

  context.subscriptions.push(
    vscode.workspace.onDidChangeConfiguration((e) => {
      if (needsRestart(e)) {
        void server.restart();
      } else if (touchesPassThrough(e)) {
        void server.sendConfiguration();
      }
    }),
    // Trusting the workspace lifts restricted mode: a new server gets workspaceTrusted: true (settings.ts).
    vscode.workspace.onDidGrantWorkspaceTrust(() => void server.restart()),
  );

  const walkthrough = new WalkthroughProgress();
  context.subscriptions.push(
    walkthrough,
    server.onDidStart(() => walkthrough.mark('server')),
    status.onDidChange((state) => {
      if (state === 'ready') {
        walkthrough.mark('index');
      }
    }),
    server.onDidAnswer((method) => {
      if (method === 'rag/ask' || method === 'rag/query') {
        walkthrough.mark('ask');
      }
    }),
  );

  void server.start(true); // asks first before a long first index
  void revealChatOnFirstRun(context.workspaceState, ChatView.viewType);
  return { server, status, rags, search, chat, chatIntegrations, logUri: context.logUri };
}

export function deactivate(): Promise<void> | undefined {
  return manager?.stop();
}
