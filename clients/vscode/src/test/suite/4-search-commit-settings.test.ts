/**
 * In-editor tests, Search Docs, Rebuild Index, Generate Commit Message and settings (how they run, and the suite they
 * share: ./helpers.ts).
 */
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { appendFileSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import * as vscode from 'vscode';
import { prompts } from '../../commitMessage';
import { highlightedRanges } from '../../decorations';
import type { GitAPI } from '../../git';
import { StatusBar } from '../../status';
import { answerBody } from '../../answer';
import {
  AskResult,
  Chunk,
  CommitMessageResult,
  QueryRequest,
  RebuildResult,
  StatusRequest,
} from '../../protocol';
import { until, setCommitBox, assertOpensAt, outputLog, editorSuite, api, handbook, notes } from './helpers';

editorSuite(() => {
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
    assert.ok(chunk.text.includes('zeta-17'), chunk.text);
    assertOpensAt(vscode.window.activeTextEditor, chunk.source);
    const lit = highlightedRanges(vscode.window.activeTextEditor!.document.uri)[0];
    const litText = vscode.window.activeTextEditor!.document.getText(lit);
    assert.ok(litText.includes('zeta-17'), `the highlighted lines read: ${JSON.stringify(litText)}`);
  });

  test('Rebuild Index re-indexes every folder and the status bar shows the progress', async () => {
    const states: string[] = [];
    const listener = api.status.onDidChange((s) => states.push(s));
    try {
      const result = await vscode.commands.executeCommand<RebuildResult>('ragls.rebuildIndex');
      assert.ok(result, 'Rebuild Index returned nothing');
      assert.equal(result.files, 4);
      assert.ok(result.chunks >= 4, JSON.stringify(result));
      // The server's "ragls: indexing" progress begins only once this client has answered its
      // window/workDoneProgress/create, so on a loaded machine its begin and end can arrive after the rebuild's
      // answer, while the status bar still shows the totals from before: wait for "indexing", then "ready" after it.
      await until('the status bar to show the indexing progress, then be ready again', () => {
        const indexing = states.lastIndexOf('indexing');
        return indexing >= 0 && states.indexOf('ready', indexing) > indexing && api.status.state === 'ready' && api.status.totals?.files === 4;
      }).catch((error: Error) => {
        throw new Error(`${error.message}; states seen: ${states.join(', ')}`);
      });
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
    await setCommitBox(repo, '');
    // The Source Control title button passes the SourceControl, which has rootUri.
    const result = await vscode.commands.executeCommand<CommitMessageResult>('ragls.generateCommitMessage', {
      rootUri: repo.rootUri,
    });
    assert.ok(result, 'Generate Commit Message returned nothing');
    assert.deepEqual(result.files, ['docs/calibration.md']);
    assert.ok(result.message.trim().length > 0, JSON.stringify(result));
    assert.equal(repo.inputBox.value, result.message);
    assert.ok(readFileSync(file, 'utf8').includes('Wear gloves'), `${file} reads:\n${readFileSync(file, 'utf8')}`);
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

  test('Search Docs lists ragls.search.topK results (20), not the chunks an answer is written from', async () => {
    const cfg = vscode.workspace.getConfiguration('ragls');
    const listed = async (query: string): Promise<number> => {
      const pending = Promise.resolve(vscode.commands.executeCommand<Chunk>('ragls.searchDocs'));
      const qp = await until('the quick pick', () => api.search.current);
      const shown = new Promise<number>((resolve) => {
        const sub = api.search.onDidUpdate((e) => {
          if (e.query === query) {
            sub.dispose();
            resolve(e.items.length);
          }
        });
      });
      qp.value = query;
      const n = await shown;
      qp.hide();
      await pending;
      await until('the pick to close', () => api.search.current === undefined);
      return n;
    };
    const query = 'beacon firmware calibration frobnicator';
    // An answer reads 2 chunks: the search still lists every hit up to 20 (it asks for its own topK).
    await cfg.update('retrieval.topK', 2, vscode.ConfigurationTarget.Workspace);
    try {
      await until('rag/query to answer with 2 chunks (the workspace reopened with the new setting)', async () =>
        ((await api.server.request(QueryRequest, { query })).chunks.length === 2 ? true : undefined));
      // The reopen keeps the embedding model (its settings are the same): vector search answers from the first
      // query on. It loaded the model again, and until it had, a query found the keyword hits only — the counts
      // compared below differed by the vector-only hit (session 64 waited here for the model).
      const loading = (await api.server.request(StatusRequest, {})).folders.filter((f) => f.embeddingLoading);
      assert.deepEqual(loading.map((f) => f.uri), [], 'a folder loads its embedding model again after a topK change');
      const hits = (await api.server.request(QueryRequest, { query, topK: 20 })).chunks; // the fixture's hits
      const all = hits.length;
      assert.ok(all > 2, `the fixture has ${all} hits`);
      assert.equal(await listed(query), all, hits.map((c) => `${c.source.path} ${c.score}`).join('; '));
      await cfg.update('search.topK', 3, vscode.ConfigurationTarget.Workspace);
      assert.equal(await listed(`${query} wrench`), 3);
    } finally {
      await cfg.update('search.topK', undefined, vscode.ConfigurationTarget.Workspace);
      await cfg.update('retrieval.topK', undefined, vscode.ConfigurationTarget.Workspace);
    }
  });

  test('Search Docs is live: the results change as you type and the highlighted item is previewed', async () => {
    await vscode.commands.executeCommand('workbench.action.closeAllEditors');
    // Where the user is before searching: Escape after previewing comes back here, the previews closed.
    const start = await vscode.window.showTextDocument(vscode.Uri.joinPath(notes.uri, 'meeting-notes.md'), { preview: false });
    start.selection = new vscode.Selection(2, 1, 2, 1);
    const pending = Promise.resolve(vscode.commands.executeCommand<Chunk>('ragls.searchDocs'));
    const qp = await until('the quick pick', () => api.search.current);
    const results = (query: string) =>
      new Promise<string[]>((resolve) => {
        const sub = api.search.onDidUpdate((e) => {
          if (e.query === query) {
            sub.dispose();
            resolve(e.items.map((i) => i.description ?? ''));
          }
        });
      });
    const first = results('zeta-17 torque wrench');
    qp.value = 'zeta-17 torque wrench';
    const a = await first;
    // The title counts them as words ("2 results", "1 result"), never "2 result(s)".
    assert.equal(qp.title, `ragls: ${a.length} result${a.length === 1 ? '' : 's'} for “zeta-17 torque wrench”`);
    // The best hit is 100%; the others their score's share of it; none shows the raw score (0.000 on convex fusion).
    assert.match(a[0], /^handbook\/docs\/calibration\.md:\d+(-\d+)? · 100%$/);
    assert.ok(a.every((d) => /\.md:\d[^·]* · \d{1,3}%$/.test(d)), `descriptions: ${a.join(' | ')}`);
    const second = results('roll back beacon firmware');
    qp.value = 'roll back beacon firmware';
    const b = await second;
    assert.match(b[0], /^handbook\/docs\/deployment\.md:/);
    assert.notDeepEqual(a, b);
    assert.ok(qp.items.every((i) => i.alwaysShow && i.detail), `every item has a detail and is not filtered: ${JSON.stringify(qp.items.map((i) => ({ label: i.label, alwaysShow: i.alwaysShow, detail: i.detail })))}`);
    // The detail is the text of the lines the description names when they start below the chunk's first line
    // (not the chunk's opening lines, which may be about something else).
    const focused = qp.items.filter((i) => (i.chunk.source.focusRange?.start.line ?? -1) > i.chunk.source.range.start.line);
    assert.ok(focused.length > 0, `no hit with focus lines below its chunk's start: ${JSON.stringify(qp.items.map((i) => i.chunk.source))}`);
    for (const item of focused) {
      const f = item.chunk.source.focusRange!;
      const doc = await vscode.workspace.openTextDocument(vscode.Uri.parse(item.chunk.source.uri));
      const cited = doc.getText(new vscode.Range(f.start.line, 0, f.end.line, doc.lineAt(f.end.line).text.length));
      const flat = cited.replace(/\s+/g, ' ').trim();
      assert.ok(flat.startsWith((item.detail ?? '').replace(/…$/, '')), `detail ${item.detail}\ncited lines ${flat}`);
    }
    // The active item is previewed (a preview tab; focus stays in the quick pick) at its highlighted lines.
    const deployment = vscode.Uri.parse(qp.items[0].chunk.source.uri);
    await until('the preview of the active item', () =>
      vscode.window.visibleTextEditors.some((e) => e.document.uri.toString() === deployment.toString()) &&
      highlightedRanges(deployment).length === 1,
    );
    qp.hide();
    assert.equal(await pending, undefined, 'dismissed: no chunk');
    const active = vscode.window.activeTextEditor;
    assert.equal(active?.document.uri.fsPath, start.document.uri.fsPath, 'back in the editor the search started from');
    assert.deepEqual([active.selection.active.line, active.selection.active.character], [2, 1], 'with its cursor');
    const tabs = vscode.window.tabGroups.all.flatMap((g) => g.tabs).map((t) => t.label);
    assert.deepEqual(tabs, ['meeting-notes.md'], 'the previews are closed');
  });

  test('Open all sources, Copy answer and Insert at cursor act on the newest answer of the chat', async () => {
    const result = await vscode.commands.executeCommand<AskResult>('ragls.askQuestion', 'How do I roll back beacon firmware?');
    assert.ok(result && result.sources.length >= 1, `no sources: ${JSON.stringify(result)}`);
    const editors = await vscode.commands.executeCommand<vscode.TextEditor[]>('ragls.openAllSources');
    assert.deepEqual(
      editors!.map((e) => e.document.uri.toString()),
      result.sources.map((s) => vscode.Uri.parse(s.uri).toString()),
    );
    const copied = await vscode.commands.executeCommand<string>('ragls.copyAnswer');
    assert.equal(await vscode.env.clipboard.readText(), copied);
    assert.ok(copied!.startsWith(answerBody(result)), copied);
    assert.match(copied!, /\nSources:\n\n\[1\] handbook\/docs\/deployment\.md:\d+/);
    // Only the sources the answer cites (the view's "Sources"), not those under "Also retrieved, not cited".
    const citedNs = new Set(result.citations.map((c) => c.n));
    const uncited = result.sources.filter((s) => !citedNs.has(s.n));
    assert.ok(uncited.length > 0, `the fixture's answer leaves a source uncited: ${JSON.stringify(result.citations)}`);
    for (const s of uncited) {
      assert.ok(!copied!.includes(`[${s.n}] `), `uncited [${s.n}] copied:\n${copied}`);
    }
    const doc = await vscode.workspace.openTextDocument({ content: 'Before.\n', language: 'markdown' });
    const editor = await vscode.window.showTextDocument(doc);
    editor.selection = new vscode.Selection(1, 0, 1, 0);
    await vscode.commands.executeCommand('ragls.insertAnswer');
    assert.equal(doc.getText(), `Before.\n${copied}`);
    await vscode.commands.executeCommand('workbench.action.revertAndCloseActiveEditor');
  });

  test('resetting a setting that the server started with takes effect without a restart', async () => {
    const cfg = vscode.workspace.getConfiguration('ragls');
    const backend = async () => (await api.server.request(StatusRequest, {})).generation.backend;
    await cfg.update('generation.backend', 'ollama', vscode.ConfigurationTarget.Workspace);
    try {
      await vscode.commands.executeCommand('ragls.restartServer'); // now in initializationOptions
      await until('the server to start with backend ollama', async () => ((await backend()) === 'ollama' ? true : undefined));
      let restarts = 0;
      const sub = api.server.onDidStart(() => (restarts += 1));
      try {
        await cfg.update('generation.backend', undefined, vscode.ConfigurationTarget.Workspace);
        await until('rag/status to show ragls.toml\'s backend again', async () => ((await backend()) === 'none' ? true : undefined));
        assert.equal(restarts, 0, 'no restart');
      } finally {
        sub.dispose();
      }
    } finally {
      await cfg.update('generation.backend', undefined, vscode.ConfigurationTarget.Workspace);
    }
    await until('the status bar to be ready', () => api.status.state === 'ready' && api.status.totals?.files === 4);
  });

  test('a start says what it waits for, counting seconds; a ragls.toml that does not parse is said, and fixing it opens the index', async function () {
    this.timeout(4 * 60_000);
    const toml = join(handbook.uri.fsPath, 'ragls.toml');
    const good = readFileSync(toml, 'utf8');
    const shown: string[] = [];
    const watch = api.status.onDidChange(() => shown.push(`${api.status.text} | ${String(api.status.item.tooltip)}`));
    const after = StatusBar.STARTING_SECONDS_AFTER_MS;
    StatusBar.STARTING_SECONDS_AFTER_MS = 0; // count from the first second (a start here takes a few)
    try {
      writeFileSync(toml, `[retrieval\n${good}`);
      await vscode.commands.executeCommand('ragls.restartServer');
      await until('the status bar to say the workspace could not be opened', () => api.status.state === 'error');
      const why = String(api.status.item.tooltip);
      assert.ok(why.includes('could not be opened') && why.includes(toml) && why.includes("Expected ']'"), why);
      assert.equal(api.status.text, '$(error) ragls');
      // While it started: what it waited for, with the seconds so far (never a bare "starting" for 25 s).
      // The step in the item itself ("starting the server · 3 s"), not only in its hover.
      assert.ok(shown.some((l) => /^\$\(sync~spin\) ragls: starting the server · \d+ s \| ragls: starting the server \(.+\): Python loads ragls/.test(l)),
        shown.join('\n'));
      // Fixed in the editor and saved: the server is told (didSave) and opens the workspace, without a restart.
      let restarts = 0;
      const sub = api.server.onDidStart(() => (restarts += 1));
      const doc = await vscode.workspace.openTextDocument(toml);
      const editor = await vscode.window.showTextDocument(doc);
      await editor.edit((e) => e.replace(new vscode.Range(0, 0, 1, 0), ''));
      assert.equal(doc.getText(), good);
      await doc.save();
      try {
        await until('the status bar to show the index again', () => api.status.state === 'ready' && api.status.totals?.files === 4, 120_000);
      } catch (error) {
        const asked = await api.server.request(StatusRequest, {}).then(() => 'answers', (e) => String(e));
        throw new Error(`${String(error)}; the status bar: ${api.status.text}; rag/status: ${asked}; the log's end:\n${outputLog(api).split('\n').slice(-25).join('\n')}`);
      }
      sub.dispose();
      assert.equal(restarts, 0, 'no restart');
      // Broken again while the workspace is open: the server keeps it (answers go on) and the item says why.
      await editor.edit((e) => e.insert(new vscode.Position(0, 0), '[retrieval\n'));
      await doc.save();
      await until('the status bar to show the ragls.toml error', () => api.status.text.startsWith('$(warning) ragls: 4 files')
        && (api.status.item.tooltip as vscode.MarkdownString).value.includes('keeping the previous settings'));
      const hover = (api.status.item.tooltip as vscode.MarkdownString).value;
      assert.ok(hover.includes('$(error) ') && hover.includes('Expected') && hover.includes('1 error — click for details'), hover);
      const found = await api.server.request(QueryRequest, { query: 'roll back beacon firmware' });
      assert.ok(found.chunks.length > 0, `no chunks: ${JSON.stringify(found)}`);
      await editor.edit((e) => e.delete(new vscode.Range(0, 0, 1, 0)));
      await doc.save();
      await until('the error to go once the file is fixed', () => api.status.state === 'ready'
        && api.status.text.startsWith('$(book) ragls: 4 files'));
      await vscode.commands.executeCommand('workbench.action.closeActiveEditor');
    } finally {
      StatusBar.STARTING_SECONDS_AFTER_MS = after;
      watch.dispose();
      writeFileSync(toml, good);
    }
  });

  test('Generate Commit Message keeps a typed draft (Append / Replace / dismiss)', async () => {
    const git = vscode.extensions.getExtension<{ getAPI(v: 1): GitAPI }>('vscode.git')!;
    const gitApi = (git.isActive ? git.exports : await git.activate()).getAPI(1);
    const repo = gitApi.repositories.find((r) => r.rootUri.fsPath === handbook.uri.fsPath)!;
    const file = join(handbook.uri.fsPath, 'docs', 'deployment.md');
    appendFileSync(file, '\n## Rollout windows\n\nRoll out between 09:00 and 11:00 only.\n');
    execFileSync('git', ['add', 'docs/deployment.md'], { cwd: handbook.uri.fsPath });
    const original = prompts.draft;
    const run = async (choice: 'append' | 'replace' | undefined) => {
      await setCommitBox(repo, 'WIP: my own words');
      const asked: string[] = [];
      prompts.draft = async (draft) => {
        asked.push(draft);
        return choice;
      };
      const result = await vscode.commands.executeCommand<CommitMessageResult>('ragls.generateCommitMessage', {
        rootUri: repo.rootUri,
      });
      assert.deepEqual(asked, ['WIP: my own words'], 'asked about the draft');
      return result!;
    };
    try {
      const appended = await run('append');
      assert.equal(repo.inputBox.value, `WIP: my own words\n\n${appended.message}`);
      const replaced = await run('replace');
      assert.equal(repo.inputBox.value, replaced.message);
      await run(undefined);
      assert.equal(repo.inputBox.value, 'WIP: my own words', 'dismissed: the draft stays');
    } finally {
      prompts.draft = original;
      execFileSync('git', ['reset', '-q'], { cwd: handbook.uri.fsPath });
    }
  });

  test('with nothing staged, Generate Commit Message offers to use all changes', async () => {
    const git = vscode.extensions.getExtension<{ getAPI(v: 1): GitAPI }>('vscode.git')!;
    const gitApi = (git.isActive ? git.exports : await git.activate()).getAPI(1);
    const repo = gitApi.repositories.find((r) => r.rootUri.fsPath === handbook.uri.fsPath)!;
    execFileSync('git', ['reset', '-q'], { cwd: handbook.uri.fsPath });
    execFileSync('git', ['checkout', '--', '.'], { cwd: handbook.uri.fsPath });
    writeFileSync(join(handbook.uri.fsPath, 'README.md'), `${readFileSync(join(handbook.uri.fsPath, 'README.md'), 'utf8')}\nSee docs/ for more.\n`);
    // git itself says nothing is staged (the server asks git, not the Git extension's possibly lagging view).
    assert.equal(execFileSync('git', ['diff', '--cached', '--name-only'], { cwd: handbook.uri.fsPath, encoding: 'utf8' }), '');
    await setCommitBox(repo, '');
    const originals = { ...prompts };
    const offered: string[] = [];
    const drafts: string[] = [];
    prompts.useAllChanges = async (name) => {
      offered.push(name);
      return true;
    };
    // Never a real quick pick: one left open (ignoreFocusOut) would wait for a click until mocha's timeout.
    prompts.draft = async (draft) => {
      drafts.push(draft);
      return 'replace';
    };
    try {
      const result = await vscode.commands.executeCommand<CommitMessageResult>('ragls.generateCommitMessage', {
        rootUri: repo.rootUri,
      });
      assert.deepEqual(offered, ['handbook'], 'offered once, naming the repository');
      assert.ok(result, 'a message from all changes');
      assert.deepEqual(result.files, ['README.md']);
      assert.equal(repo.inputBox.value, result.message, `drafts seen: ${JSON.stringify(drafts)}`);
    } finally {
      Object.assign(prompts, originals);
      execFileSync('git', ['checkout', '--', '.'], { cwd: handbook.uri.fsPath });
    }
  });
});
