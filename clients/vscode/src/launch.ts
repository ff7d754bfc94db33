/**
 * How to start the ragls server: pure Node code (no `vscode` import) so the fast test layer can run it.
 *
 * Order (issue 5): `ragls.server.command` + `ragls.server.args` when a command is set; else `ragls serve` when
 * `ragls` is on PATH; else `<pythonPath or python3> -m ragls serve` when that interpreter can import ragls.
 * When none works, the result carries one message saying what was tried and how to install the server.
 *
 * Every launch starts in `cwd`, a directory the workspace does not control (the extension's global storage), never
 * in a workspace folder: a folder is untrusted input (docs/security.md), and `python -m ragls` (or `-c`) imports from
 * its working directory first, so a `ragls/` package at a cloned folder's root ran instead of ragls — also in
 * restricted mode. The Python fallback also gets `-P` (safe path, Python >= 3.11) when its interpreter has it.
 */
import { execFile } from 'node:child_process';
import { accessSync, constants, statSync } from 'node:fs';
import { delimiter, isAbsolute, join } from 'node:path';

export interface ServerSettings {
  /** Program to run; "" means auto-detect. */
  command: string;
  /** Arguments after the command (or after `-m ragls`). Default ["serve"]. */
  args: string[];
  /** Interpreter for the `-m ragls` fallback; "" means `python3`. */
  pythonPath: string;
}

export type Launch =
  | { ok: true; command: string; args: string[]; how: string; cwd: string }
  | { ok: false; message: string };

export const INSTALL_HINT =
  "Install it from a ragls checkout with `python3 -m pip install '/path/to/ragls[offline]'` (or `pipx install " +
  "'/path/to/ragls[offline]'`), then put `ragls` on PATH, or set `ragls.server.pythonPath` to the Python that has it " +
  '(`ragls.server.command` to the `ragls` program).';

/** Absolute path of `program` if it is an executable file (as given, or found on `pathEnv`), else undefined. */
export function findExecutable(program: string, pathEnv: string | undefined): string | undefined {
  const isExec = (p: string): boolean => {
    try {
      if (!statSync(p).isFile()) {
        return false;
      }
      accessSync(p, constants.X_OK);
      return true;
    } catch {
      return false;
    }
  };
  if (program.includes('/') || program.includes('\\') || isAbsolute(program)) {
    return isExec(program) ? program : undefined;
  }
  for (const dir of (pathEnv ?? '').split(delimiter)) {
    if (!dir) {
      continue;
    }
    for (const ext of process.platform === 'win32' ? ['.exe', '.cmd', '.bat', ''] : ['']) {
      const candidate = join(dir, program + ext);
      if (isExec(candidate)) {
        return candidate;
      }
    }
  }
  return undefined;
}

/**
 * Whether `python`, run in `cwd`, can `import ragls`: `{ safePath }` when it can (whether it takes `-P`, Python >=
 * 3.11), else `{ problem }`, the reason (stderr's last line).
 */
export function checkPythonModule(python: string, env: NodeJS.ProcessEnv, cwd: string, timeoutMs = 30000):
  Promise<{ problem: string } | { safePath: boolean }> {
  return new Promise((resolve) => {
    const probe = 'import sys, ragls; print(int(sys.version_info >= (3, 11)))';
    execFile(python, ['-c', probe], { env, cwd, timeout: timeoutMs }, (error, stdout, stderr) => {
      if (!error) {
        resolve({ safePath: String(stdout).trim() === '1' });
        return;
      }
      const lines = String(stderr).trim().split('\n');
      resolve({ problem: lines[lines.length - 1] || error.message });
    });
  });
}

/**
 * Decide how to start the server. `env` is the environment the server will get (its PATH is searched); `cwd` the
 * existing directory it starts in, one no workspace folder controls (the folders reach the server as its LSP
 * workspace folders). Never throws; a failure comes back as `{ ok: false, message }` with the install hint.
 */
export async function resolveLaunch(settings: ServerSettings, env: NodeJS.ProcessEnv, cwd: string): Promise<Launch> {
  const args = settings.args.length ? settings.args : ['serve'];
  if (settings.command.trim()) {
    const command = settings.command.trim();
    const found = findExecutable(command, env.PATH);
    if (!found) {
      return {
        ok: false,
        message: `ragls: the server program \`${command}\` (setting ragls.server.command) was not found or is not executable. ${INSTALL_HINT}`,
      };
    }
    return { ok: true, command: found, args, how: 'ragls.server.command', cwd };
  }
  const onPath = findExecutable('ragls', env.PATH);
  if (onPath) {
    return { ok: true, command: onPath, args, how: '`ragls` on PATH', cwd };
  }
  const python = settings.pythonPath.trim() || 'python3';
  const pythonExe = findExecutable(python, env.PATH);
  if (!pythonExe) {
    return {
      ok: false,
      message: `ragls: the server was not found: \`ragls\` is not on PATH and the Python \`${python}\` does not exist. ${INSTALL_HINT}`,
    };
  }
  const check = await checkPythonModule(pythonExe, env, cwd);
  if ('problem' in check) {
    return {
      ok: false,
      message: `ragls: the server was not found: \`ragls\` is not on PATH and \`${python} -m ragls\` fails (${check.problem}). ${INSTALL_HINT}`,
    };
  }
  const safePath = check.safePath ? ['-P'] : [];
  return { ok: true, command: pythonExe, args: [...safePath, '-m', 'ragls', ...args], how: `${python} -m ragls`, cwd };
}
