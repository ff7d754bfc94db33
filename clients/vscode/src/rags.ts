/**
 * Named RAGs (knowledge bases): which ones questions and searches go to. A quick pick over `rag/list` (several
 * can be picked), remembered per workspace (workspaceState), shown in a status bar item that opens the pick.
 * Nothing picked means the server's default, the workspace.
 */
import * as vscode from 'vscode';
import { ListRagsRequest, RagInfo } from './protocol';
import { ServerManager } from './server';
import { counted } from './words';

export const PICK_RAGS_COMMAND = 'ragls.pickRags';
const STATE_KEY = 'ragls.rags';

export class RagSelection implements vscode.Disposable {
  private readonly item: vscode.StatusBarItem;

  constructor(
    private readonly state: vscode.Memento,
    private readonly server: ServerManager,
  ) {
    this.item = vscode.window.createStatusBarItem('ragls.rags', vscode.StatusBarAlignment.Left, 99);
    this.item.name = 'ragls knowledge bases';
    this.item.command = PICK_RAGS_COMMAND;
    this.render();
    this.item.show();
  }

  /** The picked names, or undefined for the workspace (the server's default). */
  get names(): string[] | undefined {
    const names = this.state.get<string[]>(STATE_KEY);
    return names && names.length ? names : undefined;
  }

  /** The `rag` request param: one name, a list, or undefined. */
  param(): string | string[] | undefined {
    const names = this.names;
    return names === undefined ? undefined : names.length === 1 ? names[0] : names;
  }

  /** Quick pick of the server's knowledge bases; returns the new selection (undefined when cancelled). */
  async pick(): Promise<string[] | undefined> {
    const rags: RagInfo[] = await this.server.request(ListRagsRequest, {});
    const current = new Set(this.names ?? ['workspace']);
    const items = rags.map((r) => ({
      label: r.name,
      description: `${counted(r.files, 'file')}, ${counted(r.chunks, 'section')}`,
      detail: r.errors.length ? `$(warning) ${r.errors[0].message}` : r.sources.join('  ·  '),
      picked: current.has(r.name),
    }));
    const chosen = await vscode.window.showQuickPick(items, {
      title: 'ragls: knowledge bases for questions and searches',
      canPickMany: true,
      ignoreFocusOut: true,
    });
    if (!chosen) {
      return undefined;
    }
    const names = chosen.map((c) => c.label);
    const stored = names.length === 0 || (names.length === 1 && names[0] === 'workspace') ? [] : names;
    await this.state.update(STATE_KEY, stored);
    this.render();
    return stored.length ? stored : ['workspace'];
  }

  private render(): void {
    const names = this.names ?? ['workspace'];
    this.item.text = `$(database) ${names.join(', ')}`;
    this.item.tooltip = 'ragls: questions and searches go to these knowledge bases — click to change';
    // (read as "database workspace, ragls: questions …" without it: the icon's name first)
    this.item.accessibilityInformation = { label: `ragls knowledge bases: ${names.join(', ')}, click to change` };
  }

  dispose(): void {
    this.item.dispose();
  }
}
