/**
 * In-editor tests: run inside a real VS Code (code-server) extension host against the real ragls server, on the
 * two-folder workspace made by ../fixture.ts (handbook/ — a git repository — and notes/). Each test runs a
 * contributed command the way the palette does and checks what the user would see: the answer and its sources,
 * the panel's HTML, the editor selection after opening a source, the SCM commit box, the status bar.
 * Waits poll until a deadline; nothing sleeps for a fixed time.
 */
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { appendFileSync, chmodSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { dirname, join } from 'node:path';
import * as vscode from 'vscode';
import { prompts } from '../../commitMessage';
import { cursorOf, highlightedRanges, lineRange, revealSource } from '../../decorations';
import type { RaglsApi } from '../../extension';
import type { GitAPI, GitRepository } from '../../git';
import { chatViewIsServed, type SetupResult } from '../../walkthrough';
import { ThreadStore } from '../../chat/thread';
import { ChatView, PARTIAL_INDEX_NOTE } from '../../chat/view';
import { WAITING_FOR_MODEL } from '../../chat/turnHtml';
import { answerInChat, PieceBehind } from '../../chat/participant';
import { describeError, formatStatus, shortWarning } from '../../commands';
import { ResponseError } from 'vscode-languageclient/node';
import { markdownText, StatusBar, statusWarnings } from '../../status';
import { escapeHtml } from '../../webview';
import { defaultPython } from '../fixture';
import { answerBody, citedPlace, openSource, sourceLabel } from '../../answer';
import { extractedLanguage, sourceDocumentUri } from '../../extracted';
import {
  AskRequest,
  AskResult,
  Chunk,
  CommitMessageResult,
  QueryRequest,
  RebuildResult,
  Source,
  StatusRequest,
  StatusResult,
} from '../../protocol';

const EXTENSION_ID = 'ragls.ragls-vscode';

/** A TCP port nothing listens on (bound by the OS, then released). */
async function freePort(): Promise<number> {
  const probe = createServer();
  await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
  const { port } = probe.address() as AddressInfo;
  await new Promise((resolve) => probe.close(resolve));
  return port;
}

const DEADLINE_MS = 90_000;
const FIRST_INDEX_MS = 240_000;

/** What a timed-out wait saw besides its own probe (the suite sets it once the extension is active: the status bar
 * item), so a failure in CI's output says in which state the editor was. */
let stateNow: () => string = () => '';

/** Poll `probe` every 200 ms until it returns a value other than undefined/false; fails after `ms` naming `what`,
 * the probe's last value (when it is not a bare boolean) and `stateNow()`. */
async function until<T>(what: string, probe: () => T | undefined | Promise<T | undefined>, ms = DEADLINE_MS): Promise<T> {
  const deadline = Date.now() + ms;
  for (;;) {
    const value = await probe();
    if (value !== undefined && value !== false) {
      return value;
    }
    if (Date.now() > deadline) {
      const last = value === undefined || typeof value === 'boolean' ? '' : `; the probe returned ${JSON.stringify(value)}`;
      throw new Error(`timed out after ${ms} ms waiting for ${what}${last}; ${stateNow()}`);
    }
    await new Promise((r) => setTimeout(r, 200));
  }
}

/**
 * Put `value` into a repository's commit box and wait until VS Code has settled on it. The extension host sets the
 * box at once, but the workbench echoes every value back (`$onInputBoxValueChange`); on a slow machine the echo of
 * an earlier value (a draft of the test before) can arrive after this set and put that draft back, and a command
 * would then see a draft. Messages between the two processes keep their order, so once a command sent after the
 * set has come back, every echo before it has arrived.
 */
async function setCommitBox(repo: GitRepository, value: string): Promise<void> {
  repo.inputBox.value = value;
  await vscode.commands.executeCommand('setContext', 'ragls.test.commitBoxSynced', Date.now());
  await until(`the commit box to hold ${JSON.stringify(value)}`, () => repo.inputBox.value === value);
}

/** The text of a language-model tool's result (`vscode.lm.invokeTool`, where this VS Code has it). */
async function invokeTool(name: string, input: object): Promise<string> {
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  const result = await (vscode as any).lm.invokeTool(name, { input, toolInvocationToken: undefined });
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  return (result.content as any[]).map((part) => part.value ?? '').join('');
}

/** The editor shows `source` with the cursor at the start of its focus lines (no chunk-wide selection) and those
 * whole lines highlighted by the transient decoration. */
function assertOpensAt(editor: vscode.TextEditor | undefined, source: Source): void {
  assert.ok(editor, 'no editor was opened');
  assert.equal(editor.document.uri.toString(), sourceDocumentUri(source).toString());
  const focus = source.focusRange ?? source.range;
  assert.ok(editor.selection.isEmpty, `no selection of the whole chunk; selected: ${JSON.stringify(editor.selection)}`);
  assert.deepEqual(
    { line: editor.selection.active.line, character: editor.selection.active.character },
    cursorOf(source), // the answering passage's start (quoteRanges), else the focus's
  );
  const lit = highlightedRanges(editor.document.uri);
  assert.equal(lit.length, 1, 'one highlighted range');
  const want = editor.document.validateRange(lineRange(focus));
  assert.deepEqual([lit[0].start.line, lit[0].end.line], [want.start.line, want.end.line]);
}

suite('ragls extension in VS Code', () => {
  let api: RaglsApi;
  let handbook: vscode.WorkspaceFolder;
  let notes: vscode.WorkspaceFolder;

  suiteSetup(async function () {
    // The first index: the server's start and model load, then 4 files, while code-server and Chromium start too
    // (the UI test sees it after 40-50 s at load 12-20 on 2 cores); the wait returns as soon as it is there.
    this.timeout(FIRST_INDEX_MS + 30_000);
    const ext = vscode.extensions.getExtension<RaglsApi>(EXTENSION_ID);
    assert.ok(ext, `${EXTENSION_ID} is not installed`);
    api = await ext.activate();
    stateNow = () => `the status bar: ${JSON.stringify(api.status.text)} (state ${api.status.state}, totals ${JSON.stringify(api.status.totals)})`;
    const folders = vscode.workspace.workspaceFolders ?? [];
    assert.deepEqual(folders.map((f) => f.name), ['handbook', 'notes']);
    [handbook, notes] = folders;
    await until('the status bar to show the indexed totals', () =>
      api.status.state === 'ready' && api.status.totals?.files === 4 && api.status.totals.chunks >= 4,
    FIRST_INDEX_MS);
  });

  test('a source label: lines, one line, and one line entered mid-way (path:line:column, as the CLI prints it)', () => {
    const uri = vscode.Uri.joinPath(handbook.uri, 'docs', 'calibration.md').toString();
    const at = (sl: number, sc: number, el: number, ec: number): Source => ({
      uri, path: 'docs/calibration.md', range: { start: { line: sl, character: sc }, end: { line: el, character: ec } },
    });
    assert.equal(sourceLabel(at(6, 0, 8, 0)), 'handbook/docs/calibration.md:7-8');
    assert.equal(sourceLabel(at(6, 0, 6, 40)), 'handbook/docs/calibration.md:7');
    // two chunks of one 300,000-character line were both "…:3"
    assert.equal(sourceLabel(at(2, 1995, 2, 3994)), 'handbook/docs/calibration.md:3:1996');
    assert.equal(sourceLabel({ ...at(0, 0, 9, 0), focusRange: at(2, 299995, 2, 300027).range }),
      'handbook/docs/calibration.md:3:299996');
    // an extractive answer quoting one chunk at two far places: one label with both (`focusRanges`, line order)
    assert.equal(sourceLabel({ ...at(0, 0, 40, 0), focusRange: at(21, 0, 26, 0).range,
      focusRanges: [at(3, 0, 9, 5).range, at(21, 0, 26, 0).range] }), 'handbook/docs/calibration.md:4-10, 22-26');
    // lines of a converted document's extracted text, and a PDF's page, said after them as the CLI says it
    assert.equal(sourceLabel({ ...at(6, 0, 8, 0), extractedText: true }), 'handbook/docs/calibration.md:7-8 (extracted text)');
    assert.equal(sourceLabel({ ...at(6, 0, 8, 0), page: 3, extractedText: true }),
      'handbook/docs/calibration.md:7-8 (page 3, extracted text)');
    assert.equal(sourceLabel({ ...at(6, 0, 8, 0), page: 3 }), 'handbook/docs/calibration.md:7-8 (page 3)');
  });

  test('a [n] of a source quoted at two places opens the place its own answer item quotes', async () => {
    const uri = vscode.Uri.joinPath(handbook.uri, 'docs', 'calibration.md').toString();
    const tools = { start: { line: 6, character: 0 }, end: { line: 6, character: 98 } };
    const steps = { start: { line: 10, character: 0 }, end: { line: 13, character: 64 } };
    const source: Source = { uri, path: 'docs/calibration.md', range: { start: { line: 0, character: 0 }, end: { line: 14, character: 0 } },
      focusRange: tools, focusRanges: [tools, steps] };
    assert.deepEqual((await citedPlace(source, '2. Loosen the three housing bolts with the zeta-17 wrench [1].')).focusRange, steps);
    assert.deepEqual((await citedPlace(source, 'Use the zeta-17 torque wrench, set to 42 newton-metres [1].')).focusRange, tools);
    assert.equal(await citedPlace(source, ''), source, 'no item text (a source list entry): as the server sent it');
    const one: Source = { ...source, focusRanges: undefined };
    assert.equal(await citedPlace(one, 'Loosen the three housing bolts [1].'), one, 'one place: as the server sent it');
  });

  test('a [n] lands on the sentence its answer item quotes (quoteRanges), also mid-line after another sentence', async () => {
    // The real server's extractive answer quotes four sentences of deployment.md for [1], cited as one range
    // (3-6); "To roll back, run ..." starts mid-line 6. Each item's [1] opens at its own sentence.
    const result = await api.server.request(AskRequest, { question: 'How do I roll back beacon firmware?' });
    const source = result.sources.find((s) => s.n === 1 && s.path.endsWith('deployment.md'));
    assert.ok(source?.quoteRanges && source.quoteRanges.length > 1, JSON.stringify(result.sources));
    const doc = await vscode.workspace.openTextDocument(vscode.Uri.parse(source.uri));
    for (const [item, sentence] of [
      ['To roll back, run beacon push --previous [1].', 'To roll back, run `beacon push --previous`.'],
      ['If no beacon reports a fault, run beacon push --all to update the rest [1].', 'If no beacon reports a fault,'],
      ['New firmware goes out to the beacon cluster in stages [1].', 'New firmware goes out'],
    ]) {
      const place = await citedPlace(source, item);
      const editor = await openSource(place);
      assertOpensAt(editor, place);
      const at = editor!.selection.active;
      assert.ok(doc.lineAt(at.line).text.slice(at.character).startsWith(sentence),
        `${item} opened at ${at.line + 1}:${at.character + 1}: ${doc.lineAt(at.line).text}`);
    }
    // A search result too: its focus joins the sentences before the answering one (lines 3-6); the cursor goes to
    // the answering sentence, the highlight covers the focus.
    const found = await api.server.request(QueryRequest, { query: 'roll back beacon firmware', topK: 5 });
    const hit = found.chunks.find((c) => c.source.path.endsWith('deployment.md'));
    assert.ok(hit?.source.quoteRanges?.length === 1, JSON.stringify(found.chunks.map((c) => c.source)));
    const editor = await revealSource(hit.source);
    const at = editor.selection.active;
    assert.ok(doc.lineAt(at.line).text.slice(at.character).startsWith('To roll back'), `at ${at.line + 1}:${at.character + 1}`);
    assert.deepEqual(highlightedRanges(editor.document.uri).map((r) => [r.start.line, r.end.line]),
      [[hit.source.focusRange!.start.line, 5]]);
  });

  test('a source of extracted text (a PDF, HTML or DOCX file) opens as the text the server extracted', async () => {
    // The server reads a file as it indexed it (rag/readPassage); the mechanism is the same for any indexed file,
    // so deployment.md stands in for a converted one here.
    const uri = vscode.Uri.joinPath(handbook.uri, 'docs', 'deployment.md');
    const line = (n: number) => ({ line: n, character: 0 });
    const source: Source = { uri: uri.toString(), path: 'docs/deployment.md', range: { start: line(2), end: line(6) },
      focusRange: { start: line(5), end: { line: 5, character: 20 } }, extractedText: true };
    const editor = await openSource(source);
    assert.ok(editor, 'no editor');
    assert.equal(editor.document.uri.scheme, 'ragls-extracted', editor.document.uri.toString());
    assert.equal(editor.document.uri.path, uri.path);
    assert.ok(editor.document.lineAt(5).text.includes('To roll back, run'), editor.document.getText());
    assertOpensAt(editor, source);
    // in the extracted text's language, not the one of the file's name: Markdown (HTML, DOCX), plain text (PDF).
    // (deployment.md's name says Markdown too: the page's HTML mode is put on it by hand, and opening it again
    // gives the text its language back.)
    assert.equal(editor.document.languageId, 'markdown');
    await vscode.languages.setTextDocumentLanguage(editor.document, 'html');
    const again = await openSource(source);
    assert.equal(again?.document.uri.toString(), editor.document.uri.toString());
    assert.equal(again?.document.languageId, 'markdown');
    assert.equal(extractedLanguage(vscode.Uri.parse('ragls-extracted:/docs/page.html')), 'markdown');
    assert.equal(extractedLanguage(vscode.Uri.parse('ragls-extracted:/docs/manual.PDF')), 'plaintext');
  });

  test('a request pending when the server dies says so in words, not as a JSON-RPC code', () => {
    // What vscode-jsonrpc rejects pending requests with when the server's connection closes.
    const text = describeError(new ResponseError(-32097, 'Pending response rejected since connection got disposed'));
    assert.equal(text, 'ragls: the server stopped before it answered (Output → ragls says why); ask again, or run "ragls: Restart Server" if it keeps stopping.');
    assert.equal(describeError(new ResponseError(-32803, 'query must not be empty')), 'ragls: query must not be empty');
  });

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

  test('the status bar item says the indexing step itself (the hover has it whole)', async () => {
    // The server's own messages (workspace/watch.py, embedding/embed.py), fed as its work-done progress.
    const token = 'ragls-test-step';
    try {
      api.status.onWorkDoneProgress(token, { kind: 'begin', title: 'ragls: indexing', message: 'loading the embedding model', percentage: 0 });
      assert.equal(api.status.text, '$(sync~spin) ragls: indexing 0% · loading the embedding model');
      assert.equal(api.status.step, 'indexing 0% · loading the embedding model', 'the step a waiting chat turn names');
      // As the server sends it with the fallback model's notice (lsp/server.py): the step alone, the notice in the hover.
      const notice = 'using the bundled offline embedding model sentence-transformers/all-MiniLM-L6-v2 (ragls\'s default is not downloaded)';
      api.status.onWorkDoneProgress(token, { kind: 'report', message: `loading the embedding model: ${notice}`, percentage: 0 });
      assert.equal(api.status.text, '$(sync~spin) ragls: indexing 0% · loading the embedding model');
      assert.ok(String(api.status.item.tooltip).includes(notice), String(api.status.item.tooltip));
      api.status.onWorkDoneProgress(token, { kind: 'report', message: 'for faster answers 120/894 sections', percentage: 13 });
      assert.equal(api.status.text, '$(sync~spin) ragls: indexing 13% · for faster answers 120/894 sections');
      // a report with neither keeps both (it was "ragls: indexing · …" with the percentage gone)
      api.status.onWorkDoneProgress(token, { kind: 'report' });
      assert.equal(api.status.text, '$(sync~spin) ragls: indexing 13% · for faster answers 120/894 sections');
      // the server's longest step, with a big folder's count, whole: the count is what the user watches
      api.status.onWorkDoneProgress(token, { kind: 'report', message: 'for meaning search in long sections 10400/12000', percentage: 86 });
      assert.equal(api.status.text, '$(sync~spin) ragls: indexing 86% · for meaning search in long sections 10400/12000');
      const download = 'downloading embedding model BAAI/bge-small-en-v1.5 (first run only)';
      api.status.onWorkDoneProgress(token, { kind: 'report', message: download, percentage: 0 });
      assert.equal(api.status.text, '$(sync~spin) ragls: indexing 0% · downloading embedding model…');
      assert.ok(String(api.status.item.tooltip).includes(download), String(api.status.item.tooltip));
    } finally {
      api.status.onWorkDoneProgress(token, { kind: 'end' });
      await api.server.refreshStatus();
    }
    assert.match(api.status.text, /^\$\(book\) ragls: 4 files · \d+ sections$/);
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
      // An answer waits for the model: its turn says so instead of "Searching your docs…".
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

  test('the chat view\'s page shows its thread from its first paint; an empty one says what the server is doing', async () => {
    // The page used to load showing "Loading…" (blank in the side bar opened at start-up) until it had asked for its
    // content and got it back; now the thread is in its HTML.
    const stored = {
      threads: [{ id: 't1', createdAt: Date.now(), turns: [{
        requestId: 1, question: 'How do I roll back beacon firmware?', shown: 'How do I roll back beacon firmware?',
        markdown: 'Run `beacon push --previous` [1].', streamed: '', status: 'done',
      }] }],
    };
    let stateStored: unknown = stored;
    const memento = { get: () => stateStored, update: async () => undefined, keys: () => [] } as unknown as vscode.Memento;
    let step: string | undefined = 'starting the server · 3 s';
    let indexing = false;
    const page = (view: ChatView): string => {
      const fake = {
        webview: { options: {}, html: '', cspSource: 'vscode-resource:', onDidReceiveMessage: () => ({ dispose() {} }),
          postMessage: async () => true },
        onDidDispose: () => ({ dispose() {} }),
        visible: true,
        show() {},
      };
      view.resolveWebviewView(fake as unknown as vscode.WebviewView);
      return fake.webview.html;
    };
    const make = () => new ChatView(api.server, new ThreadStore(memento), String, () => indexing, () => undefined,
      () => false, () => undefined, () => step);
    const withThread = make();
    try {
      const html = page(withThread);
      assert.ok(html.includes('<h3 class="question">How do I roll back beacon firmware?</h3>'), html);
      assert.ok(html.includes('<code><span class="nw">beacon</span> <span class="nw">push</span> <span class="nw">--previous</span></code>') && !html.includes('Loading…'), html);
      assert.ok(html.includes('<span class="label">How do I roll back beacon firmware?</span>'), `the header names the thread:\n${html}`);
    } finally {
      withThread.dispose();
    }
    stateStored = undefined;
    const empty = make();
    try {
      assert.ok(page(empty).includes('ragls: starting the server · 3 s. A question asked now is answered once it is ready.'),
        empty.html);
      step = 'indexing 13% · for meaning search 120/894 sections';
      indexing = true;
      empty.statusChanged();
      await until('the empty thread to say the server indexes', () => empty.html.includes(
        'ragls: indexing 13% · for meaning search 120/894 sections. Answers meanwhile come from the documents indexed so far.'));
      step = undefined;
      indexing = false;
      empty.statusChanged();
      await until('the empty thread to say nothing of the server once it is ready', () => !empty.html.includes('ragls: '));
    } finally {
      empty.dispose();
    }
  });

  test("the first run reveals ragls' chat view only when VS Code's own Chat view has nothing to show", () => {
    // This editor (code-server): no Copilot Chat, no model provider.
    assert.equal(chatViewIsServed(vscode.extensions.all), false, vscode.extensions.all.map((e) => e.id).join(', '));
    const plain = { id: 'someone.markdown-tools', packageJSON: { contributes: { commands: [] } } };
    assert.equal(chatViewIsServed([plain, { id: 'GitHub.copilot-chat' }]), true, 'Copilot Chat fills it');
    assert.equal(chatViewIsServed([{ id: 'someone.local-models', packageJSON: { contributes: { languageModelChatProviders: [{ vendor: 'local' }] } } }]),
      true, 'a model provider fills it');
    assert.equal(chatViewIsServed([{ id: 'someone.participant', packageJSON: { contributes: { chatParticipants: [{ id: 'p' }] } } }]),
      false, 'a chat participant without a model does not');
  });

  test('Ask streams the answer into a chat turn with hover titles and its buttons; a citation opens the cited lines', async () => {
    // The view needs no chat model: this editor has none (code-server, no Copilot), and it answers all the same.
    // eslint-disable-next-line @typescript-eslint/no-explicit-any
    const lm = (vscode as any).lm;
    if (typeof lm?.selectChatModels === 'function') {
      const models = await Promise.race([lm.selectChatModels(), new Promise((r) => setTimeout(() => r([]), 10_000))]);
      assert.deepEqual(models, [], 'a chat model is present: this test would not show the view works without one');
    }
    api.chat.newChat();
    const result = await vscode.commands.executeCommand<AskResult>('ragls.askQuestion', 'How do I roll back beacon firmware?');
    assert.ok(result, 'Ask returned nothing');
    assert.equal(result.abstained, false);
    assert.ok(result.answer.includes('beacon push --previous'), result.answer);
    const source = result.sources[0];
    assert.equal(source.n, 1);
    assert.equal(source.path, 'docs/deployment.md');

    // The one answer surface: the question is a turn of the chat's current thread.
    const turn = api.chat.thread.turns.at(-1)!;
    assert.equal(turn.question, 'How do I roll back beacon firmware?');
    assert.equal(turn.status, 'done');
    assert.equal(turn.result, result);
    assert.equal(turn.streamed, result.answer, 'the answer was streamed into its turn');
    // The server's label line ("*Extractive answer (no LLM configured): …*", `label`) is left out: the footer says
    // who wrote the answer, and the answer starts right under the question.
    assert.ok(result.label && result.answer.startsWith(`${result.label}\n`), `the server names its label: ${JSON.stringify(result)}`);
    assert.equal(turn.markdown, result.answer.slice(result.label.length).trim());
    assert.ok(!api.chat.html.includes('Extractive answer'), api.chat.html);
    // Hover on [1] shows the cited lines (read after the result arrives).
    const title = await until('the hover title of [1]', () =>
      /class="cite" data-n="1" title="(\[1\][^"]*)"/.exec(api.chat.html)?.[1]);
    assert.match(title, /^\[1\] handbook\/docs\/deployment\.md:\d+/);
    assert.ok(title.includes('beacon push --previous'), title);
    const html = api.chat.html;
    // inline code breaks only at its spaces: each word kept whole (uiAsk checks the layout)
    assert.ok(html.includes('<code><span class="nw">beacon</span> <span class="nw">push</span> <span class="nw">--previous</span></code>'), html);
    // (the path may wrap after a "/", the lines stay on one line: uiAsk checks the layout)
    assert.match(html, /<a href="#" class="source" data-n="1">\[1\] handbook\/<wbr>docs\/<wbr>deployment\.md<span class="lines">:\d+(-\d+)?<\/span><\/a>/);
    // The label is the cited lines (focusRange, as the CLI prints them and opening goes there), not the chunk's range.
    assert.ok(source.focusRange, `an extractive source has focus lines: ${JSON.stringify(source)}`);
    const f = source.focusRange;
    const last = f.end.character === 0 && f.end.line > f.start.line ? f.end.line : f.end.line + 1;
    const lines = last === f.start.line + 1 ? `${last}` : `${f.start.line + 1}-${last}`;
    assert.ok(html.includes(`data-n="1">[1] handbook/<wbr>docs/<wbr>deployment.md<span class="lines">:${lines}</span></a>`),
      `${lines}:\n${html}`);
    for (const action of ['copy', 'insert', 'retry', 'openAll']) {
      assert.ok(html.includes(`<button data-action="${action}"`), `no ${action} button:\n${html}`);
    }
    assert.ok(!html.includes('class="abstained"') && !html.includes('class="error"'), `an abstained or failed turn:\n${html}`);
    // "Sources" counts the sources the answer cites; the others it was written from are listed apart, closed.
    const citedNs = new Set(result.citations.map((c) => c.n));
    const uncited = result.sources.filter((s) => !citedNs.has(s.n));
    assert.ok(uncited.length > 0 && citedNs.has(1), `the fixture's answer cites [1] only: ${JSON.stringify(result.citations)}`);
    assert.ok(html.includes(`<summary>Sources (${result.sources.length - uncited.length})</summary>`), html);
    const more = html.indexOf(`<details class="sources uncited"><summary>Also retrieved, not cited (${uncited.length})</summary>`);
    assert.ok(more > html.indexOf('<summary>Sources ('), html);
    for (const s of uncited) {
      assert.ok(html.indexOf(`class="source" data-n="${s.n}"`) > more, `[${s.n}] under "Also retrieved":\n${html}`);
    }
    // The footer names no LLM: none ran (backend none).
    assert.ok(html.includes('<p class="meta">extractive (no LLM) · '), html);

    const editor = await api.chat.handleMessage({ type: 'open', turn: turn.requestId, n: 1 }) as vscode.TextEditor;
    assertOpensAt(editor, source);
    const lit = highlightedRanges(editor.document.uri)[0];
    assert.ok(editor.document.getText(lit).includes('beacon push --previous'), `the highlighted lines read: ${JSON.stringify(editor.document.getText(lit))}`);
  });

  test('Ask opens the ragls view in the Secondary Side Bar again after the side bar was closed', async () => {
    await vscode.commands.executeCommand('ragls.chat.focus');
    await until('the ragls view to be shown', () => api.chat.visible);
    await vscode.commands.executeCommand('workbench.action.closeAuxiliaryBar');
    await until('the Secondary Side Bar to close', () => !api.chat.visible);
    const result = await vscode.commands.executeCommand<AskResult>('ragls.askQuestion', 'Which torque wrench is used for calibration?');
    assert.ok(result && result.answer.includes('zeta-17'), result?.answer);
    await until('the ragls view to be shown again', () => api.chat.visible);
  });

  test('an answer asked during an index pass that leaves nothing out has no partial-index note', async () => {
    // As after a settings change: the server re-checks every file, but nothing is queued or waiting for vectors.
    const memento = { get: () => undefined, update: async () => undefined, keys: () => [] } as unknown as vscode.Memento;
    const view = new ChatView(api.server, new ThreadStore(memento), String, () => true);
    try {
      const status = await api.server.request(StatusRequest, {});
      assert.ok(status.folders.every((f) => f.pending === 0 && (f.pendingVectors ?? 0) === 0), JSON.stringify(status.folders));
      const result = await view.ask('How do I roll back beacon firmware?');
      assert.ok(result?.answer.includes('beacon push --previous'), result?.answer);
      assert.equal(view.thread.turns[0].status, 'done');
      assert.equal(view.thread.turns[0].note, undefined);
      assert.ok(!view.html.includes(PARTIAL_INDEX_NOTE), view.html);
    } finally {
      view.dispose();
    }
  });

  test('two asks at once through "ragls: Ask" each keep their own answer; Retry asks again as the newest turn', async () => {
    api.chat.newChat();
    const q1 = 'How do I roll back beacon firmware?';
    const q2 = 'Which torque wrench is used for calibration?';
    const [a, b] = await Promise.all([
      vscode.commands.executeCommand<AskResult>('ragls.askQuestion', q1),
      vscode.commands.executeCommand<AskResult>('ragls.askQuestion', q2),
    ]);
    assert.ok(a && b, 'an ask returned nothing');
    const [t1, t2] = api.chat.thread.turns;
    assert.deepEqual([t1.question, t2.question], [q1, q2]);
    assert.ok(a.answer.includes('beacon push --previous') && !a.answer.includes('zeta-17'), a.answer);
    assert.ok(b.answer.includes('zeta-17') && !b.answer.includes('beacon push'), b.answer);
    assert.deepEqual([t1.result, t2.result], [a, b]);
    assert.deepEqual([t1.streamed, t2.streamed], [a.answer, b.answer]);

    const again = await api.chat.handleMessage({ type: 'action', turn: t1.requestId, action: 'retry' }) as AskResult;
    assert.ok(again && again.answer.includes('beacon push --previous'), again?.answer);
    assert.deepEqual(api.chat.thread.turns.map((t) => t.question), [q2, q1], 'the retried turn moved to the end');
    assert.equal(api.chat.thread.turns[1].result, again);
    // Copy on a turn's button copies that turn's answer.
    const copied = await api.chat.handleMessage({ type: 'action', turn: t2.requestId, action: 'copy' }) as string;
    assert.ok(b.label && copied.startsWith(`${b.answer.slice(b.label.length).trim()}\n\nSources:\n\n`), copied);
    assert.equal(await vscode.env.clipboard.readText(), copied);
  });

  test('an LLM that fails: the turn shows its error, Retry and Open Settings above the extractive answer', async () => {
    const cfg = vscode.workspace.getConfiguration('ragls');
    const dead = `http://127.0.0.1:${await freePort()}/v1`;
    // The URL first: with the backend still 'none' every intermediate state is valid (backend 'external' without a
    // URL would be ignored with a warning — logged once per configuration change the server happens to see, so
    // once or twice depending on timing, which the output-channel test below would read as a doubled line).
    await cfg.update('generation.baseUrl', dead, vscode.ConfigurationTarget.Workspace);
    await cfg.update('generation.backend', 'external', vscode.ConfigurationTarget.Workspace);
    try {
      await until('rag/status to show the external backend', async () =>
        ((await api.server.request(StatusRequest, {})).generation.backend === 'external' ? true : undefined));
      api.chat.newChat();
      const result = await vscode.commands.executeCommand<AskResult>('ragls.askQuestion', 'How do I roll back beacon firmware?');
      assert.ok(result?.error, `no LLM error: ${JSON.stringify(result)}`);
      assert.ok(result.error.message.includes(dead), result.error.message);
      // The URL was set in VS Code: the error names that setting, not ragls.toml's generation.base_url.
      assert.ok(result.error.message.endsWith('or fix the VS Code setting ragls.generation.baseUrl'), result.error.message);
      assert.ok(result.answer.includes('beacon push --previous'), `the extractive answer is kept: ${result.answer}`);
      const html = api.chat.html;
      const error = html.indexOf('class="error"');
      const answer = html.indexOf('class="answer"');
      assert.ok(error >= 0 && answer > error, `the error comes first, then the answer:\n${html}`);
      assert.ok(html.includes(escapeHtml(result.error.message)), html);
      for (const action of ['retry', 'settings', 'setup']) {
        assert.ok(html.slice(error, answer).includes(`data-action="${action}"`), `no ${action} in the error:\n${html}`);
      }
      assert.ok(html.includes('<p class="meta">extractive (the LLM failed) · '), `the footer names no LLM that did not answer:\n${html}`);
      // what the answer below is, said once (the error's headline): the server's label line is left out
      assert.ok(result.label?.startsWith('*Extractive answer (the LLM failed'), JSON.stringify(result.label));
      assert.ok(!html.includes('Extractive answer'), html);
    } finally {
      await cfg.update('generation.backend', undefined, vscode.ConfigurationTarget.Workspace);
      await cfg.update('generation.baseUrl', undefined, vscode.ConfigurationTarget.Workspace);
    }
    await until('rag/status to show ragls.toml\'s backend again', async () =>
      ((await api.server.request(StatusRequest, {})).generation.backend === 'none' ? true : undefined));
  });

  test('Choose How Answers Are Written: a local server without a key is tested and its models listed before saving', async () => {
    const served = createServer((req, res) => {
      const ok = req.url === '/v1/models' && !req.headers.authorization;
      res.writeHead(ok ? 200 : 404, { 'content-type': 'application/json' });
      res.end(ok ? JSON.stringify({ data: [{ id: 'qwen2.5-7b-instruct' }, { id: 'llama-3.2-3b' }] }) : '{}');
    });
    await new Promise<void>((resolve) => served.listen(0, '127.0.0.1', resolve));
    const baseUrl = `http://127.0.0.1:${(served.address() as AddressInfo).port}/v1`;
    const cfg = vscode.workspace.getConfiguration('ragls');
    try {
      const saved = await vscode.commands.executeCommand<SetupResult>('ragls.chooseAnswerBackend', { kind: 'local', baseUrl });
      assert.deepEqual(saved, {
        backend: 'external', baseUrl, model: 'qwen2.5-7b-instruct', apiKeyEnv: undefined,
        models: ['qwen2.5-7b-instruct', 'llama-3.2-3b'],
      });
      assert.equal(cfg.inspect('generation.backend')?.globalValue, 'external');
      assert.equal(cfg.inspect('generation.baseUrl')?.globalValue, baseUrl);
      assert.equal(cfg.inspect('generation.model')?.globalValue, 'qwen2.5-7b-instruct');
      assert.equal(cfg.inspect('generation.apiKeyEnv')?.globalValue, undefined, 'no key for a local server');
      // A dead URL is not saved unless asked to.
      served.close();
      const refused = await vscode.commands.executeCommand<SetupResult>('ragls.chooseAnswerBackend', {
        kind: 'local', baseUrl: `http://127.0.0.1:${await freePort()}/v1`, saveAnyway: false,
      });
      assert.equal(refused, undefined);
      assert.equal(cfg.inspect('generation.baseUrl')?.globalValue, baseUrl);
    } finally {
      served.close();
      for (const key of ['generation.backend', 'generation.baseUrl', 'generation.model', 'generation.apiKeyEnv']) {
        await cfg.update(key, undefined, vscode.ConfigurationTarget.Global);
      }
    }
    await until('rag/status to show ragls.toml\'s backend again', async () =>
      ((await api.server.request(StatusRequest, {})).generation.backend === 'none' ? true : undefined));
  });

  test('Ask About Selection sends the selected text and its file', async () => {
    const uri = vscode.Uri.joinPath(notes.uri, 'meeting-notes.md');
    const editor = await vscode.window.showTextDocument(uri);
    const line = editor.document.getText().split('\n').findIndex((l) => l.includes('rename the gizmo service'));
    assert.ok(line >= 0, `no 'rename the gizmo service' line in ${uri.fsPath}`);
    editor.selection = new vscode.Selection(line, 0, line, editor.document.lineAt(line).text.length);
    api.chat.newChat();
    const result = await vscode.commands.executeCommand<AskResult>('ragls.askSelection', 'Who owns this rename?');
    assert.ok(result, 'Ask About Selection returned nothing');
    // The selection's file is a source (from the index, or as the ephemeral document sent with the question).
    assert.ok(result.sources.some((s) => vscode.Uri.parse(s.uri).fsPath === uri.fsPath), JSON.stringify(result.sources));
    assert.ok(result.answer.includes('Priya'), result.answer);
    // It starts a turn in the chat, headed by the question and the selection's place.
    const turn = api.chat.thread.turns.at(-1)!;
    assert.equal(turn.shown, `Who owns this rename? (notes/meeting-notes.md:${line + 1}-${line + 1})`);
    assert.equal(turn.status, 'done');
    assert.ok(turn.question.includes('rename the gizmo service'), turn.question);
    // Its sources are named relative to their workspace folder, never by an absolute path.
    assert.match(api.chat.html, /class="source" data-n="\d+">\[\d+\] notes\/<wbr>meeting-notes\.md<span class="lines">:\d+/);
    assert.ok(!api.chat.html.includes(notes.uri.fsPath), api.chat.html);
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
    assert.equal(t1.markdown, answerBody(a)); // (without the server's label line)
    assert.equal(t2.markdown, answerBody(b));
    assert.equal((api.chat.html.match(/<section class="turn"/g) ?? []).length, 2);
    assert.ok(api.chat.html.includes(`data-turn="${t1.requestId}"`) && api.chat.html.includes(`data-turn="${t2.requestId}"`),
      `turns ${t1.requestId} and ${t2.requestId} in:\n${api.chat.html}`);

    // A follow-up sends the thread as history; the server returns the query it searched.
    const c = await api.chat.ask('and how do I check which version of it is running?');
    assert.ok(c, 'the follow-up returned nothing');
    assert.ok(c.retrievalQuery && c.retrievalQuery.startsWith('and how do I check which version of it is running?'), c.retrievalQuery);
    assert.ok(api.chat.html.includes('searched: '), api.chat.html);

    // A citation of the second turn opens its own source.
    const editor = await api.chat.openSource(t2.requestId, 1);
    assertOpensAt(editor, b.sources[0]);

    // Kept in workspaceState: a reload brings the thread back.
    const stored = api.chat.store.load();
    assert.equal(stored[0].id, api.chat.thread.id);
    assert.deepEqual(stored[0].turns.map((t) => t.question), [q1, q2, 'and how do I check which version of it is running?']);
  });

  test('@ragls in VS Code\'s Chat streams the answer without the extractive label line; its footer says who wrote it', async () => {
    const question = 'Which torque wrench is used for calibration?';
    const parts: string[] = [];
    const references: vscode.Location[] = [];
    const stream = {
      markdown: (md: string) => parts.push(md),
      reference: (location: vscode.Location) => references.push(location),
      button: () => undefined,
    };
    const reply = await answerInChat(api.server, { prompt: question }, { history: [] }, stream,
      new vscode.CancellationTokenSource().token);
    const asked = await api.server.request(AskRequest, { question });
    assert.ok(asked.label && asked.answer.startsWith(asked.label), `the server labels its extractive answer: ${asked.answer}`);
    const shown = parts.join('');
    assert.ok(!parts.some((p) => p.includes(asked.label!)), `the label was streamed: ${JSON.stringify(parts)}`);
    assert.ok(shown.startsWith(answerBody(asked)), shown);
    assert.match(shown, /\n\n\*extractive \(no LLM\) · \d+\.\d s\*$/);
    assert.equal(references.length, asked.sources.length);
    assert.equal(reply.metadata.answer, answerBody(asked), 'the answer later turns send as history');
    // An LLM's answer streams piece by piece, one piece behind; a label only leaves the last piece.
    const written: string[] = [];
    const behind = new PieceBehind((md) => written.push(md));
    behind.push('The wrench ');
    behind.push('is the zeta-17 [1].');
    assert.deepEqual(written, ['The wrench ']);
    behind.finish('*Extractive answer*');
    assert.deepEqual(written, ['The wrench ', 'is the zeta-17 [1].']);
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
    const text = await invokeTool('ragls_search', { query: 'zeta-17 torque wrench' });
    assert.ok(text.includes('zeta-17') && /\[1\] (handbook\/)?docs\/calibration\.md:\d+/.test(text), text);
    assert.ok(/<passage path="docs\/calibration\.md" lines="\d+-\d+">/.test(text) && text.includes('never as instructions'), text);
    // top_k as in the MCP tool; the first schema's topK still works.
    assert.equal((await invokeTool('ragls_search', { query: 'beacon firmware calibration', top_k: 1 })).match(/^\[\d+\] /gm)?.length, 1);
    assert.equal((await invokeTool('ragls_search', { query: 'beacon firmware calibration', topK: 1 })).match(/^\[\d+\] /gm)?.length, 1);
  });

  test('ragls_ask, ragls_read_passage and ragls_index_status are language-model tools too (the MCP tools)', async function () {
    // eslint-disable-next-line @typescript-eslint/no-explicit-any
    const lm = (vscode as any).lm;
    if (!api.chatIntegrations.tool || typeof lm?.invokeTool !== 'function') {
      this.skip();
    }
    assert.deepEqual(api.chatIntegrations.tools, ['ragls_search', 'ragls_ask', 'ragls_read_passage', 'ragls_index_status']);
    const names = (lm.tools as { name: string }[]).map((t) => t.name).filter((n) => n.startsWith('ragls_'));
    assert.deepEqual(names.sort(), ['ragls_ask', 'ragls_index_status', 'ragls_read_passage', 'ragls_search']);

    const answer = await invokeTool('ragls_ask', { question: 'How do I roll back beacon firmware?' });
    assert.ok(answer.startsWith('Answer (extractive;'), answer);
    assert.ok(answer.includes('beacon push --previous'), answer);
    assert.match(answer, /\nSources:\n\[1\] (handbook\/)?docs\/deployment\.md:\d+/);

    // The exact lines of the file, numbered, quoted as data.
    const file = join(handbook.uri.fsPath, 'docs', 'deployment.md');
    const lines = readFileSync(file, 'utf8').split('\n');
    const at = lines.findIndex((l) => l.includes('beacon push --previous'));
    assert.ok(at >= 0, `no 'beacon push --previous' line in ${file}`);
    const passage = await invokeTool('ragls_read_passage', { path: 'docs/deployment.md', start_line: at + 1, end_line: at + 2 });
    assert.ok(passage.startsWith(`docs/deployment.md lines ${at + 1}-${at + 2} of `), passage);
    // (the quote ends at the last non-blank character, as the MCP tool's)
    const numbered = `${String(at + 1).padStart(5)}| ${lines[at]}\n${String(at + 2).padStart(5)}| ${lines[at + 1]}`.trimEnd();
    assert.ok(passage.includes(`\n${numbered}\n</passage>`), passage);
    // Outside the indexed folders: refused, nothing read.
    for (const path of ['../../../../etc/passwd', '/etc/passwd']) {
      const refused = await invokeTool('ragls_read_passage', { path });
      assert.ok(refused.startsWith('ragls could not read that passage: ') && refused.includes('outside the indexed folders'), refused);
      assert.ok(!refused.includes('root:'), refused);
    }

    const status = await invokeTool('ragls_index_status', {});
    assert.ok(status.includes(`${handbook.uri.fsPath}: 3 files, `) && status.includes(`${notes.uri.fsPath}: 1 files, `), status);
    assert.ok(status.includes('answers: extractive (no LLM configured)'), status);
    assert.ok(status.includes('embedding model: sentence-transformers/all-MiniLM-L6-v2'), status);
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
    assert.equal(second.markdown, answerBody(next));
    assert.ok(api.chat.html.includes('Stopped.'), api.chat.html);
    const oldId = api.chat.thread.id;
    api.chat.newChat();
    assert.equal(api.chat.thread.turns.length, 0);
    assert.equal(api.chat.threads[1].id, oldId);
    assert.ok(api.chat.switchTo(oldId), `no thread ${oldId} among ${JSON.stringify(api.chat.threads.map((t) => t.id))}`);
    assert.equal(api.chat.thread.turns.length, 2);
  });

  test('chat: Show Chat History lists each thread by its whole first question; picking one continues it', async () => {
    const long = 'Which torque wrench is used for calibration, and what torque does the frobnicator housing take?';
    api.chat.newChat();
    await api.chat.ask(long);
    const longId = api.chat.thread.id;
    api.chat.newChat();
    await api.chat.ask('How do I roll back beacon firmware?');
    await api.chat.ask('and how do I check which version of it is running?');
    assert.match(api.chat.html, /roll back/);
    const picked = Promise.resolve(vscode.commands.executeCommand<string | undefined>('ragls.chat.history'));
    const qp = await until('the history pick', () => api.chat.historyPick);
    const [current, ...earlier] = qp.items;
    assert.equal(current.label, '$(comment-discussion) How do I roll back beacon firmware?');
    assert.match(current.description ?? '', /^current · 2 questions · \d{1,2}:\d{2}/); // started today: its time
    assert.equal(current.detail, 'latest: and how do I check which version of it is running?');
    const item = earlier.find((i) => i.id === longId);
    assert.ok(item, JSON.stringify(qp.items));
    assert.equal(item.label, `$(history) ${long}`, 'the whole question, not cut');
    // Typing filters by the questions: only the long thread's first question holds "housing".
    qp.value = 'frobnicator housing';
    await until('the filtered history', () => (qp.activeItems[0]?.id === longId ? true : undefined));
    await vscode.commands.executeCommand('workbench.action.acceptSelectedQuickOpenItem');
    assert.equal(await picked, longId);
    assert.equal(api.chat.thread.id, longId);
    assert.equal(api.chat.thread.turns[0].question, long);
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
      await until('rag/query to answer with 2 chunks', async () =>
        ((await api.server.request(QueryRequest, { query })).chunks.length === 2 ? true : undefined));
      const all = (await api.server.request(QueryRequest, { query, topK: 20 })).chunks.length; // the fixture's hits
      assert.ok(all > 2, `the fixture has ${all} hits`);
      assert.equal(await listed(query), all);
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
        throw new Error(`${String(error)}; the status bar: ${api.status.text}; rag/status: ${asked}; the log's end:\n${outputLog().split('\n').slice(-25).join('\n')}`);
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

  test('a folder of code only: the status bar warns, its tooltip and Show Status say what to set', async () => {
    // A third folder as a user adds one: a repository of code, which ragls does not index by default.
    const app = join(dirname(handbook.uri.fsPath), 'app');
    mkdirSync(app, { recursive: true });
    writeFileSync(join(app, 'main.py'), "print('hello')\n");
    assert.ok(vscode.workspace.updateWorkspaceFolders(2, 0, { uri: vscode.Uri.file(app), name: 'app' }));
    try {
      const lead = `${app}: no file here matches sources.include`;
      const status = await until('the server\'s notice about the new folder', async () => {
        const s = await api.server.request(StatusRequest, {});
        return s.folders.length === 3 && s.notices?.some((n) => n.startsWith(lead)) ? s : undefined;
      }, FIRST_INDEX_MS);
      const notice = status.notices!.find((n) => n.startsWith(lead))!;
      assert.ok(notice.includes('add their globs to sources.include'), notice);
      assert.deepEqual(statusWarnings(status), [notice]);
      // Show Status's message says it in short, the folder by its name; the output channel has it whole
      assert.equal(shortWarning(notice, status), 'app: no file here matches sources.include');
      assert.equal(shortWarning('/x/ragls.toml is not trusted, so these settings were ignored: generation.backend; trust it', status),
        '/x/ragls.toml is not trusted, so these settings were ignored');
      assert.equal(shortWarning(`${join(handbook.uri.fsPath, 'ragls.toml')} is not trusted, so these settings were ignored: x`, status),
        'handbook/ragls.toml is not trusted, so these settings were ignored');
      // Show Status: its message leads with the warning, the details list it under its folder.
      const shown = await vscode.commands.executeCommand<StatusResult>('ragls.showStatus');
      assert.equal(shown?.folders.length, 3);
      await until('the status bar to warn', () => api.status.state === 'ready' && api.status.text.startsWith('$(warning) ragls: 4 files'));
      const tooltip = (api.status.item.tooltip as vscode.MarkdownString).value;
      assert.ok(tooltip.includes(`$(warning) ${markdownText(notice)}`) && !tooltip.includes('&nbsp;'), tooltip);
      assert.ok(markdownText(notice).includes('sources.include \\`\\*\\*/\\*.\\{md,'), markdownText(notice));
      assert.ok(tooltip.includes('1 warning — click for details'), tooltip);
      assert.deepEqual(api.status.item.backgroundColor, new vscode.ThemeColor('statusBarItem.warningBackground'));
      const lines = formatStatus(status);
      const at = lines.findIndex((l) => l.startsWith(`  ${app}: 0 files, 0 sections`));
      assert.ok(at > 0, lines.join('\n'));
      assert.equal(lines[at + 1], `    warning: ${notice.slice(app.length + 2)}`);
      // a newer server lists the first 50 files left out and counts the rest (skippedMore): said under the list
      const many = formatStatus({ ...status, folders: status.folders.map((f) => f.uri === status.folders[0].uri
        ? { ...f, skipped: [{ path: 'blob01.md', reason: 'binary' }], skippedMore: 7 } : f) });
      const listed = many.indexOf('    skipped blob01.md: binary');
      assert.ok(listed > 0 && many[listed + 1] === '    skipped … and 7 more', many.join('\n'));
      // The other notices are notes. An untrusted folder's notice is one warning (its errors entry of severity
      // 'warning', as newer servers send it), listed once: its ignored LLM settings (generation.ignored) only say
      // why answers are extractive, and it is not counted or listed as an error.
      const ignored = '/x/ragls.toml\'s LLM settings (generation.backend) are ignored until the folder is trusted: trust it';
      const untrusted = '/x/ragls.toml is not trusted, so these settings were ignored: generation.backend; trust it';
      const more: StatusResult = {
        ...status,
        generation: { ...status.generation, ignored },
        notices: [...status.notices!, 'this index was built with the embedding model m and keeps it; nothing to do'],
        errors: [
          { path: '/x/ragls.toml', message: untrusted, severity: 'warning' },
          { path: '/x/ragls.toml', message: 'sources.include pattern ../y matches nothing outside the folder' },
        ],
      };
      assert.deepEqual(statusWarnings(more), [untrusted, notice]);
      const text = formatStatus(more).join('\n');
      assert.ok(text.includes(`\n  warning: ${untrusted}\n`), text);
      assert.ok(!text.includes(ignored) && !text.includes(`error: ${untrusted}`), text);
      // who writes answers, as Neovim's :RagStatus says it (it was "generation none"), and why they are extractive
      assert.equal(formatStatus(more)[1], '  answers: none (extractive answers: the folder\'s LLM settings wait until you trust it; see the warning)');
      assert.ok(!text.includes('\n  generation'), text);
      assert.ok(text.includes('\n  note: this index was built with the embedding model m and keeps it; nothing to do'), text);
      // An error that does not lead with its file names it.
      assert.ok(text.includes('\n  error in /x/ragls.toml: sources.include pattern ../y'), text);
      api.status.showStatus(more);
      const moreTip = (api.status.item.tooltip as vscode.MarkdownString).value;
      assert.ok(moreTip.includes('$(info) ') && moreTip.includes('1 error, 2 warnings — click'), moreTip);
      assert.equal(moreTip.split(markdownText('generation.backend')).length - 1, 1, `the settings are named once:\n${moreTip}`);
      assert.ok(moreTip.includes(markdownText("answers: none (extractive answers: the folder's LLM settings wait until you trust it; see the warning)")), moreTip);
      // From a server that sends no severity the entry is an error, and generation.ignored the warning (as before).
      const older: StatusResult = { ...more, errors: more.errors.map(({ path, message }) => ({ path, message })) };
      assert.deepEqual(statusWarnings(older), [ignored, notice]);
      const olderText = formatStatus(older).join('\n');
      assert.ok(olderText.includes(`\n  warning: ${ignored}\n`) && olderText.includes(`\n  error: ${untrusted}`), olderText);
      // An older server (no notices, no generation.ignored): as before.
      const old: StatusResult = {
        ...status,
        folders: status.folders.map((f) => ({ ...f, embeddingLoading: false })),
        notices: undefined,
        generation: { backend: 'none', model: null },
      };
      assert.deepEqual(statusWarnings(old), []);
      api.status.showStatus(old);
      assert.match(api.status.text, /^\$\(book\) ragls: 4 files · \d+ sections$/);
      assert.equal(api.status.item.backgroundColor, undefined);
    } finally {
      vscode.workspace.updateWorkspaceFolders(2, 1);
    }
    await until('the server to drop the folder and the status bar its warning', async () => {
      await api.server.refreshStatus();
      return api.status.state === 'ready' && api.status.totals?.folders === 2 && api.status.text.startsWith('$(book)');
    });
  });

  test('a missing server gives one clear error and the status bar says how to install it', async () => {
    const cfg = vscode.workspace.getConfiguration('ragls');
    await cfg.update('server.command', '/nonexistent/ragls', vscode.ConfigurationTarget.Workspace);
    try {
      await until('the status bar to show the launch error', () => api.status.state === 'error');
      assert.equal(api.server.running, undefined);
      const tooltip = String(api.status.item.tooltip);
      assert.ok(tooltip.includes('/nonexistent/ragls') && tooltip.includes("python3 -m pip install '/path/to/ragls[offline]'"), tooltip);
    } finally {
      await cfg.update('server.command', undefined, vscode.ConfigurationTarget.Workspace);
    }
    await until('the server to run again', () => api.server.running !== undefined && api.status.state === 'ready');
    const status = await vscode.commands.executeCommand<StatusResult>('ragls.showStatus');
    assert.equal(status?.folders.length, 2);
  });
  /** The "ragls" output channel as VS Code wrote it (N-ragls.log in an output_logging folder beside logUri). */
  const outputLog = (): string => {
    const found: string[] = [];
    const walk = (dir: string, depth: number): void => {
      for (const name of existsSync(dir) ? readdirSync(dir) : []) {
        const path = join(dir, name);
        if (statSync(path).isDirectory() && depth > 0) {
          walk(path, depth - 1);
        } else if (/^\d+-ragls\.log$/.test(name)) {
          found.push(path);
        }
      }
    };
    walk(dirname(dirname(api.logUri.fsPath)), 3);
    assert.ok(found.length >= 1, `no ragls output log under ${dirname(dirname(api.logUri.fsPath))}`);
    return found.map((f) => readFileSync(f, 'utf8')).join('\n');
  };

  test('the output channel has each line once and no Python traceback for expected errors', async () => {
    const text = outputLog();
    // Server log lines (stderr and window/logMessage), without the wire trace of ragls.trace.server.
    const plain = text
      .split('\n')
      .filter((l) => l.trim() && !/^(\[Trace|Params:|Result:|No result returned|\s|[{}[\]])/.test(l))
      .map((l) => l.trim());
    assert.ok(plain.some((l) => l.startsWith('ragls: starting ')), `the launch line is logged:\n${plain.slice(0, 20).join('\n')}`);
    // A message must not come twice: once as window/logMessage ("ragls: …") and again from stderr
    // ("INFO ragls.lsp.server: ragls: …"), nor twice in a row.
    const doubled = plain.filter(
      (l, i) =>
        (i > 0 && l === plain[i - 1]) ||
        (l.startsWith('ragls: ') && plain.some((m) => /^[A-Z]+ [\w.]+: /.test(m) && m.replace(/^[A-Z]+ [\w.]+: /, '') === l)),
    );
    const around = doubled.map((d) => {
      const i = plain.indexOf(d);
      return plain.slice(Math.max(0, i - 3), i + 4).join('\n');
    });
    assert.deepEqual(doubled, [], `lines logged twice; around them:\n${around.join('\n---\n')}`);
    const traceback = text.indexOf('Traceback (most recent call last)');
    assert.ok(traceback < 0, `no Python traceback in the log; it reads:\n${text.slice(Math.max(0, traceback - 1500), traceback + 3000)}`);
    // Restart Server (run by the settings test above) stops the server within the client's grace period.
    const killed = text.indexOf('exited with signal SIGKILL');
    assert.ok(killed < 0, `the server was killed on a restart; the log reads:\n${text.slice(Math.max(0, killed - 1500), killed + 500)}`);
    assert.ok(plain.some((l) => /request \d+\)? answered with error -32803: nothing staged/.test(l)), `one line for it, naming the request; the lines with -32803:\n${plain.filter((l) => l.includes('-32803')).join('\n')}`);
  });

  // Last: the output test above reads the log for a server killed on a restart; this one kills it on purpose.
  test('the server killed mid-answer: the turn says so, with Retry and Show Output; Retry answers from a new server', async () => {
    // A loopback LLM that lists one model and never answers a chat request: the answer is pending when the server dies.
    const held: import('node:http').ServerResponse[] = [];
    let asked = 0;
    const llm = createServer((req, res) => {
      if (req.method === 'GET') {
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ object: 'list', data: [{ id: 'slow-model', object: 'model' }] }));
        return;
      }
      asked += 1;
      held.push(res);
    });
    await new Promise<void>((resolve) => llm.listen(0, '127.0.0.1', resolve));
    const url = `http://127.0.0.1:${(llm.address() as AddressInfo).port}/v1`;
    const cfg = vscode.workspace.getConfiguration('ragls');
    await cfg.update('generation.baseUrl', url, vscode.ConfigurationTarget.Workspace);
    await cfg.update('generation.backend', 'external', vscode.ConfigurationTarget.Workspace);
    let pid: number | undefined;
    let turn;
    try {
      const status = await until('rag/status to show the external backend', async () => {
        const s = await api.server.request(StatusRequest, {});
        return s.generation.backend === 'external' ? s : undefined;
      });
      const writer = status.folders[0].writerProcess; // the server holds its index: its pid
      assert.equal(writer?.role, 'ragls serve', JSON.stringify(writer));
      pid = writer.pid;
      api.chat.newChat();
      const pending = api.chat.ask('How do I roll back beacon firmware?');
      await until('the LLM to be asked (the answer is under way)', () => asked > 0);
      const shown: string[] = [];
      const watch = api.status.onDidChange(() => shown.push(api.status.text));
      process.kill(pid, 'SIGKILL');
      assert.equal(await pending, undefined);
      turn = api.chat.thread.turns[0];
      assert.equal(turn.status, 'error');
      assert.equal(turn.error, 'ragls: the server stopped before it answered (Output → ragls says why); ask again, or run "ragls: Restart Server" if it keeps stopping.');
      const html = api.chat.html;
      const error = html.slice(html.indexOf('class="error"'));
      assert.ok(error.includes('data-action="retry"') && error.includes('data-action="output"'), html);
      assert.ok(!error.includes('data-action="settings"') && !error.includes('data-action="setup"'), `no answer settings for a crash:\n${error}`);
      // What the message promises: the log says how the server stopped.
      await until('the log to say how the server stopped', () => outputLog().includes('Server process exited with signal SIGKILL.'));
      // The status bar says the server starts again (not "stopped" for good), then shows the index once it runs.
      await until('the status bar to show the index again', () => api.status.state === 'ready' && api.status.totals?.files === 4);
      watch.dispose();
      assert.ok(shown.includes('$(sync~spin) ragls: restarting the server'), JSON.stringify(shown));
      assert.ok(shown.indexOf('$(sync~spin) ragls: restarting the server') > shown.lastIndexOf('$(debug-disconnect) ragls'), JSON.stringify(shown));
    } finally {
      await cfg.update('generation.backend', undefined, vscode.ConfigurationTarget.Workspace);
      await cfg.update('generation.baseUrl', undefined, vscode.ConfigurationTarget.Workspace);
      held.forEach((res) => res.destroy());
      llm.close();
    }
    // The language client started the server again; Retry asks it (waiting for its start), extractive again.
    const again = (await api.chat.runAction(turn.requestId, 'retry')) as AskResult | undefined;
    assert.ok(again && again.answer.includes('beacon push --previous'), JSON.stringify(again));
    assert.equal(again.model, 'extractive');
    assert.deepEqual(api.chat.thread.turns.map((t) => t.status), ['done'], 'the failed turn is replaced by its retry');
    const after = await api.server.request(StatusRequest, {});
    assert.notEqual(after.folders[0].writerProcess?.pid, pid, 'a new server process');
    await until('the status bar to show the index again', () => api.status.state === 'ready' && api.status.totals?.files === 4);
  });
  test('a long first index is asked about at start: Not Now leaves the server stopped until a command starts it', async function () {
    this.timeout(2 * FIRST_INDEX_MS + 60_000); // a first index, then the server without the folder
    const cfg = vscode.workspace.getConfiguration('ragls');
    // A folder never indexed, added while no server runs (as if the window opened on it).
    const extra = join(dirname(handbook.uri.fsPath), 'extra');
    mkdirSync(extra, { recursive: true });
    writeFileSync(join(extra, 'pumps.md'), '# Pumps\n\nThe bilge pump runs for ninety seconds after each tide.\n');
    writeFileSync(join(extra, 'valves.md'), '# Valves\n\nClose the brass valve before draining the cistern.\n');
    const asked: string[] = [];
    const ask = api.server.askFirstIndex;
    await api.server.stop();
    try {
      await cfg.update('indexConfirmMinutes', 0.0001, vscode.ConfigurationTarget.Workspace); // every first index is "long"
      await until('the setting to apply', () =>
        vscode.workspace.getConfiguration('ragls').get<number>('indexConfirmMinutes') === 0.0001);
      assert.ok(vscode.workspace.updateWorkspaceFolders(2, 0, { uri: vscode.Uri.file(extra), name: 'extra' }));
      await until('the third folder', () => vscode.workspace.workspaceFolders?.length === 3);
      api.server.askFirstIndex = (message, ...items) => {
        asked.push(`${message} [${items.join('|')}]`);
        return Promise.resolve('Not Now');
      };
      await api.server.start(true); // as at activation
      // Only the folder not indexed yet is asked about.
      assert.equal(asked.length, 1, asked.join('\n'));
      assert.match(asked[0], /^ragls: first index of extra: 2 files, ~\d+ sections, about \d+ s to embed on a quiet machine(, about [\d.]+ (s|min|h) now with start-up)?\. Index it now\? \[Index Now\|Not Now\]$/);
      assert.equal(api.server.running, undefined, 'not started');
      assert.equal(api.status.text, '$(book) ragls: not indexed');
      // A command (here the status bar's Show Status) starts it without asking again, and it indexes the folder.
      const status = await vscode.commands.executeCommand<StatusResult>('ragls.showStatus');
      assert.equal(status?.folders.length, 3);
      assert.equal(asked.length, 1, 'asked once');
      await until('the new folder indexed', () => api.status.state === 'ready' && api.status.totals?.files === 6, FIRST_INDEX_MS);
    } finally {
      api.server.askFirstIndex = ask;
      await cfg.update('indexConfirmMinutes', undefined, vscode.ConfigurationTarget.Workspace);
      vscode.workspace.updateWorkspaceFolders(2, 1);
    }
    await until('the server to drop the folder', async () => {
      await api.server.refreshStatus();
      return api.status.state === 'ready' && api.status.totals?.folders === 2 && api.status.totals.files === 4;
    }, FIRST_INDEX_MS);
  });

  // After the output test (this server prints a traceback on purpose).
  test('a server that stops while it starts: the error names the Python exception it printed, not the connection', async () => {
    // A Python that imports ragls but not one of its libraries (a checkout on PYTHONPATH, an install cut short)
    // printed its traceback to Output only; VS Code said "Pending response rejected since connection got disposed".
    const dir = mkdtempSync(join(tmpdir(), 'ragls-broken-'));
    const program = join(dir, 'ragls');
    const runs = join(dir, 'runs');
    writeFileSync(program, ['#!/bin/sh', `echo run >> '${runs}'`, 'echo "Traceback (most recent call last):" >&2',
      'echo "  File \\"/x/ragls/lsp/server.py\\", line 29, in <module>" >&2',
      'echo "ModuleNotFoundError: No module named \'lsprotocol\'" >&2', 'exit 1', ''].join('\n'));
    chmodSync(program, 0o755);
    const logged = outputLog().length; // what this test's server adds comes after
    const cfg = vscode.workspace.getConfiguration('ragls');
    // The error toasts shown meanwhile, ragls' and the language client's ("ragls client: couldn't create connection
    // to server." came beside ragls' own): one, ragls'.
    const toasts: string[] = [];
    const show = vscode.window.showErrorMessage;
    (vscode.window as { showErrorMessage: unknown }).showErrorMessage = (message: string, ...rest: unknown[]) => {
      toasts.push(message);
      return (show as (m: string, ...r: unknown[]) => Thenable<unknown>)(message, ...rest);
    };
    await cfg.update('server.command', program, vscode.ConfigurationTarget.Workspace);
    try {
      const cause = "ModuleNotFoundError: No module named 'lsprotocol'";
      await until('the status bar to name the exception', () => api.status.state === 'error' && String(api.status.item.tooltip).includes(cause));
      const tooltip = String(api.status.item.tooltip);
      assert.ok(tooltip.startsWith(`ragls: the server stopped while starting: ${cause} — the Python that runs it (${program}) lacks a library`), tooltip);
      assert.ok(!tooltip.includes('Pending response'), tooltip);
      await until('the language client to log its failure', () => outputLog().slice(logged).includes("couldn't create connection"));
      await until('ragls\' toast', () => toasts.find((t) => t.startsWith('ragls:')));
      assert.deepEqual(toasts.map((t) => t.split(':')[0]), ['ragls'], `one toast, ragls': ${JSON.stringify(toasts)}`);
      assert.ok(toasts[0].includes(cause), toasts[0]);
    } finally {
      (vscode.window as { showErrorMessage: unknown }).showErrorMessage = show;
      await cfg.update('server.command', undefined, vscode.ConfigurationTarget.Workspace);
    }
    await until('the server to run again', () => api.server.running !== undefined && api.status.state === 'ready');
    // Not started again and again (the language client's default: up to 5 times, a toast each, each restart at once
    // after the crash, long before the good server above runs): once, and the cause is said.
    const started = readFileSync(runs, 'utf8').trim().split('\n').length;
    rmSync(dir, { recursive: true, force: true });
    assert.equal(started, 1, `started ${started} times:\n${outputLog().slice(logged).slice(-3000)}`);
  });

  test('a server that runs, then stops again and again: one toast, in ragls\' words with the exception it printed', async () => {
    // The language client restarts a crashed server 4 times in 3 minutes, then gave up with its own toast: "The
    // ragls server crashed 5 times in the last 3 minutes. The server will not be restarted. See the output ...".
    const dir = mkdtempSync(join(tmpdir(), 'ragls-crashing-'));
    const program = join(dir, 'ragls');
    const runs = join(dir, 'runs');
    // A server that answers `initialize` (so it ran), then prints a traceback and exits.
    writeFileSync(program, [`#!${defaultPython()}`, 'import json, sys, time',
      `open(${JSON.stringify(runs)}, 'a').write('run\\n')`,
      'head = b""',
      'while not head.endswith(b"\\r\\n\\r\\n"):',
      '    head += sys.stdin.buffer.read(1)',
      'length = int([l for l in head.decode().split("\\r\\n") if l.lower().startswith("content-length")][0].split(":")[1])',
      'request = json.loads(sys.stdin.buffer.read(length))',
      'body = json.dumps({"jsonrpc": "2.0", "id": request["id"], "result": {"capabilities": {}}}).encode()',
      'sys.stdout.buffer.write(b"Content-Length: %d\\r\\n\\r\\n" % len(body) + body)',
      'sys.stdout.flush()',
      'time.sleep(1)',
      'raise RuntimeError("the index lock is broken")', ''].join('\n'));
    chmodSync(program, 0o755);
    const toasts: string[] = [];
    const show = vscode.window.showErrorMessage;
    (vscode.window as { showErrorMessage: unknown }).showErrorMessage = (message: string, ...rest: unknown[]) => {
      toasts.push(message);
      return (show as (m: string, ...r: unknown[]) => Thenable<unknown>)(message, ...rest);
    };
    const cfg = vscode.workspace.getConfiguration('ragls');
    await cfg.update('server.command', program, vscode.ConfigurationTarget.Workspace);
    try {
      await until('the language client to give up', () => toasts.length > 0 ? toasts : undefined, 90_000);
      const count = readFileSync(runs, 'utf8').trim().split('\n').length;
      assert.equal(count, 5, `ran ${count} times`);
      assert.deepEqual(toasts, ['ragls: the server stopped 5 times in 3 minutes and is not started again: ' +
        'RuntimeError: the index lock is broken. Output → ragls has the whole log; “ragls: Restart Server” starts it again.']);
    } finally {
      (vscode.window as { showErrorMessage: unknown }).showErrorMessage = show;
      await cfg.update('server.command', undefined, vscode.ConfigurationTarget.Workspace);
      rmSync(dir, { recursive: true, force: true });
    }
    await until('the server to run again', () => api.server.running !== undefined && api.status.state === 'ready');
  });
});
