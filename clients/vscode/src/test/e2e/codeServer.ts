/**
 * Run VS Code as code-server and drive it with headless Chromium through playwright-core, for the in-editor
 * and UI tests. The toolchain comes from scripts/setup-test-toolchain.sh, found through the variables its
 * env.sh sets (NODE24_BIN, CODE_SERVER, PLAYWRIGHT_DIR, CHROMIUM).
 *
 * code-server runs on 127.0.0.1 in its own process group with HOME and XDG_* under a temporary directory, so
 * nothing is written to the real home; `stop()` kills the whole group (code-server, its extension host and the
 * ragls server the extension started).
 */
import { ChildProcess, spawn } from 'node:child_process';
import { createWriteStream, mkdirSync } from 'node:fs';
import { get } from 'node:http';
import { join } from 'node:path';

export interface Toolchain {
  node24Bin: string;
  codeServer: string;
  playwrightDir: string;
  chromium: string;
}

/** The toolchain from the environment, or the name of the first missing variable. */
export function toolchainFromEnv(env = process.env): Toolchain | string {
  const need = ['NODE24_BIN', 'CODE_SERVER', 'PLAYWRIGHT_DIR', 'CHROMIUM'] as const;
  for (const name of need) {
    if (!env[name]) {
      return `${name} is not set (source <tools>/env.sh from scripts/setup-test-toolchain.sh)`;
    }
  }
  return {
    node24Bin: env.NODE24_BIN!,
    codeServer: env.CODE_SERVER!,
    playwrightDir: env.PLAYWRIGHT_DIR!,
    chromium: env.CHROMIUM!,
  };
}

function healthy(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const req = get({ host: '127.0.0.1', port, path: '/healthz', timeout: 2000 }, (res) => {
      res.resume();
      resolve(res.statusCode === 200);
    });
    req.on('error', () => resolve(false));
    req.on('timeout', () => {
      req.destroy();
      resolve(false);
    });
  });
}

/** A per-run home: HOME and XDG_* directories under `dir`. */
export function isolatedEnv(dir: string, extra: NodeJS.ProcessEnv = {}): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...process.env, HOME: join(dir, 'home') };
  for (const [name, sub] of [
    ['XDG_CONFIG_HOME', 'config'],
    ['XDG_DATA_HOME', 'data'],
    ['XDG_CACHE_HOME', 'cache'],
    ['XDG_STATE_HOME', 'state'],
  ]) {
    env[name] = join(dir, 'home', sub);
  }
  for (const key of ['HOME', 'XDG_CONFIG_HOME', 'XDG_DATA_HOME', 'XDG_CACHE_HOME', 'XDG_STATE_HOME']) {
    mkdirSync(env[key]!, { recursive: true });
  }
  env.GIT_CONFIG_NOSYSTEM = '1';
  delete env.OPENAI_API_KEY;
  delete env.ANTHROPIC_API_KEY;
  delete env.VSCODE_IPC_HOOK_CLI;
  return { ...env, ...extra };
}

export interface RunningCodeServer {
  port: number;
  base: string;
  proc: ChildProcess;
  stop(): Promise<void>;
}

export interface CodeServerOptions {
  tools: Toolchain;
  /** Temporary directory for user data, extensions, home and the log. */
  dir: string;
  env: NodeJS.ProcessEnv;
  /** Extra code-server arguments (e.g. ["--vscode-option", "enable-smoke-test-driver"]). */
  args?: string[];
  timeoutMs?: number;
  /** VS Code's Workspace Trust on (default off: `--disable-workspace-trust`, every workspace trusted). */
  workspaceTrust?: boolean;
}

export function codeServerArgs(dir: string, workspaceTrust = false): string[] {
  return [
    '--auth', 'none',
    '--disable-telemetry',
    '--disable-update-check',
    ...(workspaceTrust ? [] : ['--disable-workspace-trust']),
    '--disable-getting-started-override',
    '--disable-file-downloads',
    '--ignore-last-opened',
    '--extensions-dir', join(dir, 'extensions'),
    '--user-data-dir', join(dir, 'user-data'),
  ];
}

