/**
 * What the UI tests (uiAsk.ts, uiReload.ts) do in code-server: the session (`uiSession`: workspace, .vsix, code-server,
 * Chromium), named steps that print `ok - …` / `not ok - …` with what the page and the ragls output channel showed on
 * a failure, commands run from the palette, polling.
 */
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { EXTENSION_ROOT, makeWorkspace, type Workspace } from '../fixture';
import { isolatedEnv, launchChromium, type PwPage, type RunningCodeServer, runCodeServerCli, startCodeServer, toolchainFromEnv } from './codeServer';

/** Where code-server keeps its logs (set once the work dir is known: `useUserDataDir`). */
let userDataDir: string | undefined;

/** Where code-server keeps its logs (codeServer.ts: --user-data-dir), for the diagnostics of a failed step. */
export function useUserDataDir(dir: string): void {
  userDataDir = dir;
}

/** The last `count` lines of the ragls output channel (the LSP trace: which requests went out and how they ended),
 * as code-server logs it: `N-ragls.log` in an `output_logging_<time>` folder under `user-data/logs`. */
function serverLogTail(count: number): string[] {
  const logs = userDataDir ? join(userDataDir, 'logs') : undefined;
  if (!logs || !existsSync(logs)) {
    return [];
  }
  const found: string[] = [];
  const walk = (dir: string): void => {
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      const path = join(dir, entry.name);
      if (entry.isDirectory()) {
        walk(path);
      } else if (/-ragls\.log$/.test(entry.name)) {
        found.push(path);
      }
    }
  };
  walk(logs);
  return found.flatMap((path) => readFileSync(path, 'utf8').split('\n')).filter((line) => line).slice(-count);
}

export async function step(name: string, run: () => Promise<void>, page?: PwPage, shots?: string): Promise<void> {
  const started = Date.now();
  try {
    await run();
    console.log(`ok - ${name}`);
    console.log(`#   ${((Date.now() - started) / 1000).toFixed(1)} s`); // how close a loaded machine came to a budget
  } catch (error) {
    console.log(`not ok - ${name}`);
    console.log(`#   ${String(error instanceof Error ? error.message : error).split('\n').slice(0, 8).join('\n#   ')}`);
    if (page && shots) {
      await page.screenshot({ path: join(shots, 'failure.png') }).catch(() => undefined);
      const toasts = await page.locator('.notifications-toasts .notification-list-item-message').allTextContents().catch(() => []);
      console.log(`#   toasts shown: ${JSON.stringify(toasts)}`);
      const status = await page.locator('.statusbar-item:has-text("ragls")').allTextContents().catch(() => []);
      console.log(`#   status bar: ${JSON.stringify(status)}`);
    }
    const tail = serverLogTail(40);
    if (tail.length) {
      console.log(`#   the ragls output channel, last ${tail.length} lines:\n#     ${tail.join('\n#     ')}`);
    }
    throw error;
  }
}

/** Run `command` from the command palette: F1, then the palette's input is set to `>command` in one step (typed
 * keys can land before the palette has focus on a loaded machine, or in a quick pick that is still closing) and
 * the command's row is awaited as the focused one (the row Enter runs); a palette that did not take the text is closed and opened again (3 tries). */
export async function paletteCommand(page: PwPage, command: string): Promise<void> {
  let lastError: unknown;
  for (let attempt = 0; attempt < 3; attempt++) {
    await page.keyboard.press('F1');
    const input = page.locator('.quick-input-widget input').first();
    await input.waitFor({ state: 'visible', timeout: 30_000 });
    await input.fill(`>${command}`);
    try {
      // The focused row, the one Enter runs: until the list is filtered it is another command.
      await page.locator(`.quick-input-list .monaco-list-row.focused:has-text("${command}")`).first().waitFor({ timeout: 20_000 });
      return;
    } catch (error) {
      lastError = error;
      await page.keyboard.press('Escape');
    }
  }
  throw lastError;
}

/** Poll `probe` (every 100 ms) until it is true; fails with `what` after `ms`. */
export async function until(page: PwPage, what: string, probe: () => Promise<boolean>, ms = 30_000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!(await probe().catch(() => false))) {
    if (Date.now() > deadline) {
      throw new Error(`timed out after ${ms} ms waiting for ${what}`);
    }
    await page.waitForTimeout(100);
  }
}

