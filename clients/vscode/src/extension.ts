/**
 * Entry point: wires the status bar, server manager, answer panel and commands together. No logic of its own.
 *
 * The server starts at activation when the workspace is trusted, else when trust is granted. `activate`
 * returns a small API (the same objects the commands use) for tests and other extensions.
 */
import * as vscode from 'vscode';
import { AnswerPanel } from './answer';
import { trackEditors } from './answerActions';
import { COMMANDS, registerCommands } from './commands';
import { disposeDecorations } from './decorations';
import { DocsSearch } from './search';
import { ServerManager } from './server';
import { needsRestart, touchesPassThrough } from './settings';
import { StatusBar } from './status';

export interface RaglsApi {
  server: ServerManager;
  panel: AnswerPanel;
  status: StatusBar;
  search: DocsSearch;
  /** This extension's log folder; the "ragls" output channel's file is beside it (tests read it). */
  logUri: vscode.Uri;
}

let manager: ServerManager | undefined;

export function activate(context: vscode.ExtensionContext): RaglsApi {
  const output = vscode.window.createOutputChannel('ragls');
  const status = new StatusBar(COMMANDS.status);
  const server = new ServerManager(output, status);
  const panel = new AnswerPanel();
  const search = new DocsSearch(server);
  manager = server;
  context.subscriptions.push(output, status, server, panel, search, trackEditors(), { dispose: disposeDecorations });

  registerCommands(context, { server, panel, status, output, search });

  context.subscriptions.push(
    vscode.workspace.onDidChangeConfiguration((e) => {
      if (needsRestart(e)) {
        void server.restart();
      } else if (touchesPassThrough(e)) {
        void server.sendConfiguration();
      }
    }),
    vscode.workspace.onDidGrantWorkspaceTrust(() => void server.start()),
  );

  void server.start();
  return { server, panel, status, search, logUri: context.logUri };
}

export function deactivate(): Promise<void> | undefined {
  return manager?.stop();
}
