/**
 * Driver for the in-editor tests: starts code-server with the smoke-test driver, opens the fixture workspace
 * in headless Chromium with this extension as the development extension and out/test/index.js as the tests,
 * and exits with the tests' exit code (reported by VS Code through `codeAutomationExit`).
 *
 *   node out/test/e2e/runInHost.js [WORK_DIR]
 *
 * WORK_DIR (default: a new temp dir) gets the workspace (fixture.ts), code-server's data and logs, and
 * `report.txt` with one `ok - …` / `not ok - …` line per test. Needs the toolchain variables (codeServer.ts).
 */
import { mkdirSync, mkdtempSync, readFileSync, writeFileSync, existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { isolatedEnv, launchChromium, startCodeServer, toolchainFromEnv } from './codeServer';
import { EXTENSION_ROOT, makeWorkspace } from '../fixture';

const TEST_TIMEOUT_MS = Number(process.env.RAGLS_TEST_TIMEOUT_MS ?? 540_000);

async function main(): Promise<number> {
  const tools = toolchainFromEnv();
  if (typeof tools === 'string') {
    console.error(`runInHost: ${tools}`);
    return 2;
  }
  const dir = resolve(process.argv[2] ?? mkdtempSync(join(tmpdir(), 'ragls-vscode-host-')));
  mkdirSync(dir, { recursive: true });
  const ws = makeWorkspace(join(dir, 'ws'));
  const report = join(dir, 'report.txt');
  writeFileSync(report, '');
  const env = isolatedEnv(dir, { RAGLS_TEST_REPORT: report });
  const server = await startCodeServer({ tools, dir, env, args: ['--vscode-option', 'enable-smoke-test-driver'] });
  const browser = await launchChromium(tools, env);
  try {
    // The tests drive VS Code through its API and take no screenshot (uiAsk.ts does, at 1400x900): a smaller window
    // is less for Chromium to paint and composite at each change (its CPU in this run 90 -> 70 s at load 20-27).
    const page = await browser.newPage({ viewport: { width: 800, height: 600 } });
    let resolveExit: (code: number) => void = () => undefined;
    const exited = new Promise<number>((r) => (resolveExit = r));
    const consoleLines: string[] = [];
    await page.exposeFunction('codeAutomationLog', (type: string, args: unknown[]) => {
      consoleLines.push(`[${type}] ${Array.isArray(args) ? args.map(String).join(' ') : String(args)}`);
    });
    await page.exposeFunction('codeAutomationExit', (code: number) => resolveExit(Number(code)));
    page.on('console', (msg) => consoleLines.push(`[browser ${msg.type()}] ${msg.text()}`));
    page.on('pageerror', (error) => consoleLines.push(`[pageerror] ${error.message}`));
    const remote = `vscode-remote://127.0.0.1:${server.port}`;
    const payload = [
      ['extensionDevelopmentPath', `${remote}${EXTENSION_ROOT}`],
      ['extensionTestsPath', `${remote}${join(EXTENSION_ROOT, 'out', 'test', 'index.js')}`],
    ];
    const url = `${server.base}/?workspace=${encodeURIComponent(ws.workspaceFile)}&payload=${encodeURIComponent(JSON.stringify(payload))}`;
    await page.goto(url, { waitUntil: 'domcontentloaded', timeout: 60_000 });
    const timeout = new Promise<number>((r) => setTimeout(() => r(-1), TEST_TIMEOUT_MS));
    const code = await Promise.race([exited, timeout]);
    writeFileSync(join(dir, 'console.log'), `${consoleLines.join('\n')}\n`);
    const lines = existsSync(report) ? readFileSync(report, 'utf8') : '';
    process.stdout.write(lines);
    if (code === -1) {
      // The report so far is printed above; the console's end says where it stood (CI keeps no temporary dir).
      console.error(`runInHost: no exit from VS Code after ${TEST_TIMEOUT_MS} ms; the console's last lines:\n${consoleLines.slice(-60).join('\n')}`);
      return 1;
    }
    if (!lines.includes('ok - ')) {
      console.error(`runInHost: the tests reported nothing (exit ${code}); console:\n${consoleLines.slice(-60).join('\n')}`);
      return code || 1;
    }
    return code;
  } finally {
    await browser.close().catch(() => undefined);
    await server.stop();
  }
}

main().then(
  (code) => process.exit(code),
  (error) => {
    console.error(error);
    process.exit(1);
  },
);
