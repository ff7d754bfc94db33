/**
 * Fast layer: the real ragls server over stdio, spoken to with vscode-jsonrpc (the library under
 * vscode-languageclient), on a temporary copy of testFixture/. No VS Code needed. Run with
 * `npm run test:wire` (node's test runner). The server command is $RAGLS_TEST_SERVER_CMD (JSON array), else
 * `<python> -m ragls serve` with the Python from fixture.ts's defaultPython().
 */
import assert from 'node:assert/strict';
import { ChildProcess, spawn, spawnSync } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import {
  createMessageConnection,
  MessageConnection,
  ResponseError,
  StreamMessageReader,
  StreamMessageWriter,
} from 'vscode-jsonrpc/node';
import { estimateArgs, firstIndexQuestion, humanDuration, longFirstIndexes, runEstimate } from '../firstIndex';
import { INSTALL_HINT, resolveLaunch } from '../launch';
import { messageShow } from '../serverMessage';
import { pythonError, startFailureMessage } from '../startFailure';
import type { AskResult, QueryResult, StatusResult } from '../protocol';
import { defaultPython, fileUri, makeWorkspace, Workspace } from './fixture';

// The first index (the server's start and model load, then both folders): 30-50 s on 2 cores under the suite's load;
// the waits return as soon as the state is reached.
const DEADLINE_MS = 240_000;

interface ProgressValue {
  kind?: string;
  title?: string;
  message?: string;
  delta?: string;
}

/** Lines of `text` covered by an LSP range, end exclusive at character 0. */
function linesOf(text: string, start: number, end: number): string {
  return text.split('\n').slice(start, end + 1).join('\n');
}

async function until<T>(what: string, probe: () => Promise<T | undefined>): Promise<T> {
  const deadline = Date.now() + DEADLINE_MS;
  for (;;) {
    const value = await probe();
    if (value !== undefined) {
      return value;
    }
    if (Date.now() > deadline) {
      throw new Error(`timed out waiting for ${what}`);
    }
    await new Promise((r) => setTimeout(r, 250));
  }
}

