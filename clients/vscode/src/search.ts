/**
 * "ragls: Search Docs" as a live QuickPick: each change of the typed text re-queries `rag/query` (debounced, the
 * previous request cancelled), items show the heading as label, `path:lines` as description and the text of those
 * lines (else the chunk's first lines) as detail; moving through the items previews the file at the focus lines (a
 * preview tab, focus kept in the pick), and accepting opens it there with the transient highlight (decorations.ts);
 * dismissing it after previews closes them and goes back to the editor you were in (`backTo`), as Quick Open does.
 */
import * as vscode from 'vscode';
import { displayPath, sourceLabel } from './answer';
import { revealSource } from './decorations';
import { Chunk, QueryRequest, QueryResult } from './protocol';
import { ServerManager } from './server';
import { counted } from './words';

/** Wait after the last keystroke before querying (ms). */
export const DEBOUNCE_MS = 200;

/** Results a search lists (`ragls.search.topK`, default 20): a list to scan, unlike the 5 chunks of an answer. */
export function searchTopK(): number {
  const value = vscode.workspace.getConfiguration('ragls').get<number>('search.topK', 20);
  return Number.isInteger(value) && value >= 1 && value <= 200 ? value : 20;
}

export interface ChunkItem extends vscode.QuickPickItem {
  chunk: Chunk;
}

/**
 * One line under the item: the server's `preview` (newer servers: the focus lines read as text, not markup); else
 * the text of the chunk's focus lines (the lines its `path:lines` names) when they start
 * below the chunk's first line and lie within its text (the file's lines `range.start.line`..`range.end.line`);
 * else the chunk's first lines without its heading line (already the label). Flattened, at most `max` characters.
 */
