/**
 * What the in-editor tests (*.test.ts beside this file) share: their suite (`editorSuite`: the one activation and
 * first index of the extension, then `api`, `handbook` and `notes`), the waits, the commit-box and language-model
 * tool helpers, and the check that a source opened at its passage.
 *
 * The tests run inside a real VS Code (code-server) extension host against the real ragls server, on the two-folder
 * workspace made by ../fixture.ts (handbook/ — a git repository — and notes/), in the order of the files' names.
 * Each test runs a contributed command the way the palette does and checks what the user would see. Waits poll
 * until a deadline; nothing sleeps for a fixed time.
 */
import assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { dirname, join } from 'node:path';
import * as vscode from 'vscode';
import { cursorOf, highlightedRanges, lineRange } from '../../decorations';
import type { RaglsApi } from '../../extension';
import type { GitRepository } from '../../git';
import { sourceDocumentUri } from '../../extracted';
import { Source } from '../../protocol';

export const EXTENSION_ID = 'ragls.ragls-vscode';

/** A TCP port nothing listens on (bound by the OS, then released). */
export async function freePort(): Promise<number> {
  const probe = createServer();
  await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
  const { port } = probe.address() as AddressInfo;
  await new Promise((resolve) => probe.close(resolve));
  return port;
}

export const DEADLINE_MS = 90_000;
export const FIRST_INDEX_MS = 240_000;

/** What a timed-out wait saw besides its own probe (the suite sets it once the extension is active: the status bar
 * item), so a failure in CI's output says in which state the editor was. */
let stateNow: () => string = () => '';

/** Poll `probe` every 200 ms until it returns a value other than undefined/false; fails after `ms` naming `what`,
 * the probe's last value (when it is not a bare boolean) and `stateNow()`. */
export async function until<T>(what: string, probe: () => T | undefined | Promise<T | undefined>, ms = DEADLINE_MS): Promise<T> {
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
export async function setCommitBox(repo: GitRepository, value: string): Promise<void> {
  repo.inputBox.value = value;
  await vscode.commands.executeCommand('setContext', 'ragls.test.commitBoxSynced', Date.now());
  await until(`the commit box to hold ${JSON.stringify(value)}`, () => repo.inputBox.value === value);
}

/** The text of a language-model tool's result (`vscode.lm.invokeTool`, where this VS Code has it). */
export async function invokeTool(name: string, input: object): Promise<string> {
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  const result = await (vscode as any).lm.invokeTool(name, { input, toolInvocationToken: undefined });
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  return (result.content as any[]).map((part) => part.value ?? '').join('');
}

/** The editor shows `source` with the cursor at the start of its focus lines (no chunk-wide selection) and those
 * whole lines highlighted by the transient decoration. */
export function assertOpensAt(editor: vscode.TextEditor | undefined, source: Source): void {
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

/** The "ragls" output channel as VS Code wrote it (N-ragls.log in an output_logging folder beside logUri). */
export function outputLog(api: RaglsApi): string {
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
}

/** The workspace the in-editor tests share: the extension's API and the two folders of ../fixture.ts, set by
 * `editorSuite`'s suiteSetup (the first index) before any test runs. */
export let api: RaglsApi;
export let handbook: vscode.WorkspaceFolder;
export let notes: vscode.WorkspaceFolder;

let activation: Promise<void> | undefined;

/**
 * Activate the extension and wait for its first index (the server's start and model load, then 4 files, while
 * code-server and Chromium start too: the UI test sees it after 40-50 s at load 12-20 on 2 cores), then set `api`,
 * `handbook` and `notes`. Runs once; every test file's suiteSetup awaits the same promise, so only the first waits.
 * Rejects (failing that suite) when the extension is missing, the workspace is not handbook + notes, or the index
 * does not come within FIRST_INDEX_MS.
 */
function activated(): Promise<void> {
  activation ??= (async () => {
    const ext = vscode.extensions.getExtension<RaglsApi>(EXTENSION_ID);
    assert.ok(ext, `${EXTENSION_ID} is not installed`);
    const active = await ext.activate();
    stateNow = () => `the status bar: ${JSON.stringify(active.status.text)} (state ${active.status.state}, totals ${JSON.stringify(active.status.totals)})`;
    const folders = vscode.workspace.workspaceFolders ?? [];
    assert.deepEqual(folders.map((f) => f.name), ['handbook', 'notes']);
    await until('the status bar to show the indexed totals', () =>
      active.status.state === 'ready' && active.status.totals?.files === 4 && active.status.totals.chunks >= 4,
    FIRST_INDEX_MS);
    [api, handbook, notes] = [active, folders[0], folders[1]];
  })();
  return activation;
}

/** One in-editor test file's suite, "ragls extension in VS Code": its suiteSetup awaits the shared first index
 * (`activated`: the first file waits, later ones find it done), then `tests` (mocha `test` calls) run. */
export function editorSuite(tests: () => void): void {
  suite('ragls extension in VS Code', () => {
    suiteSetup(async function () {
      this.timeout(FIRST_INDEX_MS + 30_000);
      await activated();
    });
    tests();
  });
}
