/**
 * The few parts of the built-in Git extension's API (`vscode.git`, API version 1) that ragls uses: the
 * repositories and their commit input box. Types follow the extension's published `git.d.ts`.
 */
import * as vscode from 'vscode';

export interface GitInputBox {
  value: string;
}

export interface GitRepository {
  readonly rootUri: vscode.Uri;
  readonly inputBox: GitInputBox;
}

export interface GitAPI {
  readonly repositories: GitRepository[];
  getRepository(uri: vscode.Uri): GitRepository | null;
  readonly onDidOpenRepository: vscode.Event<GitRepository>;
}

interface GitExtension {
  getAPI(version: 1): GitAPI;
}

/** The Git API, activating the Git extension if needed; throws an Error a user can act on when it is absent. */
export async function gitApi(): Promise<GitAPI> {
  const extension = vscode.extensions.getExtension<GitExtension>('vscode.git');
  if (!extension) {
    throw new Error('ragls: the built-in Git extension is not available, so the commit message box cannot be filled.');
  }
  const exports = extension.isActive ? extension.exports : await extension.activate();
  return exports.getAPI(1);
}

/**
 * The repository a command is about: `arg` when the SCM title button passed one (a SourceControl with
 * `rootUri`, or a Uri), else the only repository, else the one holding the active editor's file, else undefined.
 */
export function pickRepository(api: GitAPI, arg?: unknown): GitRepository | undefined {
  const rootUri = (arg as { rootUri?: vscode.Uri } | undefined)?.rootUri ?? (arg instanceof vscode.Uri ? arg : undefined);
  if (rootUri) {
    const repo = api.getRepository(rootUri);
    if (repo) {
      return repo;
    }
  }
  if (api.repositories.length === 1) {
    return api.repositories[0];
  }
  const active = vscode.window.activeTextEditor?.document.uri;
  if (active) {
    const repo = api.getRepository(active);
    if (repo) {
      return repo;
    }
  }
  return undefined;
}
