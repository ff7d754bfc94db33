/**
 * In-editor tests, Ask, the chat view, @ragls and the language-model tools (how they run, and the suite they share:
 * ./helpers.ts).
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import * as vscode from 'vscode';
import { highlightedRanges } from '../../decorations';
import { chatViewIsServed, type SetupResult } from '../../walkthrough';
import { ThreadStore } from '../../chat/thread';
import { ChatView, PARTIAL_INDEX_NOTE } from '../../chat/view';
import { turnHtml } from '../../chat/turnHtml';
import { answerInChat, PieceBehind } from '../../chat/participant';
import { escapeHtml } from '../../webview';
import { answerBody, createRenderer } from '../../answer';
import { AskRequest, AskResult, StatusRequest } from '../../protocol';
import { freePort, until, invokeTool, assertOpensAt, editorSuite, api, handbook, notes } from './helpers';

editorSuite(() => {
  test('a code block\'s long tokens may break between their parts in the narrow chat view, never inside a name', () => {
    // Flask's docs: "parent.register_blueprint(c" / "hild)" broke wherever the side bar's line ended.
    const code = "app.register_blueprint(simple_page, url_prefix='/pages')\nx = round(1.5)\nf()\n"
      + 'app.config.from_file("config.json", load=json.load)\nx = parent.register_blueprint(round(1.5))\n';
    const html = createRenderer()('```python\n' + code + '```\n', new Set());
    const body = /<code[^>]*>([\s\S]*)<\/code>/.exec(html)?.[1] ?? '';
    // (only in a word longer than NOWRAP_CODE_WORD: a shorter one fits a line and goes to the next whole; with breaks
    // in "url_prefix='/pages')" and "load=json.load)" the view filled its line up to "url_prefix=" / "json.")
    assert.equal(body.split('\n')[0], "app.<wbr>register_blueprint(<wbr>simple_page, url_prefix='/pages')");
    assert.equal(body.split('\n')[3], 'app.<wbr>config.<wbr>from_file(<wbr>&quot;config.<wbr>json&quot;, load=json.load)');
    // not inside a number, nor in "()"; the text read and copied is the code's
    assert.equal(body.split('\n')[1], 'x = round(1.5)');
    assert.equal(body.split('\n')[4], 'x = parent.<wbr>register_blueprint(<wbr>round(<wbr>1.5))');
    assert.equal(body.split('\n')[2], 'f()');
    assert.equal(body.replace(/<wbr>/g, ''), code.replace(/"/g, '&quot;'));
    // A citation keeps to the word before it (a no-break space: "[1]." had a line of its own in the side bar); one
    // after inline code too; the text itself unchanged
    const cited = createRenderer()('Load them with `from_prefixed_env` [1]. Or a file [2] [3].', new Set([1, 2, 3]));
    assert.ok(cited.includes('</code>\u00a0<a href="#" class="cite" data-n="1"'), cited);
    assert.ok(cited.includes('a file\u00a0<a href="#" class="cite" data-n="2"'), cited);
    assert.ok(cited.includes('</a>\u00a0<a href="#" class="cite" data-n="3"'), cited);
    // A source quoted at places far apart: each range of lines whole, a break allowed between them (kept whole, they
    // went under "[1]" and the path, each on a line of its own)
    const uri = vscode.Uri.joinPath(handbook.uri, 'docs', 'calibration.md').toString();
    const range = (a: number, b: number) => ({ start: { line: a, character: 0 }, end: { line: b, character: 0 } });
    const result = { answer: 'Use it [1].', sources: [{ n: 1, uri, path: 'docs/calibration.md', range: range(0, 20),
      focusRanges: [range(3, 6), range(10, 12), range(16, 19)] }], citations: [{ n: 1 }], elapsedMs: 5 } as unknown as AskResult;
    const turn = turnHtml({ requestId: 1, question: 'q', shown: 'q', markdown: 'Use it [1].', streamed: '', status: 'done', result },
      { render: createRenderer(), titles: undefined, modelLoading: () => false, serverStep: () => undefined });
    // (the file name and its first range one block, going to the next line together: uiAsk checks the layout)
    assert.ok(turn.includes('<span class="file">calibration.md<span class="lines">:4-6,</span></span> <span class="lines">11-12,</span> '
      + '<span class="lines">17-19</span></a>'), turn);
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
    // (the path may wrap after a "/", the file name and its lines stay on one line: uiAsk checks the layout)
    assert.match(html, /<a href="#" class="source" data-n="1">\[1\] handbook\/<wbr>docs\/<wbr><span class="file">deployment\.md<span class="lines">:\d+(-\d+)?<\/span><\/span><\/a>/);
    // The label is the cited lines (focusRange, as the CLI prints them and opening goes there), not the chunk's range.
    assert.ok(source.focusRange, `an extractive source has focus lines: ${JSON.stringify(source)}`);
    const f = source.focusRange;
    const last = f.end.character === 0 && f.end.line > f.start.line ? f.end.line : f.end.line + 1;
    const lines = last === f.start.line + 1 ? `${last}` : `${f.start.line + 1}-${last}`;
    assert.ok(html.includes(`data-n="1">[1] handbook/<wbr>docs/<wbr><span class="file">deployment.md<span class="lines">:${lines}</span></span></a>`),
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
    // The whole line as Shift+Down or Ctrl+L selects it: up to the start of the next line, which holds nothing of it
    editor.selection = new vscode.Selection(line, 0, line + 1, 0);
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
    assert.ok(turn.question.includes(`Selected text (notes/meeting-notes.md:${line + 1}-${line + 1}):`), turn.question);
    // Its sources are named relative to their workspace folder, never by an absolute path.
    assert.match(api.chat.html, /class="source" data-n="\d+">\[\d+\] notes\/<wbr><span class="file">meeting-notes\.md<span class="lines">:\d+/);
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
    // the words it took from the earlier question shown apart, not appended to it ("... running? ragls server")
    assert.ok(c.retrievalContext && c.retrievalQuery.endsWith(c.retrievalContext), `${c.retrievalQuery} / ${c.retrievalContext}`);
    assert.ok(api.chat.html.includes(`<p class="meta">searched with words from earlier: ${c.retrievalContext}</p>`), api.chat.html);
    assert.ok(!api.chat.html.includes('searched: '), api.chat.html);

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
});