describe('ragls server over vscode-jsonrpc', () => {
  let tmp: string;
  let ws: Workspace;
  let proc: ChildProcess;
  let conn: MessageConnection;
  let stderr = '';
  const progress: { token: string | number; value: ProgressValue }[] = [];

  before(async () => {
    tmp = mkdtempSync(join(tmpdir(), 'ragls-wire-'));
    ws = makeWorkspace(join(tmp, 'ws'));
    const cache = join(tmp, 'cache');
    mkdirSync(cache);
    const cmd: string[] = process.env.RAGLS_TEST_SERVER_CMD
      ? JSON.parse(process.env.RAGLS_TEST_SERVER_CMD)
      : [ws.python, '-m', 'ragls', 'serve'];
    const env = { ...process.env, XDG_CACHE_HOME: cache, OPENAI_API_KEY: '', ANTHROPIC_API_KEY: '' };
    proc = spawn(cmd[0], cmd.slice(1), { cwd: ws.root, env, stdio: ['pipe', 'pipe', 'pipe'] });
    proc.stderr!.on('data', (d) => (stderr += String(d)));
    conn = createMessageConnection(new StreamMessageReader(proc.stdout!), new StreamMessageWriter(proc.stdin!));
    conn.onRequest('window/workDoneProgress/create', () => null);
    conn.onRequest('client/registerCapability', () => null);
    conn.onRequest('workspace/configuration', (params: { items: unknown[] }) => params.items.map(() => null));
    conn.onNotification(() => undefined);
    conn.onUnhandledProgress((p) => progress.push({ token: p.token, value: p.value as ProgressValue }));
    conn.listen();
    const init = await conn.sendRequest<{ capabilities: { executeCommandProvider?: { commands: string[] } } }>(
      'initialize',
      {
        processId: process.pid,
        rootUri: fileUri(ws.handbook),
        workspaceFolders: [
          { uri: fileUri(ws.handbook), name: 'handbook' },
          { uri: fileUri(ws.notes), name: 'notes' },
        ],
        capabilities: {
          window: { workDoneProgress: true },
          workspace: { workspaceFolders: true, configuration: true },
        },
        initializationOptions: {},
      },
    );
    assert.ok(init.capabilities.executeCommandProvider?.commands.includes('ragls.ask'));
    await conn.sendNotification('initialized', {});
  });

  after(async () => {
    try {
      await Promise.race([conn.sendRequest('shutdown'), new Promise((r) => setTimeout(r, 10_000))]);
      await conn.sendNotification('exit');
    } catch {
      // the server may already be gone
    }
    conn?.dispose();
    if (proc && proc.exitCode === null) {
      await Promise.race([new Promise((r) => proc.once('exit', r)), new Promise((r) => setTimeout(r, 5_000))]);
      proc.kill('SIGKILL');
    }
    rmSync(tmp, { recursive: true, force: true });
  });

  test('indexes both folders and reports it in rag/status', async () => {
    const status = await until('both folders indexed', async () => {
      const s = await conn.sendRequest<StatusResult>('rag/status', {});
      const done = s.folders.length === 2 && s.folders.every((f) => f.files > 0 && f.pending === 0 && f.pendingVectors === 0);
      return done ? s : undefined;
    });
    const byUri = new Map(status.folders.map((f) => [f.uri, f]));
    assert.equal(byUri.get(fileUri(ws.handbook))?.files, 3, stderr);
    assert.equal(byUri.get(fileUri(ws.notes))?.files, 1);
    for (const f of status.folders) {
      assert.ok(f.chunks >= f.files, `${f.uri}: ${f.chunks} chunks for ${f.files} files`);
    }
    assert.equal(status.generation.backend, 'none');
    assert.match(status.embeddingModel, /MiniLM/i);
    const began = progress.filter((p) => p.value.kind === 'begin' && p.value.title === 'ragls: indexing');
    assert.ok(began.length >= 1, `no "ragls: indexing" progress: ${JSON.stringify(progress)}`);
    // rag/status counts the last vectors as soon as they are written; the indexer ends its work-done progress
    // when it finds no more work (after a compaction, say), a moment later: wait for that event, not a time.
    await until('the indexing progress to end', async () =>
      (progress.some((p) => p.token === began[0].token && p.value.kind === 'end') ? true : undefined));
  });

  test('rag/query finds the calibration section with the exact line range', async () => {
    const result = await conn.sendRequest<QueryResult>('rag/query', { query: 'which torque wrench calibrates the frobnicator' });
    assert.equal(result.abstained, false);
    const top = result.chunks[0];
    assert.equal(top.source.path, 'docs/calibration.md');
    assert.equal(top.source.uri, fileUri(join(ws.handbook, 'docs', 'calibration.md')));
    const file = readFileSync(join(ws.handbook, 'docs', 'calibration.md'), 'utf8');
    const covered = linesOf(file, top.source.range.start.line, top.source.range.end.line);
    assert.ok(covered.includes('zeta-17'), `range ${JSON.stringify(top.source.range)} covers:\n${covered}`);
    assert.ok(top.text.includes('zeta-17'));
    // preview: the focus lines as one line of text (newer servers), what the Search Docs list shows under the item
    assert.equal(typeof top.preview, 'string');
    assert.ok(top.preview?.includes('zeta-17 torque wrench'), top.preview);
    const scores = result.chunks.map((c) => c.score);
    assert.deepEqual([...scores].sort((a, b) => b - a), scores, 'chunks are not sorted by score');
    // relevance: each score's share of the first's (what the clients show), 1 for the first.
    assert.equal(result.chunks[0].relevance, 1);
    for (const c of result.chunks) {
      assert.ok(Math.abs((c.relevance ?? -1) - c.score / scores[0]) < 0.002, `relevance ${c.relevance}, score ${c.score}`);
    }
  });

  test('rag/ask streams deltas for its partialResultToken and cites the source', async () => {
    const token = 'ask-1';
    const result = await conn.sendRequest<AskResult>('rag/ask', {
      question: 'How do I roll back beacon firmware?',
      partialResultToken: token,
    });
    assert.equal(result.abstained, false);
    assert.ok(result.answer.includes('beacon push --previous'), result.answer);
    const first = result.sources[0];
    assert.equal(first.n, 1);
    assert.equal(first.path, 'docs/deployment.md');
    assert.ok(result.answer.includes('[1]'), result.answer);
    const deltas = progress.filter((p) => p.token === token).map((p) => p.value.delta ?? '');
    assert.ok(deltas.length >= 1, 'no $/progress deltas for the partialResultToken');
    assert.ok(deltas.join('').includes('beacon push --previous'), deltas.join(''));
  });

  test('rag/ask with the selection file as an ephemeral document', async () => {
    const result = await conn.sendRequest<AskResult>('rag/ask', {
      question: 'Who owns the rename?\n\nSelected text (meeting-notes.md:5-6):\n```\nThe team agreed to rename the gizmo service to Quasar.\n```',
      documents: [join(ws.notes, 'meeting-notes.md')],
    });
    assert.ok(result.sources.some((s) => s.path.endsWith('meeting-notes.md')), JSON.stringify(result.sources));
    assert.ok(result.answer.includes('Priya'), result.answer);
  });

  test('an empty question is InvalidParams and the server keeps answering', async () => {
    await assert.rejects(conn.sendRequest('rag/ask', { question: '' }), (error: unknown) => {
      assert.ok(error instanceof ResponseError);
      assert.equal(error.code, -32602);
      assert.match(error.message, /question/);
      return true;
    });
    const status = await conn.sendRequest<StatusResult>('rag/status', {});
    assert.equal(status.folders.length, 2);
  });
});