/** Run code-server synchronously for a one-off command (e.g. --install-extension); resolves with its output. */
export function runCodeServerCli(opts: CodeServerOptions, args: string[]): Promise<string> {
  return new Promise((resolve, reject) => {
    const env = { ...opts.env, PATH: `${opts.tools.node24Bin}:${opts.env.PATH ?? ''}` };
    const proc = spawn(opts.tools.codeServer, [...codeServerArgs(opts.dir), ...args], { env, stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    proc.stdout!.on('data', (d) => (out += String(d)));
    proc.stderr!.on('data', (d) => (out += String(d)));
    proc.on('error', reject);
    proc.on('exit', (code) => (code === 0 ? resolve(out) : reject(new Error(`code-server ${args.join(' ')} exited ${code}:\n${out}`))));
  });
}

/** code-server's line once it listens: "HTTP server listening on http://127.0.0.1:41235/". */
const LISTENING = /HTTP server listening on https?:\/\/[^\s/]+:(\d+)\//;

/**
 * Start code-server on a port the system picks (`--bind-addr 127.0.0.1:0`: no port probed beforehand that another
 * process could take meanwhile, nor another server's /healthz answering for it), read that port from its
 * "listening" line, then wait for /healthz. Its output goes to `<dir>/code-server.log`.
 */
export async function startCodeServer(opts: CodeServerOptions): Promise<RunningCodeServer> {
  const env = { ...opts.env, PATH: `${opts.tools.node24Bin}:${opts.env.PATH ?? ''}` };
  const logPath = join(opts.dir, 'code-server.log');
  const log = createWriteStream(logPath);
  const proc = spawn(
    opts.tools.codeServer,
    ['--bind-addr', '127.0.0.1:0', ...codeServerArgs(opts.dir, opts.workspaceTrust), ...(opts.args ?? [])],
    { env, detached: true, stdio: ['ignore', 'pipe', 'pipe'] },
  );
  proc.stdout!.pipe(log);
  proc.stderr!.pipe(log);
  let exited = false;
  proc.on('exit', () => (exited = true));
  const timeoutMs = opts.timeoutMs ?? 60_000;
  const listening = new Promise<number>((resolve, reject) => {
    let seen = '';
    const timer = setTimeout(() => reject(new Error(`code-server did not listen within ${timeoutMs} ms (see ${logPath})`)), timeoutMs);
    const onData = (data: Buffer): void => {
      seen += String(data);
      const match = LISTENING.exec(seen);
      if (match) {
        clearTimeout(timer);
        resolve(Number(match[1]));
      }
    };
    proc.stdout!.on('data', onData);
    proc.stderr!.on('data', onData);
    proc.once('exit', (code, signal) => {
      clearTimeout(timer);
      reject(new Error(`code-server exited (${code ?? signal}) before it listened (see ${logPath})`));
    });
  });
  const stop = async (): Promise<void> => {
    if (proc.pid === undefined) {
      return;
    }
    for (const signal of ['SIGTERM', 'SIGKILL'] as const) {
      try {
        process.kill(-proc.pid, signal);
      } catch {
        return; // the group is gone
      }
      const deadline = Date.now() + 5000;
      while (!exited && Date.now() < deadline) {
        await new Promise((r) => setTimeout(r, 100));
      }
    }
    // Anything left in the group (the ragls server, the extension host) goes with SIGKILL.
    try {
      process.kill(-proc.pid, 'SIGKILL');
    } catch {
      // already gone
    }
  };
  let port: number;
  try {
    port = await listening;
  } catch (error) {
    await stop();
    throw error;
  }
  const deadline = Date.now() + timeoutMs;
  while (!(await healthy(port))) {
    if (exited || Date.now() > deadline) {
      await stop();
      throw new Error(`code-server did not become healthy (see ${join(opts.dir, 'code-server.log')})`);
    }
    await new Promise((r) => setTimeout(r, 250));
  }
  return { port, base: `http://127.0.0.1:${port}`, proc, stop };
}

/** The few playwright-core types the drivers use. */
export interface PwLocator {
  first(): PwLocator;
  click(opts?: { timeout?: number }): Promise<void>;
  hover(opts?: { timeout?: number }): Promise<void>;
  fill(value: string, opts?: { timeout?: number }): Promise<void>;
  waitFor(opts?: { state?: 'attached' | 'visible'; timeout?: number }): Promise<void>;
  textContent(opts?: { timeout?: number }): Promise<string | null>;
  allTextContents(): Promise<string[]>;
  locator(selector: string): PwLocator;
  count(): Promise<number>;
  isVisible(): Promise<boolean>;
  getAttribute(name: string): Promise<string | null>;
  nth(index: number): PwLocator;
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  evaluate<R>(fn: (el: any) => R): Promise<R>;
  screenshot(opts: { path: string }): Promise<Buffer>;
}
export interface PwFrameLocator {
  frameLocator(selector: string): PwFrameLocator;
  locator(selector: string): PwLocator;
}
export interface PwKeyboard {
  press(key: string): Promise<void>;
  type(text: string, opts?: { delay?: number }): Promise<void>;
}
export interface PwPage {
  goto(url: string, opts?: { timeout?: number; waitUntil?: 'load' | 'domcontentloaded' }): Promise<unknown>;
  exposeFunction(name: string, fn: (...args: never[]) => unknown): Promise<void>;
  on(event: 'console', fn: (msg: { type(): string; text(): string }) => void): void;
  on(event: 'pageerror', fn: (error: Error) => void): void;
  locator(selector: string): PwLocator;
  frameLocator(selector: string): PwFrameLocator;
  keyboard: PwKeyboard;
  screenshot(opts: { path: string; fullPage?: boolean }): Promise<Buffer>;
  waitForTimeout(ms: number): Promise<void>;
}
export interface PwBrowser {
  newPage(opts?: { viewport?: { width: number; height: number } }): Promise<PwPage>;
  close(): Promise<void>;
}

/** Launch the Debian chromium headless through playwright-core, with `env` (use isolatedEnv: Chromium writes
 * crash reports under $XDG_CONFIG_HOME). */
export async function launchChromium(tools: Toolchain, env: NodeJS.ProcessEnv): Promise<PwBrowser> {
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const pw = require(join(tools.playwrightDir, 'playwright-core')) as {
    chromium: { launch(opts: object): Promise<PwBrowser> };
  };
  return pw.chromium.launch({
    executablePath: tools.chromium,
    headless: true,
    env,
    args: [
      '--no-sandbox',
      '--disable-gpu',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
      '--no-first-run',
      '--disable-dev-shm-usage',
    ],
  });
}
