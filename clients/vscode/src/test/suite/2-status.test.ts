/**
 * In-editor tests, the status bar and Show Status (how they run, and the suite they share: ./helpers.ts).
 */
import assert from 'node:assert/strict';
import * as vscode from 'vscode';
import { ThreadStore } from '../../chat/thread';
import { ChatView } from '../../chat/view';
import { WAITING_FOR_MODEL } from '../../chat/turnHtml';
import { formatStatus } from '../../commands';
import { embeddingLabel, ITEM_CHARS, warningMessage } from '../../status';
import { escapeHtml } from '../../webview';
import { StatusRequest, StatusResult } from '../../protocol';
import { editorSuite, api, handbook, notes } from './helpers';

editorSuite(() => {
  test('status bar shows files and sections and runs Show Status', () => {
    assert.match(api.status.text, /^\$\(book\) ragls: 4 files · \d+ sections$/);
    assert.equal(api.status.item.command, 'ragls.showStatus');
    // who writes answers, in words (it was "generation: none")
    const tooltip = (api.status.item.tooltip as vscode.MarkdownString).value;
    assert.ok(tooltip.includes('answers: none (extractive answers, no LLM)'), tooltip);
  });

  test('Show Status returns both folders of the multi-root workspace', async () => {
    const status = await vscode.commands.executeCommand<StatusResult>('ragls.showStatus');
    assert.ok(status, 'Show Status returned nothing');
    const files = new Map(status.folders.map((f) => [vscode.Uri.parse(f.uri).fsPath, f.files]));
    assert.equal(files.get(handbook.uri.fsPath), 3);
    assert.equal(files.get(notes.uri.fsPath), 1);
    assert.equal(status.generation.backend, 'none');
  });

  test('the status bar item says indexing and its percentage in a few characters, the step in its hover', async () => {
    // The server's own messages (workspace/watch.py, embedding/embed.py), fed as its work-done progress. The item
    // had the step too (~60 characters), which pushed VS Code's Ln/Col and encoding items out of a 1000-px window.
    const token = 'ragls-test-step';
    const itemChars = () => api.status.text.replace('$(sync~spin) ', '').length;
    try {
      api.status.onWorkDoneProgress(token, { kind: 'begin', title: 'ragls: indexing', message: 'loading the embedding model', percentage: 0 });
      assert.equal(api.status.text, '$(sync~spin) ragls: indexing 0% · loading model');
      assert.equal(api.status.step, 'indexing 0% · loading the embedding model', 'the step a waiting chat turn names');
      // As the server sends it with the fallback model's notice (lsp/server.py): the notice in the hover.
      const notice = 'using the bundled offline embedding model sentence-transformers/all-MiniLM-L6-v2 (ragls\'s default is not downloaded)';
      api.status.onWorkDoneProgress(token, { kind: 'report', message: `loading the embedding model: ${notice}`, percentage: 0 });
      assert.equal(api.status.text, '$(sync~spin) ragls: indexing 0% · loading model');
      assert.ok(String(api.status.item.tooltip).includes(notice), String(api.status.item.tooltip));
      api.status.onWorkDoneProgress(token, { kind: 'report', message: 'for faster answers 120/894 sections, step 3 of 3', percentage: 93 });
      assert.equal(api.status.text, '$(sync~spin) ragls: indexing 93%');
      assert.equal(String(api.status.item.tooltip), 'ragls: indexing 93%\n\nfor faster answers 120/894 sections, step 3 of 3');
      assert.equal(api.status.step, 'indexing 93% · for faster answers 120/894 sections, step 3 of 3');
      // A screen reader's words: no icon name, the item once, then its step (VS Code read "sync~spin ragls: indexing
      // 93%, ragls: indexing 93% …", the icon's name and the item twice).
      assert.equal(api.status.item.accessibilityInformation?.label,
        'ragls: indexing 93%, for faster answers 120/894 sections, step 3 of 3');
      // a report with neither keeps both (it was "ragls: indexing · …" with the percentage gone)
      api.status.onWorkDoneProgress(token, { kind: 'report' });
      assert.equal(api.status.text, '$(sync~spin) ragls: indexing 93%');
      assert.ok(String(api.status.item.tooltip).endsWith('for faster answers 120/894 sections, step 3 of 3'), String(api.status.item.tooltip));
      // the server's longest step, with a big folder's count: short in the item, whole in the hover and the chat's step
      const longest = 'for meaning search in long sections 10400/12000, step 2 of 3';
      api.status.onWorkDoneProgress(token, { kind: 'report', message: longest, percentage: 56 });
      assert.equal(api.status.text, '$(sync~spin) ragls: indexing 56%');
      assert.ok(itemChars() <= ITEM_CHARS, api.status.text);
      assert.ok(String(api.status.item.tooltip).includes(longest), String(api.status.item.tooltip));
      assert.equal(api.status.step, `indexing 56% · ${longest}`);
      const download = 'loading the embedding model: downloading embedding model BAAI/bge-small-en-v1.5 (first run only)';
      api.status.onWorkDoneProgress(token, { kind: 'report', message: download, percentage: 0 });
      assert.equal(api.status.text, '$(sync~spin) ragls: indexing 0% · loading model');
      assert.ok(itemChars() <= ITEM_CHARS, api.status.text);
      assert.ok(String(api.status.item.tooltip).includes(download), String(api.status.item.tooltip));
      assert.equal(api.status.step, 'indexing 0% · loading the embedding model');
    } finally {
      api.status.onWorkDoneProgress(token, { kind: 'end' });
      await api.server.refreshStatus();
    }
    assert.match(api.status.text, /^\$\(book\) ragls: 4 files · \d+ sections$/);
    assert.match(api.status.item.accessibilityInformation?.label ?? '', /^ragls: 4 files, \d+ sections$/);
    assert.equal(api.status.step, undefined, 'no step once ready');
    // A question asked while the server starts says what it waits for (the item's step), not "Searching your docs…".
    let step: string | undefined = 'starting the server · 4 s';
    const memento = { get: () => undefined, update: async () => undefined, keys: () => [] } as unknown as vscode.Memento;
    const view = new ChatView(api.server, new ThreadStore(memento), String, () => false, () => undefined, () => false,
      () => undefined, () => step);
    try {
      const answer = view.ask('How do I roll back beacon firmware?');
      assert.ok(view.html.includes('Waiting for ragls: starting the server · 4 s…') && !view.html.includes('Searching your docs'), view.html);
      step = undefined;
      const answered = await answer;
      assert.ok(answered?.answer.includes('beacon push --previous'), `the answer: ${JSON.stringify(answered)}`);
    } finally {
      view.dispose();
    }
  });

  test('once every section has its first vector, the hover and Show Status say later parts are still embedded', async () => {
    // session 67: the status read as done while the long sections' later windows were embedded. The server's own
    // status with the counts it sends then: every first vector in, 2 sections of the first folder with windows left.
    const ready = await api.server.request(StatusRequest, {});
    assert.ok(ready.folders.every((f) => typeof f.pendingWindows === 'number'), JSON.stringify(ready.folders));
    const later: StatusResult = {
      ...ready,
      folders: ready.folders.map((f, i) => ({ ...f, pendingVectors: 0, pendingWindows: i === 0 ? 2 : 0 })),
    };
    const said = 'later parts of 2 long sections not embedded yet (meaning search sees their start meanwhile)';
    try {
      api.status.showStatus(later);
      const tooltip = (api.status.item.tooltip as vscode.MarkdownString).value;
      assert.ok(tooltip.includes(`L${said.slice(1)}`), tooltip);
      const lines = formatStatus(later);
      assert.ok(lines.some((l) => l.includes(`0 queued, ${said}; index `)), lines.join('\n'));
      assert.ok(lines.some((l) => l.includes('0 queued, 0 sections without vectors; index ')), lines.join('\n'));
    } finally {
      await api.server.refreshStatus();
    }
  });

  test("in Restricted Mode an untrusted ragls.toml's warning names VS Code's Manage Workspace Trust", async () => {
    // session 67: the server's words ("trust the workspace in the editor") left the user to find the command. Its
    // warning entry as a newer server sends it in Restricted Mode (config/trust_filter.py untrusted_notice), the
    // how-to-trust end also as `trustHow`, on the real server's status.
    const ready = await api.server.request(StatusRequest, {});
    const toml = `${vscode.Uri.parse(ready.folders[0].uri).fsPath}/ragls.toml`;
    const how = 'trust the workspace in the editor to use them';
    const message = `${toml}: the editor has not trusted this workspace (restricted mode), so these settings were ignored: generation.backend; ${how}`;
    const restricted: StatusResult = { ...ready, errors: [...ready.errors, { path: toml, message, severity: 'warning', trustHow: how }] };
    const said = `${message.slice(0, -how.length)}trust this workspace (Workspaces: Manage Workspace Trust) to use them`;
    assert.equal(warningMessage(restricted.errors.at(-1)!, false), said);
    assert.equal(warningMessage(restricted.errors.at(-1)!, true), message); // trusted: the server's words
    assert.equal(warningMessage({ path: toml, message, severity: 'warning' }, false), message); // an older server
    assert.ok(vscode.workspace.isTrusted, 'the suite runs with Workspace Trust off: the server words stay');
    assert.ok(formatStatus(restricted).includes(`  warning: ${message}`), formatStatus(restricted).join('\n'));
  });

  test('while the embedding model loads, the status bar, Show Status and a waiting answer say so', async () => {
    // The server's status once the model is ready, then the same folders as a server sends them while its model
    // still loads (every chunk counted without vectors, storedPendingVectors what is really left).
    const ready = await api.server.request(StatusRequest, {});
    assert.ok(ready.folders.every((f) => f.embeddingLoading === false), JSON.stringify(ready.folders));
    const loading: StatusResult = {
      ...ready,
      folders: ready.folders.map((f) => ({ ...f, pendingVectors: f.chunks, embeddingLoading: true, storedPendingVectors: 0 })),
    };
    try {
      api.status.showStatus(loading);
      assert.match(api.status.text, /^\$\(loading~spin\) ragls: 4 files · \d+ sections · loading model$/);
      assert.ok(api.status.embeddingLoading, `embeddingLoading is ${api.status.embeddingLoading}`);
      const tooltip = (api.status.item.tooltip as vscode.MarkdownString).value;
      assert.ok(tooltip.includes('The embedding model is loading: search uses keywords until it is ready.'), tooltip);
      assert.ok(!tooltip.includes('without vectors'), tooltip); // not "12 chunk(s) still without vectors"
      const lines = formatStatus(loading).join('\n');
      assert.ok(lines.includes('the embedding model is loading: search uses keywords until it is ready; every section is embedded'), lines);
      assert.ok(!lines.includes('without vectors'), lines);
      // The model not loaded yet (no embeddingSource): named so, as Neovim's :RagStatus names it, in the details and in
      // Show Status' message (which left the model out until it loaded).
      const unloaded: StatusResult = { ...loading, embeddingSource: undefined };
      assert.equal(embeddingLabel(unloaded), `${ready.embeddingModel} (not loaded yet)`);
      assert.ok(formatStatus(unloaded)[0].includes(`embedding ${ready.embeddingModel} (not loaded yet)`), formatStatus(unloaded)[0]);
      // An answer runs on keywords while the model loads: its turn says so instead of "Searching your docs…".
      let modelLoading = true;
      const memento = { get: () => undefined, update: async () => undefined, keys: () => [] } as unknown as vscode.Memento;
      const view = new ChatView(api.server, new ThreadStore(memento), String, () => false, () => undefined, () => modelLoading);
      try {
        const answer = view.ask('How do I roll back beacon firmware?');
        assert.ok(view.html.includes(escapeHtml(WAITING_FOR_MODEL)) && !view.html.includes('Searching your docs'), view.html);
        modelLoading = false;
        const answered = await answer;
        assert.ok(answered?.answer.includes('beacon push --previous'), `the answer: ${JSON.stringify(answered)}`);
        assert.ok(!view.html.includes(escapeHtml(WAITING_FOR_MODEL)), view.html);
      } finally {
        view.dispose();
      }
    } finally {
      await api.server.refreshStatus();
    }
    assert.ok(!api.status.embeddingLoading, `embeddingLoading is ${api.status.embeddingLoading}; the item: ${api.status.text}`);
    assert.match(api.status.text, /^\$\(book\) ragls: 4 files · \d+ sections$/);
  });
});