export function chunkDetail(chunk: Chunk, max = 160): string {
  if (chunk.preview) {
    return chunk.preview.length > max ? `${chunk.preview.slice(0, max - 1)}…` : chunk.preview;
  }
  const { range, focusRange } = chunk.source;
  const all = chunk.text.split(/\r?\n/);
  if (focusRange && focusRange.start.line > range.start.line) {
    const focus = all.slice(focusRange.start.line - range.start.line, focusRange.end.line - range.start.line + 1);
    const flat = focus.join(' ').replace(/\s+/g, ' ').trim();
    if (flat && focusRange.end.line - range.start.line < all.length) {
      return flat.length > max ? `${flat.slice(0, max - 1)}…` : flat;
    }
  }
  const lines = all;
  const title = chunk.source.title ?? '';
  while (lines.length && (!lines[0].trim() || lines[0].replace(/^#+\s*/, '').trim() === title.split(' > ').pop())) {
    lines.shift();
  }
  const flat = lines.join(' ').replace(/\s+/g, ' ').trim();
  return flat.length > max ? `${flat.slice(0, max - 1)}…` : flat;
}

/**
 * "64%": a chunk's `relevance` (its score's share of the best hit's); "<1%" for a share under 0.5 % (the server
 * leaves out the hits no signal found, share 0); "" when the server sent none.
 */
export function relevanceLabel(chunk: Chunk): string {
  if (typeof chunk.relevance !== 'number') {
    return '';
  }
  const pct = Math.round(chunk.relevance * 100);
  return pct === 0 && chunk.relevance > 0 ? '<1%' : `${pct}%`;
}

/** A quick pick item for a chunk: heading (else path), `path:lines` and relevance, the focus lines' text. */
export function chunkItem(chunk: Chunk): ChunkItem {
  const title = chunk.source.title?.split(' > ').pop();
  const relevance = relevanceLabel(chunk);
  return {
    label: `$(file) ${title || displayPath(chunk.source)}`,
    description: relevance ? `${sourceLabel(chunk.source)} · ${relevance}` : sourceLabel(chunk.source),
    detail: chunkDetail(chunk),
    alwaysShow: true, // the server ranks; the quick pick must not filter by its own fuzzy match
    chunk,
  };
}

/** The text tabs open now, by URI. */
function openTextTabs(): Set<string> {
  return new Set(
    vscode.window.tabGroups.all
      .flatMap((g) => g.tabs)
      .flatMap((t) => (t.input instanceof vscode.TabInputText ? [t.input.uri.toString()] : [])),
  );
}

/**
 * Remember the editor in front (its selection and column) and the open tabs; the function returned undoes a
 * dismissed pick's previews: it closes the preview tabs of files that were not open before and shows that editor
 * again with its selection (nothing to show when there was none).
 */
export function backTo(): () => Promise<void> {
  const editor = vscode.window.activeTextEditor;
  const was = editor && { uri: editor.document.uri, selection: editor.selection, column: editor.viewColumn };
  const open = openTextTabs();
  return async () => {
    const previews = vscode.window.tabGroups.all
      .flatMap((g) => g.tabs)
      .filter((t) => t.isPreview && t.input instanceof vscode.TabInputText && !open.has(t.input.uri.toString()));
    if (previews.length) {
      await vscode.window.tabGroups.close(previews, true);
    }
    if (was) {
      await vscode.window.showTextDocument(was.uri, { viewColumn: was.column, selection: was.selection });
    }
  };
}

export class DocsSearch implements vscode.Disposable {
  /** The open quick pick (tests drive it). */
  current: vscode.QuickPick<ChunkItem> | undefined;
  private readonly _onDidUpdate = new vscode.EventEmitter<{ query: string; items: ChunkItem[] }>();
  /** Fires each time the results for a query are shown. */
  readonly onDidUpdate = this._onDidUpdate.event;

  /** `rag` names the knowledge bases picked for searches (rags.ts); undefined: the workspace. */
  /**
   * `rag` names the knowledge bases picked for searches (rags.ts); undefined: the workspace. `indexing` says
   * whether the server reports indexing progress now (status.ts): a search that finds nothing then says the index
   * is still being built instead of "no docs match".
   */
  constructor(
    private readonly server: ServerManager,
    private readonly rag: () => string | string[] | undefined = () => undefined,
    private readonly indexing: () => boolean = () => false,
  ) {}

  /**
   * Open the live search, prefilled with `query` (searched at once). Resolves with the accepted chunk (after it
   * is opened), or undefined when the pick is dismissed. Errors of a query are shown in the pick's title.
   */
  open(query = ''): Promise<Chunk | undefined> {
    this.current?.dispose();
    const qp = vscode.window.createQuickPick<ChunkItem>();
    this.current = qp;
    qp.title = 'ragls: Search Docs';
    qp.placeholder = 'Search the docs in this workspace (results update as you type)';
    qp.matchOnDescription = false;
    qp.matchOnDetail = false;
    // Previews open editors while the pick is up; in the browser (code-server) that can count as focus leaving
    // the pick. It still closes on Escape, on accept, and when another quick input opens.
    qp.ignoreFocusOut = true;
    let timer: NodeJS.Timeout | undefined;
    let cancel: vscode.CancellationTokenSource | undefined;
    let seq = 0;

    // Where the user was, to go back there when the pick is dismissed after previewing (as Quick Open does).
    const back = backTo();
    let previewed = false;

    let lastRun: string | undefined;
    const run = async (text: string): Promise<void> => {
      if (text === lastRun) {
        return; // e.g. the value set programmatically right after its own query
      }
      lastRun = text;
      cancel?.cancel();
      const source = new vscode.CancellationTokenSource();
      cancel = source;
      const mine = ++seq;
      if (!text.trim()) {
        qp.items = [];
        qp.busy = false;
        qp.title = 'ragls: Search Docs';
        return;
      }
      qp.busy = true;
      let result: QueryResult | undefined;
      try {
        result = await this.server.request(
          QueryRequest,
          { query: text.trim(), topK: searchTopK(), rag: this.rag() },
          source.token,
        );
      } catch (error) {
        if (mine === seq && !source.token.isCancellationRequested) {
          qp.busy = false;
          qp.items = [];
          qp.title = `ragls: ${error instanceof Error ? error.message : String(error)}`;
        }
        return;
      }
      if (mine !== seq) {
        return; // a newer query is on its way
      }
      qp.busy = false;
      const items = result.chunks.map(chunkItem);
      qp.items = items;
      qp.title = result.chunks.length
        ? `ragls: ${counted(result.chunks.length, 'result')} for “${text.trim()}”${result.abstained ? ' (weak matches)' : ''}`
        : this.indexing()
          ? `ragls: nothing found for “${text.trim()}” yet: the index is still being built`
          : `ragls: no docs match “${text.trim()}”`;
      this._onDidUpdate.fire({ query: text, items });
    };

    return new Promise<Chunk | undefined>((resolve) => {
      let settled = false;
      const finish = (chunk: Chunk | undefined): void => {
        if (!settled) {
          settled = true;
          resolve(chunk);
        }
      };
      qp.onDidChangeValue((value) => {
        if (timer) {
          clearTimeout(timer);
        }
        timer = setTimeout(() => void run(value), DEBOUNCE_MS);
      });
      let accepted: ChunkItem | undefined;
      let hidden = false;
      qp.onDidChangeActive((active) => {
        const item = active[0];
        // Not once an item is accepted or the pick is gone: a change of the active item on its way (new results
        // landing as Enter was pressed) opened its preview over the file just opened, or after the previews closed.
        if (item && !accepted && !hidden) {
          previewed = true;
          void revealSource(item.chunk.source, { preserveFocus: true, preview: true }).catch(() => undefined);
        }
      });
      qp.onDidAccept(async () => {
        const item = qp.activeItems[0] ?? qp.selectedItems[0];
        if (!item || accepted) {
          return;
        }
        accepted = item;
        qp.hide();
        try {
          await revealSource(item.chunk.source, { preview: false });
        } finally {
          finish(item.chunk);
        }
      });
      qp.onDidHide(() => {
        hidden = true;
        if (timer) {
          clearTimeout(timer);
        }
        cancel?.cancel();
        if (this.current === qp) {
          this.current = undefined;
        }
        qp.dispose();
        if (!accepted) {
          const restored = previewed ? back().catch(() => undefined) : Promise.resolve();
          void restored.then(() => finish(undefined));
        }
      });
      qp.show();
      if (query.trim()) {
        qp.value = query;
        void run(query);
      }
    });
  }

  dispose(): void {
    this.current?.dispose();
    this._onDidUpdate.dispose();
  }
}