describe('server launch resolution (launch.ts)', () => {
  const storage = mkdtempSync(join(tmpdir(), 'ragls-storage-')); // the extension's global storage
  after(() => rmSync(storage, { recursive: true, force: true }));

  test('uses ragls.server.command when it is executable', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'ragls-launch-'));
    const prog = join(dir, 'my-ragls');
    writeFileSync(prog, '#!/bin/sh\n');
    chmodSync(prog, 0o755);
    const launch = await resolveLaunch({ command: prog, args: ['serve', '--x'], pythonPath: '' }, { PATH: '' }, storage);
    assert.deepEqual(launch, { ok: true, command: prog, args: ['serve', '--x'], how: 'ragls.server.command', cwd: storage });
    rmSync(dir, { recursive: true, force: true });
  });

  test('prefers `ragls` on PATH, else python -m ragls', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'ragls-launch-'));
    const onPath = await resolveLaunch({ command: '', args: [], pythonPath: '' }, { PATH: dir }, storage);
    assert.equal(onPath.ok, false);
    writeFileSync(join(dir, 'ragls'), '#!/bin/sh\n');
    chmodSync(join(dir, 'ragls'), 0o755);
    const found = await resolveLaunch({ command: '', args: [], pythonPath: '' }, { PATH: dir }, storage);
    assert.deepEqual(found, { ok: true, command: join(dir, 'ragls'), args: ['serve'], how: '`ragls` on PATH', cwd: storage });
    const python = defaultPython();
    const viaPython = await resolveLaunch({ command: '', args: ['serve'], pythonPath: python }, { PATH: '/nonexistent' }, storage);
    assert.equal(viaPython.ok, true);
    const safePath = spawnSync(python, ['-c', 'import sys; print(int(sys.version_info >= (3, 11)))'], { encoding: 'utf8' }).stdout.trim() === '1';
    assert.deepEqual(viaPython.ok && viaPython.args, [...(safePath ? ['-P'] : []), '-m', 'ragls', 'serve']);
    assert.equal(viaPython.ok && viaPython.cwd, storage);
    rmSync(dir, { recursive: true, force: true });
  });

  test('a missing server gives one message with how to install it', async () => {
    const missingCmd = await resolveLaunch({ command: '/nonexistent/ragls', args: [], pythonPath: '' }, { PATH: '' }, storage);
    assert.equal(missingCmd.ok, false);
    assert.ok(!missingCmd.ok && missingCmd.message.includes('/nonexistent/ragls') && missingCmd.message.includes(INSTALL_HINT));
    const noModule = await resolveLaunch({ command: '', args: [], pythonPath: '/usr/bin/python3' }, { PATH: '/nonexistent' }, storage);
    assert.equal(noModule.ok, false);
    assert.ok(!noModule.ok && /No module named .?ragls/.test(noModule.message), !noModule.ok ? noModule.message : '');
    assert.ok(!noModule.ok && noModule.message.includes("python3 -m pip install '/path/to/ragls[offline]'"));
  });

  test("a workspace folder's own `ragls/` package never runs: the launch starts in the storage dir", async () => {
    // A folder is untrusted input (also in restricted mode): `python -m ragls` (and the `-c 'import ragls'` check)
    // import from the working directory first, and the language client starts a server in the workspace folder
    // unless told otherwise — with a `ragls/` package planted at the folder's root, that package ran.
    const dir = mkdtempSync(join(tmpdir(), 'ragls-planted-'));
    const folder = join(dir, 'cloned');
    const marker = join(dir, 'planted-ran');
    mkdirSync(join(folder, 'ragls'), { recursive: true });
    const plant = `open(${JSON.stringify(marker)}, 'a').write('ran')\n`;
    writeFileSync(join(folder, 'ragls', '__init__.py'), plant);
    writeFileSync(join(folder, 'ragls', '__main__.py'), plant);
    const python = defaultPython();
    const here = process.cwd();
    process.chdir(folder); // the extension host's own directory may be the folder too
    try {
      const env = { ...process.env, PATH: '/nonexistent' };
      const launch = await resolveLaunch({ command: '', args: ['serve'], pythonPath: python }, env, storage);
      assert.ok(launch.ok, !launch.ok ? launch.message : '');
      assert.equal(existsSync(marker), false, "the planted package ran: resolveLaunch's import check");
      assert.equal(launch.cwd, storage);
      // As server.ts starts it (ServerOptions.options.cwd = launch.cwd), with `--version` for `serve`.
      const run = spawnSync(launch.command, [...launch.args.slice(0, -1), '--version'], { env, cwd: launch.cwd, encoding: 'utf8' });
      assert.equal(run.status, 0, run.stderr);
      assert.match(run.stdout, /ragls/);
      assert.equal(existsSync(marker), false, 'the planted package ran: the server start');
    } finally {
      process.chdir(here);
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('why the server stopped while it started (startFailure.ts)', () => {
  test("the Python exception a real interpreter printed is the message's cause, with what to do for an import", () => {
    const python = defaultPython();
    // A Python that runs `-m ragls` but lacks one of its libraries: the server's stderr, as the output channel has it.
    const run = spawnSync(python, ['-c', 'import json\nimport ragls_missing_library_x'], { encoding: 'utf8' });
    const log = `ragls: starting ${python} -m ragls serve (python3 -m ragls)\n${run.stderr}[Info  - 5:34:05 AM] Connection to server got closed. Server will restart.\n`;
    const error = pythonError(log);
    assert.equal(error, "ModuleNotFoundError: No module named 'ragls_missing_library_x'", log);
    const message = startFailureMessage(error, python);
    assert.ok(message.startsWith(`ragls: the server stopped while starting: ${error} — the Python that runs it (${python}) lacks a library`), message);
    assert.ok(message.includes('ragls.server.pythonPath'), message);
    // Another exception is said as it is; no traceback, no cause.
    const other = spawnSync(python, ['-c', 'raise ValueError("bad port")'], { encoding: 'utf8' });
    assert.equal(startFailureMessage(pythonError(other.stderr)!, python),
      'ragls: the server stopped while starting: ValueError: bad port. Output → ragls has the whole log.');
    assert.equal(pythonError('[Error - 5:34:05 AM] Server process exited with code 1.\n'), undefined);
  });
});

describe("the server's window/showMessage (serverMessage.ts)", () => {
  test('errors, warnings and information pop up; Log and Debug messages go to the Output channel only', () => {
    // LSP MessageType: 1 Error, 2 Warning, 3 Info, 4 Log, 5 Debug (3.18)
    assert.deepEqual([1, 2, 3, 4, 5, 6].map(messageShow), ['error', 'warning', 'information', 'output', 'output', 'output']);
  });
});

describe('the question before a long first index (firstIndex.ts)', () => {
  test('asks the real `ragls estimate` from the server launch; a folder over the limit is asked about, once', async () => {
    const python = defaultPython();
    const dir = mkdtempSync(join(tmpdir(), 'ragls-estimate-'));
    const launch = await resolveLaunch({ command: '', args: ['serve'], pythonPath: python }, { ...process.env, PATH: '/nonexistent' }, dir);
    assert.ok(launch.ok, !launch.ok ? launch.message : '');
    const folder = join(dir, 'docs');
    mkdirSync(folder);
    for (let i = 0; i < 3; i++) {
      writeFileSync(join(folder, `page${i}.md`), `# Page ${i}\n\n${'Beacons blink in fog. '.repeat(80)}\n`);
    }
    const env = { ...process.env, RAGLS_CACHE_DIR: join(dir, 'cache'), RAGLS_OFFLINE: '1' };
    const args = estimateArgs(launch.args, folder, { retrieval: { topK: 3 } });
    assert.deepEqual(args, [...launch.args.slice(0, -1), 'estimate', '--json', '--settings', '{"retrieval":{"topK":3}}', folder]);
    assert.deepEqual(launch.args.slice(-3), ['-m', 'ragls', 'serve']);
    const est = await runEstimate(launch.command, args!, env, launch.cwd);
    assert.ok(est, 'no estimate');
    assert.equal(est.folder, folder);
    assert.equal(est.files, 3);
    assert.equal(est.indexed, false);
    assert.ok(est.chunks >= 3 && est.seconds > 0, JSON.stringify(est));
    // Over a limit below its seconds it is asked about; under the default 10 minutes (or indexed) it is not.
    assert.deepEqual(longFirstIndexes([est, undefined], est.seconds / 120), [est]);
    assert.deepEqual(longFirstIndexes([est], 10), []);
    assert.deepEqual(longFirstIndexes([{ ...est, indexed: true }], 0.0001), []);
    const question = firstIndexQuestion([{ ...est, seconds: 840, wallSeconds: 1500 }], () => 'docs');
    assert.equal(question, `ragls: first index of docs: 3 files, ~${est.chunks} sections, about 14 min to embed on a quiet machine, about 25 min now with start-up. Index it now?`);
    assert.deepEqual([humanDuration(40.4), humanDuration(89), humanDuration(840), humanDuration(5400)], ['about 40 s', 'about 89 s', 'about 14 min', 'about 1.5 h']);
    // A launcher without `serve` (unknown): no estimate, no question; an older server without `estimate`: none.
    assert.equal(estimateArgs(['--stdio'], folder, {}), undefined);
    assert.equal(await runEstimate(launch.command, ['-m', 'ragls', 'no-such-command', folder], env, launch.cwd), undefined);
    rmSync(dir, { recursive: true, force: true });
  });
});
