/**
 * In-editor tests, the server's start, failures and output (how they run, and the suite they share: ./helpers.ts).
 */
import assert from 'node:assert/strict';
import {
  chmodSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { dirname, join } from 'node:path';
import * as vscode from 'vscode';
import { formatStatus, shortWarning } from '../../commands';
import { markdownText, statusWarnings } from '../../status';
import { defaultPython } from '../fixture';
import { AskResult, StatusRequest, StatusResult } from '../../protocol';
import { FIRST_INDEX_MS, until, outputLog, editorSuite, api, handbook } from './helpers';

editorSuite(() => {
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
      assert.equal(status.noticeLevels?.[status.notices!.indexOf(notice)], 'warning'); // docs/protocol.md noticeLevels
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
      // A folder's notice of level 'info' (its pages that autodoc fills from docstrings: flask's docs) is a note
      // under the folder: the status bar item stays plain (it was yellow); from an older server it is a warning.
      const autodoc = `${app}: 2 pages (api/web.rst, api/app.md) document Python APIs with autodoc directives`;
      const info: StatusResult = { ...old, notices: [autodoc], noticeLevels: ['info'] };
      assert.deepEqual(statusWarnings(info), []);
      assert.ok(formatStatus(info).includes(`    note: ${autodoc.slice(app.length + 2)}`), formatStatus(info).join('\n'));
      api.status.showStatus(info);
      assert.match(api.status.text, /^\$\(book\) ragls: /);
      assert.equal(api.status.item.backgroundColor, undefined);
      const infoTip = (api.status.item.tooltip as vscode.MarkdownString).value;
      assert.ok(infoTip.includes(`$(info) ${markdownText(autodoc)}`) && !infoTip.includes('warning'), infoTip);
      assert.deepEqual(statusWarnings({ ...info, noticeLevels: undefined }), [autodoc]);
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

  test('the output channel has each line once and no Python traceback for expected errors', async () => {
    const text = outputLog(api);
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
      await until('the log to say how the server stopped', () => outputLog(api).includes('Server process exited with signal SIGKILL.'));
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
    const logged = outputLog(api).length; // what this test's server adds comes after
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
      await until('the language client to log its failure', () => outputLog(api).slice(logged).includes("couldn't create connection"));
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
    assert.equal(started, 1, `started ${started} times:\n${outputLog(api).slice(logged).slice(-3000)}`);
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
