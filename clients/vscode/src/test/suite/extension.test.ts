/**
 * In-editor tests: run inside a real VS Code (code-server) extension host against the real ragls server, on the
 * two-folder workspace made by ../fixture.ts (handbook/ — a git repository — and notes/). Each test runs a
 * contributed command the way the palette does and checks what the user would see: the answer and its sources,
 * the panel's HTML, the editor selection after opening a source, the SCM commit box, the status bar.
 * Waits poll until a deadline; nothing sleeps for a fixed time.
 */
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { appendFileSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import * as vscode from 'vscode';
import type { RaglsApi } from '../../extension';
import type { GitAPI } from '../../git';
import {
  AskResult,
  Chunk,
  CommitMessageResult,
  QueryRequest,
  RebuildResult,
  Source,
  StatusResult,
} from '../../protocol';

const EXTENSION_ID = 'ragls.ragls-vscode';
const DEADLINE_MS = 90_000;

async function until<T>(what: string, probe: () => T | undefined | Promise<T | undefined>, ms = DEADLINE_MS): Promise<T> {
  const deadline = Date.now() + ms;
  for (;;) {
    const value = await probe();
    if (value !== undefined && value !== false) {
      return value;
    }
    if (Date.now() > deadline) {
      throw new Error(`timed out after ${ms} ms waiting for ${what}`);
    }
    await new Promise((r) => setTimeout(r, 200));
  }
}

function assertSelects(editor: vscode.TextEditor | undefined, source: Source): void {
  assert.ok(editor, 'no editor was opened');
  assert.equal(editor.document.uri.toString(), vscode.Uri.parse(source.uri).toString());
  const { start, end } = editor.selection;
  assert.deepEqual(
    { start: { line: start.line, character: start.character }, end: { line: end.line, character: end.character } },
    source.range,
  );
}

suite('ragls extension in VS Code', () => {
  let api: RaglsApi;
  let handbook: vscode.WorkspaceFolder;
  let notes: vscode.WorkspaceFolder;

  suiteSetup(async () => {
    const ext = vscode.extensions.getExtension<RaglsApi>(EXTENSION_ID);
    assert.ok(ext, `${EXTENSION_ID} is not installed`);
    api = await ext.activate();
    const folders = vscode.workspace.workspaceFolders ?? [];
    assert.deepEqual(folders.map((f) => f.name), ['handbook', 'notes']);
    [handbook, notes] = folders;
    await until('the status bar to show the indexed totals', () =>
      api.status.state === 'ready' && api.status.totals?.files === 4 && api.status.totals.chunks >= 4,
    );
  });

  test('status bar shows files and chunks and runs Show Status', () => {
    assert.match(api.status.text, /^\$\(book\) ragls: 4 files · \d+ chunks$/);
    assert.equal(api.status.item.command, 'ragls.showStatus');
  });

  test('Show Status returns both folders of the multi-root workspace', async () => {
    const status = await vscode.commands.executeCommand<StatusResult>('ragls.showStatus');
    assert.ok(status, 'Show Status returned nothing');
    const files = new Map(status.folders.map((f) => [vscode.Uri.parse(f.uri).fsPath, f.files]));
    assert.equal(files.get(handbook.uri.fsPath), 3);
    assert.equal(files.get(notes.uri.fsPath), 1);
    assert.equal(status.generation.backend, 'none');
  });

  test('Ask streams the answer into the panel; a citation opens the cited lines', async () => {
    const result = await vscode.commands.executeCommand<AskResult>('ragls.askQuestion', 'How do I roll back beacon firmware?');
    assert.ok(result, 'Ask returned nothing');
    assert.equal(result.abstained, false);
    assert.ok(result.answer.includes('beacon push --previous'), result.answer);
    const source = result.sources[0];
    assert.equal(source.n, 1);
    assert.equal(source.path, 'docs/deployment.md');

    const view = api.panel.view;
    assert.equal(view.phase, 'done');
    assert.equal(view.question, 'How do I roll back beacon firmware?');
    assert.ok(view.deltas >= 1, 'the answer was not streamed');
    assert.ok(view.html.includes('<a href="#" class="cite" data-n="1" title="Open source 1">[1]</a>'), view.html);
    assert.ok(view.html.includes('<code>beacon push --previous</code>'), view.html);
    assert.match(view.html, /<a href="#" class="source" data-n="1">\[1\] handbook\/docs\/deployment\.md:\d+(-\d+)?<\/a>/);
    assert.ok(!view.html.includes('class="abstained"'));

    const editor = await api.panel.handleMessage({ type: 'open', n: 1 });
    assertSelects(editor, source);
    assert.equal(vscode.window.activeTextEditor?.document.uri.toString(), editor!.document.uri.toString());
    assert.ok(editor!.document.getText(editor!.selection).includes('beacon push --previous'));
  });

  test('a question the docs do not cover is shown as abstained', async () => {
    const result = await vscode.commands.executeCommand<AskResult>(
      'ragls.askQuestion',
      'What temperature should I bake rye sourdough bread at?',
    );
    assert.ok(result, 'Ask returned nothing');
    assert.equal(result.abstained, true, result.answer);
    assert.ok(api.panel.view.html.includes('class="abstained"'), api.panel.view.html);
  });

  test('Ask About Selection sends the selected text and its file', async () => {
    const uri = vscode.Uri.joinPath(notes.uri, 'meeting-notes.md');
    const editor = await vscode.window.showTextDocument(uri);
    const line = editor.document.getText().split('\n').findIndex((l) => l.includes('rename the gizmo service'));
    assert.ok(line >= 0);
    editor.selection = new vscode.Selection(line, 0, line, editor.document.lineAt(line).text.length);
    api.chat.newChat();
    const result = await vscode.commands.executeCommand<AskResult>('ragls.askSelection', 'Who owns this rename?');
    assert.ok(result, 'Ask About Selection returned nothing');
    assert.ok(result.sources.some((s) => s.path === 'meeting-notes.md'), JSON.stringify(result.sources));
    assert.ok(result.answer.includes('Priya'), result.answer);
    // It starts a turn in the chat, headed by the question and the selection's place.
    const turn = api.chat.thread.turns.at(-1)!;
    assert.equal(turn.shown, `Who owns this rename? (notes/meeting-notes.md:${line + 1}-${line + 1})`);
    assert.equal(turn.status, 'done');
    assert.ok(turn.question.includes('rename the gizmo service'), turn.question);
  });

  test('chat: two overlapping asks each land in their own turn; a follow-up carries the thread', async () => {
    api.chat.newChat();
    const q1 = 'How do I roll back beacon firmware?';
    const q2 = 'Which torque wrench is used for calibration?';
    // Both requests are in flight at once; neither waits for the other.
    const [a, b] = await Promise.all([api.chat.ask(q1), api.chat.ask(q2)]);
    assert.ok(a && b, 'an ask returned nothing');
    const [t1, t2] = api.chat.thread.turns;
    assert.equal(api.chat.thread.turns.length, 2);
    assert.deepEqual([t1.question, t2.question], [q1, q2]);
    assert.notEqual(a.answer, b.answer);
    assert.ok(a.answer.includes('beacon push --previous'), a.answer);
    assert.ok(b.answer.includes('zeta-17'), b.answer);
    // Each turn got exactly its own stream and result (requests are tagged; nothing crossed over).
    assert.equal(t1.result, a);
    assert.equal(t2.result, b);
    assert.equal(t1.streamed, a.answer);
    assert.equal(t2.streamed, b.answer);
    assert.equal(t1.markdown, a.answer);
    assert.equal(t2.markdown, b.answer);
    assert.equal((api.chat.html.match(/<section class="turn"/g) ?? []).length, 2);
    assert.ok(api.chat.html.includes(`data-turn="${t1.requestId}"`) && api.chat.html.includes(`data-turn="${t2.requestId}"`));

    // A follow-up sends the thread as history; the server returns the query it searched.
    const c = await api.chat.ask('and how do I check which version is running?');
    assert.ok(c, 'the follow-up returned nothing');
    assert.ok(c.retrievalQuery && c.retrievalQuery.startsWith('and how do I check which version is running?'), c.retrievalQuery);
    assert.ok(api.chat.html.includes('searched: '), api.chat.html);

    // A citation of the second turn opens its own source.
    const editor = await api.chat.openSource(t2.requestId, 1);
    assertSelects(editor, b.sources[0]);

    // Kept in workspaceState: a reload brings the thread back.
    const stored = api.chat.store.load();
    assert.equal(stored[0].id, api.chat.thread.id);
    assert.deepEqual(stored[0].turns.map((t) => t.question), [q1, q2, 'and how do I check which version is running?']);
  });

  test('the ragls_search language-model tool answers agent mode where VS Code has the API', async function () {
    // eslint-disable-next-line @typescript-eslint/no-explicit-any
    const lm = (vscode as any).lm;
    assert.equal(api.chatIntegrations.tool, typeof lm?.registerTool === 'function');
    assert.equal(api.chatIntegrations.participant,
      // eslint-disable-next-line @typescript-eslint/no-explicit-any
      typeof (vscode as any).chat?.createChatParticipant === 'function');
    if (!api.chatIntegrations.tool || typeof lm.invokeTool !== 'function') {
      this.skip(); // this editor has no language-model tool API: the chat view is the way to chat
    }
    const result = await lm.invokeTool('ragls_search', { input: { query: 'zeta-17 torque wrench' }, toolInvocationToken: undefined });
    // eslint-disable-next-line @typescript-eslint/no-explicit-any
    const text = (result.content as any[]).map((part) => part.value ?? '').join('');
    assert.ok(text.includes('zeta-17') && /\[1\] (handbook\/)?docs\/calibration\.md:\d+/.test(text), text);
  });

  test('chat: Stop ends a pending answer, which never writes into a later turn; New Chat keeps the old thread', async () => {
    api.chat.newChat();
    const pending = api.chat.ask('How do I roll back beacon firmware?');
    api.chat.stop();
    assert.equal(await pending, undefined);
    const stopped = api.chat.thread.turns[0];
    assert.equal(stopped.status, 'stopped');
    const next = await api.chat.ask('Which torque wrench is used for calibration?');
    assert.ok(next && next.answer.includes('zeta-17'), next?.answer);
    const [first, second] = api.chat.thread.turns;
    assert.equal(first.status, 'stopped');
    assert.ok(!first.markdown.includes('zeta-17'), first.markdown);
    assert.equal(second.markdown, next.answer);
    assert.ok(api.chat.html.includes('Stopped.'), api.chat.html);
    const oldId = api.chat.thread.id;
    api.chat.newChat();
    assert.equal(api.chat.thread.turns.length, 0);
    assert.equal(api.chat.threads[1].id, oldId);
    assert.ok(api.chat.switchTo(oldId));
    assert.equal(api.chat.thread.turns.length, 2);
  });

  test('Search Docs: choosing a result opens the file with the chunk selected', async () => {
    await vscode.commands.executeCommand('workbench.action.closeAllEditors');
    let done = false;
    const pending = Promise.resolve(
      vscode.commands.executeCommand<Chunk>('ragls.searchDocs', 'zeta-17 torque wrench'),
    ).finally(() => (done = true));
    // Accept the first quick pick item once the pick is showing (accepting earlier does nothing).
    await until('the quick pick to be accepted', async () => {
      if (!done) {
        await vscode.commands.executeCommand('workbench.action.acceptSelectedQuickOpenItem');
      }
      return done;
    });
    const chunk = await pending;
    assert.ok(chunk, 'Search Docs returned nothing');
    assert.equal(chunk.source.path, 'docs/calibration.md');
    assert.ok(chunk.text.includes('zeta-17'));
    assertSelects(vscode.window.activeTextEditor, chunk.source);
    const selected = vscode.window.activeTextEditor!.document.getText(vscode.window.activeTextEditor!.selection);
    assert.ok(selected.includes('zeta-17'), selected);
  });

  test('Rebuild Index re-indexes every folder and the status bar shows the progress', async () => {
    const states: string[] = [];
    const listener = api.status.onDidChange((s) => states.push(s));
    try {
      const result = await vscode.commands.executeCommand<RebuildResult>('ragls.rebuildIndex');
      assert.ok(result, 'Rebuild Index returned nothing');
      assert.equal(result.files, 4);
      assert.ok(result.chunks >= 4);
      await until('the status bar to be ready again', () => api.status.state === 'ready' && api.status.totals?.files === 4);
      assert.ok(states.includes('indexing'), `states seen: ${states.join(', ')}`);
    } finally {
      listener.dispose();
    }
  });

  test('Generate Commit Message fills the repository commit input box', async () => {
    const git = vscode.extensions.getExtension<{ getAPI(v: 1): GitAPI }>('vscode.git');
    assert.ok(git, 'the built-in git extension is missing');
    const gitApi = (git.isActive ? git.exports : await git.activate()).getAPI(1);
    const repo = await until('the git extension to open handbook/', () =>
      gitApi.repositories.find((r) => r.rootUri.fsPath === handbook.uri.fsPath),
    );
    const file = join(handbook.uri.fsPath, 'docs', 'calibration.md');
    appendFileSync(file, '\n## Safety\n\nWear gloves: the brass housing is sharp.\n');
    execFileSync('git', ['add', 'docs/calibration.md'], { cwd: handbook.uri.fsPath });
    repo.inputBox.value = '';
    // The Source Control title button passes the SourceControl, which has rootUri.
    const result = await vscode.commands.executeCommand<CommitMessageResult>('ragls.generateCommitMessage', {
      rootUri: repo.rootUri,
    });
    assert.ok(result, 'Generate Commit Message returned nothing');
    assert.deepEqual(result.files, ['docs/calibration.md']);
    assert.ok(result.message.trim().length > 0);
    assert.equal(repo.inputBox.value, result.message);
    assert.ok(readFileSync(file, 'utf8').includes('Wear gloves'));
  });

  test('pass-through settings reach the server when they change', async () => {
    const query = () => api.server.request(QueryRequest, { query: 'beacon firmware calibration frobnicator' });
    const before = await query();
    assert.ok(before.chunks.length > 1, `expected several chunks, got ${before.chunks.length}`);
    const cfg = vscode.workspace.getConfiguration('ragls');
    await cfg.update('retrieval.topK', 1, vscode.ConfigurationTarget.Workspace);
    try {
      await until('rag/query to return one chunk', async () => ((await query()).chunks.length === 1 ? true : undefined));
    } finally {
      await cfg.update('retrieval.topK', undefined, vscode.ConfigurationTarget.Workspace);
    }
    await until('rag/query to return several chunks again', async () => ((await query()).chunks.length > 1 ? true : undefined));
  });

  test('a missing server gives one clear error and the status bar says how to install it', async () => {
    const cfg = vscode.workspace.getConfiguration('ragls');
    await cfg.update('server.command', '/nonexistent/ragls', vscode.ConfigurationTarget.Workspace);
    try {
      await until('the status bar to show the launch error', () => api.status.state === 'error');
      assert.equal(api.server.running, undefined);
      const tooltip = String(api.status.item.tooltip);
      assert.ok(tooltip.includes('/nonexistent/ragls') && tooltip.includes('pip install ragls'), tooltip);
    } finally {
      await cfg.update('server.command', undefined, vscode.ConfigurationTarget.Workspace);
    }
    await until('the server to run again', () => api.server.running !== undefined && api.status.state === 'ready');
    const status = await vscode.commands.executeCommand<StatusResult>('ragls.showStatus');
    assert.equal(status?.folders.length, 2);
  });
});
