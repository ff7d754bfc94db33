/**
 * How to start the ragls server: pure Node code (no `vscode` import) so the fast test layer can run it.
 *
 * Order (issue 5): `ragls.server.command` + `ragls.server.args` when a command is set; else `ragls serve` when
 * `ragls` is on PATH; else `<pythonPath or python3> -m ragls serve` when that interpreter can import ragls.
 * When none works, the result carries one message saying what was tried and how to install the server.
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
  | { ok: true; command: string; args: string[]; how: string }
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

/** Whether `python` can `import ragls`; resolves to undefined when it can, else the reason (stderr's last line). */
export function checkPythonModule(python: string, env: NodeJS.ProcessEnv, timeoutMs = 30000): Promise<string | undefined> {
  return new Promise((resolve) => {
    execFile(python, ['-c', 'import ragls'], { env, timeout: timeoutMs }, (error, _stdout, stderr) => {
      if (!error) {
        resolve(undefined);
        return;
      }
      const lines = String(stderr).trim().split('\n');
      resolve(lines[lines.length - 1] || error.message);
    });
  });
}

/**
 * Decide how to start the server. `env` is the environment the server will get (its PATH is searched).
 * Never throws; a failure comes back as `{ ok: false, message }` with the install hint.
 */
export async function resolveLaunch(settings: ServerSettings, env: NodeJS.ProcessEnv): Promise<Launch> {
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
    return { ok: true, command: found, args, how: 'ragls.server.command' };
  }
  const onPath = findExecutable('ragls', env.PATH);
  if (onPath) {
    return { ok: true, command: onPath, args, how: '`ragls` on PATH' };
  }
  const python = settings.pythonPath.trim() || 'python3';
  const pythonExe = findExecutable(python, env.PATH);
  if (!pythonExe) {
    return {
      ok: false,
      message: `ragls: the server was not found: \`ragls\` is not on PATH and the Python \`${python}\` does not exist. ${INSTALL_HINT}`,
    };
  }
  const problem = await checkPythonModule(pythonExe, env);
  if (problem) {
    return {
      ok: false,
      message: `ragls: the server was not found: \`ragls\` is not on PATH and \`${python} -m ragls\` fails (${problem}). ${INSTALL_HINT}`,
    };
  }
  return { ok: true, command: pythonExe, args: ['-m', 'ragls', ...args], how: `${python} -m ragls` };
}
