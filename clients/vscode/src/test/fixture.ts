/**
 * Test workspace: a temporary copy of `testFixture/` (two folders, `handbook/` — a git repository with one commit —
 * and `notes/`), each with a `ragls.toml` for offline runs: the bundled all-MiniLM-L6-v2 model directory from
 * `ragls.embedding.embed.offline_model_dir()`, generation backend `none` (extractive answers), 400-char chunks and no file
 * watcher. A `ragls.code-workspace` file opens both folders and sets `ragls.server.pythonPath`.
 *
 * Pure Node (no `vscode` import). Also a CLI used by tests/clients/test_vscode.py:
 *   node out/test/fixture.js DEST_DIR PYTHON   → prints the Workspace JSON on stdout.
 */
import { execFileSync } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';

/** The extension's root folder (clients/vscode), from out/test/. */
export const EXTENSION_ROOT = resolve(__dirname, '..', '..');
export const FIXTURE_DIR = join(EXTENSION_ROOT, 'testFixture');

export interface Workspace {
  root: string;
  handbook: string;
  notes: string;
  workspaceFile: string;
  python: string;
}

/** The Python that runs the server: $RAGLS_TEST_PYTHON, else the repo's .venv, else python3 on PATH. */
export function defaultPython(): string {
  if (process.env.RAGLS_TEST_PYTHON) {
    return process.env.RAGLS_TEST_PYTHON;
  }
  const venv = resolve(EXTENSION_ROOT, '..', '..', '.venv', 'bin', 'python');
  return existsSync(venv) ? venv : 'python3';
}

/** Directory of the offline embedding model, asked from ragls itself. Throws when ragls cannot provide one. */
export function offlineModelDir(python: string): string {
  const out = execFileSync(python, ['-c', 'import ragls.embedding.embed as e; print(e.offline_model_dir() or "")'], {
    encoding: 'utf8',
  }).trim();
  if (!out) {
    throw new Error('ragls.embedding.embed.offline_model_dir() found no offline model: pip install -e ".[offline]"');
  }
  return out;
}

export function raglsToml(modelDir: string): string {
  return [
    '[embedding]',
    'model = "sentence-transformers/all-MiniLM-L6-v2"',
    `model_path = ${JSON.stringify(modelDir)}`,
    '',
    '[generation]',
    'backend = "none"',
    '',
    '[chunking]',
    'chunk_size = 400',
    '',
    '[watch]',
    'enabled = false',
    '',
  ].join('\n');
}

function git(cwd: string, ...args: string[]): void {
  execFileSync('git', args, {
    cwd,
    stdio: 'ignore',
    env: { ...process.env, GIT_CONFIG_NOSYSTEM: '1', GIT_AUTHOR_DATE: '2024-01-01T00:00:00Z', GIT_COMMITTER_DATE: '2024-01-01T00:00:00Z' },
  });
}

/** Build the workspace under `dest` (created if needed). `python` runs the server. */
export function makeWorkspace(dest: string, python = defaultPython()): Workspace {
  mkdirSync(dest, { recursive: true });
  const root = resolve(dest);
  cpSync(FIXTURE_DIR, root, { recursive: true });
  const toml = raglsToml(offlineModelDir(python));
  const handbook = join(root, 'handbook');
  const notes = join(root, 'notes');
  for (const folder of [handbook, notes]) {
    writeFileSync(join(folder, 'ragls.toml'), toml);
  }
  writeFileSync(join(handbook, '.gitignore'), 'ragls.toml\n');
  git(handbook, 'init', '-q', '-b', 'main');
  git(handbook, 'config', 'user.name', 'ragls tests');
  git(handbook, 'config', 'user.email', 'tests@ragls.invalid');
  git(handbook, 'config', 'commit.gpgsign', 'false');
  git(handbook, 'add', '-A');
  git(handbook, 'commit', '-q', '-m', 'Initial handbook');
  const workspaceFile = join(root, 'ragls.code-workspace');
  writeFileSync(
    workspaceFile,
    JSON.stringify(
      {
        folders: [{ path: 'handbook' }, { path: 'notes' }],
        settings: {
          'ragls.server.pythonPath': python,
          'ragls.trace.server': 'messages',
          'git.enabled': true,
          'git.autoRepositoryDetection': true,
          'git.openRepositoryInParentFolders': 'never',
          'workbench.startupEditor': 'none',
          'workbench.tips.enabled': false,
          'security.workspace.trust.enabled': false,
          'extensions.ignoreRecommendations': true,
          'telemetry.telemetryLevel': 'off',
          'chat.disableAIFeatures': true,
        },
      },
      null,
      2,
    ),
  );
  return { root, handbook, notes, workspaceFile, python };
}

/** file:// URI of a path, encoded as LSP clients send it. */
export function fileUri(path: string): string {
  return pathToFileURL(path).href;
}

if (require.main === module) {
  const [dest, python] = process.argv.slice(2);
  if (!dest) {
    process.stderr.write('usage: node out/test/fixture.js DEST_DIR [PYTHON]\n');
    process.exit(2);
  }
  process.stdout.write(`${JSON.stringify(makeWorkspace(dest, python || defaultPython()))}\n`);
}
