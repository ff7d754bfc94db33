/**
 * "ragls: Generate Commit Message" (also the Source Control title button, which passes the SourceControl): asks
 * `rag/commitMessage` for the staged changes and puts the message into that repository's commit box.
 *
 * - A draft the user already typed is never overwritten silently: a quick pick offers "Append" (below the draft)
 *   or "Replace"; dismissing it keeps the draft as it is.
 * - With nothing staged, a notification offers "Use All Changes" (every change to tracked files, like
 *   `git commit -a`) instead of the server's protocol wording.
 */
import { basename } from 'node:path';
import * as vscode from 'vscode';
import { ResponseError } from 'vscode-languageclient/node';
import type { Deps } from './commands';
import { guarded } from './commands';
import { gitApi, GitRepository, pickRepository } from './git';
import { CommitMessageRequest, CommitMessageResult, ErrorCodes } from './protocol';

/** The user's choices, replaceable by tests (the real ones show VS Code UI). */
export const prompts = {
  /** What to do with a draft: "append", "replace", or undefined (keep the draft, drop the message). */
  draft: async (draft: string): Promise<'append' | 'replace' | undefined> => {
    const first = draft.split('\n')[0];
    const picked = await vscode.window.showQuickPick(
      [
        { label: '$(add) Append', description: 'below your draft', choice: 'append' as const },
        { label: '$(replace) Replace', description: 'your draft with the generated message', choice: 'replace' as const },
      ],
      { title: `ragls: the commit box already has “${first.length > 50 ? `${first.slice(0, 49)}…` : first}”`, ignoreFocusOut: true },
    );
    return picked?.choice;
  },
  /** Whether to use all changes when nothing is staged. */
  useAllChanges: async (repo: string): Promise<boolean> =>
    (await vscode.window.showWarningMessage(
      `ragls: nothing is staged in ${repo}. Stage changes, or write the message from all changes to tracked files.`,
      'Use All Changes',
    )) === 'Use All Changes',
};

/** Whether a rag/commitMessage error is the server's "nothing staged". */
export function isNothingStaged(error: unknown): boolean {
  return error instanceof ResponseError && error.code === ErrorCodes.RequestFailed && /nothing staged/i.test(error.message);
}

async function chooseRepository(arg: unknown): Promise<GitRepository | undefined> {
  const api = await gitApi();
  const repo = pickRepository(api, arg);
  if (repo || api.repositories.length === 0) {
    if (!repo) {
      throw new Error('ragls: no Git repository is open in this window.');
    }
    return repo;
  }
  const picked = await vscode.window.showQuickPick(
    api.repositories.map((r) => ({ label: vscode.workspace.asRelativePath(r.rootUri, true) || r.rootUri.fsPath, repo: r })),
    { title: 'ragls: commit message for which repository?' },
  );
  return picked?.repo;
}

/** Put `message` into the commit box, asking first when the user typed a draft. Returns false when kept. */
export async function fillCommitBox(repo: GitRepository, message: string): Promise<boolean> {
  const draft = repo.inputBox.value.trim();
  if (!draft || draft === message.trim()) {
    repo.inputBox.value = message;
    return true;
  }
  const choice = await prompts.draft(draft);
  if (choice === 'append') {
    repo.inputBox.value = `${repo.inputBox.value.replace(/\s+$/, '')}\n\n${message}`;
  } else if (choice === 'replace') {
    repo.inputBox.value = message;
  }
  return choice !== undefined;
}

export function generateCommitMessage(deps: Deps, arg?: unknown): Promise<CommitMessageResult | undefined> {
  return guarded(deps, async () => {
    const repo = await chooseRepository(arg);
    if (!repo) {
      return undefined;
    }
    const ask = (staged: boolean) =>
      vscode.window.withProgress(
        { location: vscode.ProgressLocation.SourceControl, title: 'ragls: writing commit message' },
        () => deps.server.request(CommitMessageRequest, { repository: repo.rootUri.toString(), staged }),
      );
    let staged = true;
    let result: CommitMessageResult;
    try {
      result = await ask(true);
    } catch (error) {
      if (!isNothingStaged(error)) {
        throw error;
      }
      const name = vscode.workspace.getWorkspaceFolder(repo.rootUri)?.name ?? basename(repo.rootUri.fsPath);
      if (!(await prompts.useAllChanges(name))) {
        return undefined;
      }
      staged = false;
      result = await ask(false);
    }
    await fillCommitBox(repo, result.message);
    if (result.truncated) {
      void vscode.window.showInformationMessage(
        `ragls: the ${staged ? 'staged' : 'working-tree'} diff was too long and was shortened for the commit message.`,
      );
    }
    return result;
  });
}