/** Wait until the focused element is the quick input's text box (a quick pick or input box a command just
 * opened takes focus a moment after it shows; keys typed before would go to the editor behind it). */
export async function quickInputFocused(page: PwPage): Promise<void> {
  const input = page.locator('.quick-input-widget input').first();
  await until(page, 'the quick input to have focus', () => input.evaluate((el) => el === el.ownerDocument.activeElement));
}

/** Answer the input box of a command whose title is `title`: awaited by its title (the palette that ran the
 * command may still be closing), then the text is set in one step and Enter pressed. */
export async function answerInputBox(page: PwPage, title: string, text: string): Promise<void> {
  await page.locator(`.quick-input-widget .quick-input-title:has-text("${title}")`).first().waitFor({ state: 'visible', timeout: 30_000 });
  await page.locator('.quick-input-widget input').first().fill(text);
  await page.keyboard.press('Enter');
}

/** What a UI test's steps work with: the page showing the workspace, the workspace, the screenshots' folder and
 * the running code-server. */
export interface UiSession {
  page: PwPage;
  ws: Workspace;
  shots: string;
  server: RunningCodeServer;
}

/**
 * A UI test's session, `node out/test/e2e/<name>.js VSIX [WORK_DIR]`: the fixture workspace made in WORK_DIR (a new
 * temporary folder by default) and changed by `prepare`, the .vsix installed into code-server (a step), the
 * workspace opened in headless Chromium, then `run`. Screenshots go to $RAGLS_TEST_RESULTS (default
 * clients/vscode/test-results/). `options.workspaceTrust`: VS Code's Workspace Trust on (uiTrust.ts; the others run
 * with every workspace trusted). Returns the exit code: 2 for a missing toolchain or argument; a failed step throws.
 */
export async function uiSession(name: string, prepare: (ws: Workspace) => void, run: (s: UiSession) => Promise<void>,
  options: { workspaceTrust?: boolean } = {}): Promise<number> {
  const tools = toolchainFromEnv();
  if (typeof tools === 'string') {
    console.error(`${name}: ${tools}`);
    return 2;
  }
  const vsix = process.argv[2];
  if (!vsix) {
    console.error(`usage: node out/test/e2e/${name}.js VSIX [WORK_DIR]`);
    return 2;
  }
  const dir = resolve(process.argv[3] ?? mkdtempSync(join(tmpdir(), `ragls-vscode-${name}-`)));
  const shots = resolve(process.env.RAGLS_TEST_RESULTS ?? join(EXTENSION_ROOT, 'test-results'));
  mkdirSync(dir, { recursive: true });
  mkdirSync(shots, { recursive: true });
  const ws = makeWorkspace(join(dir, 'ws'));
  prepare(ws);
  const env = isolatedEnv(dir);
  useUserDataDir(join(dir, 'user-data')); // codeServer.ts: --user-data-dir
  const opts = { tools, dir, env, workspaceTrust: options.workspaceTrust };
  await step('the .vsix installs into code-server', async () => {
    const out = await runCodeServerCli(opts, ['--install-extension', resolve(vsix)]);
    if (!/ragls-vscode/.test(out)) {
      throw new Error(`unexpected install output:\n${out}`);
    }
  });
  const server = await startCodeServer(opts);
  const browser = await launchChromium(tools, env);
  try {
    const page = await browser.newPage({ viewport: { width: 1400, height: 900 } });
    await page.goto(`${server.base}/?workspace=${encodeURIComponent(ws.workspaceFile)}`, { waitUntil: 'domcontentloaded', timeout: 60_000 });
    await run({ page, ws, shots, server });
    console.log(`# screenshots in ${shots}`);
    return 0;
  } finally {
    await browser.close().catch(() => undefined);
    await server.stop();
  }
}

/** Run a UI test's main and exit with its code (1, its message printed, when it throws). */
export function runMain(main: () => Promise<number>): void {
  main().then(
    (code) => process.exit(code),
    (error) => {
      console.error(error instanceof Error ? error.message : error);
      process.exit(1);
    },
  );
}
