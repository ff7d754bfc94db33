/**
 * The question before a long first index (docs/protocol.md, Server start): before the server starts at activation,
 * `ragls estimate --json` tells each workspace folder's files, chunks and embedding time without indexing anything
 * or loading a model; when a folder not indexed yet would take longer than `ragls.indexConfirmMinutes` (default 10)
 * the user is asked first, as Neovim's client does (`index_confirm_minutes`). "Not Now" leaves the server stopped
 * until a ragls command needs it. No `vscode` import: the wire layer can test it.
 */
import { execFile } from 'node:child_process';

/** `ragls estimate --json` (the fields the question uses). */
export interface Estimate {
  folder: string;
  files: number;
  chunks: number;
  /** Embedding time on a quiet 2-core machine. */
  seconds: number;
  indexed: boolean;
  /** Newer servers: the whole first index (start-up included) at the machine's current load. */
  wallSeconds?: number;
}

/**
 * The estimate command for `folder` from the server's launch (`ragls ... serve ...` → `ragls ... estimate --json
 * [--settings JSON] folder`); undefined when the launch has no `serve` argument (an unknown launcher: no question).
 */
export function estimateArgs(args: string[], folder: string, settings: Record<string, unknown>): string[] | undefined {
  const at = args.indexOf('serve');
  if (at < 0) {
    return undefined;
  }
  const withSettings = Object.keys(settings).length ? ['--settings', JSON.stringify(settings)] : [];
  return [...args.slice(0, at), 'estimate', '--json', ...withSettings, folder];
}

/** Run the estimate in `cwd` (the launch's: never a workspace folder, launch.ts); undefined when it fails (an older
 * server without `estimate`: the server then says what is wrong, if anything) or does not answer within `timeoutMs`. */
export function runEstimate(command: string, args: string[], env: NodeJS.ProcessEnv, cwd: string, timeoutMs = 30_000):
  Promise<Estimate | undefined> {
  return new Promise((resolve) => {
    execFile(command, args, { env, cwd, timeout: timeoutMs, maxBuffer: 1 << 20 }, (error, stdout) => {
      if (error) {
        resolve(undefined);
        return;
      }
      try {
        const est = JSON.parse(String(stdout)) as Estimate;
        resolve(typeof est === 'object' && est !== null && typeof est.seconds === 'number' ? est : undefined);
      } catch {
        resolve(undefined);
      }
    });
  });
}

/** "about 14 min", "about 40 s", "about 1.5 h" (Neovim's root.human_duration). */
export function humanDuration(seconds: number): string {
  if (seconds >= 5400) {
    return `about ${(seconds / 3600).toFixed(1)} h`;
  }
  if (seconds >= 90) {
    return `about ${Math.round(seconds / 60)} min`;
  }
  return `about ${Math.max(1, Math.round(seconds))} s`;
}

/** The estimates of folders not indexed yet that take longer than `minutes` to embed. */
export function longFirstIndexes(estimates: (Estimate | undefined)[], minutes: number): Estimate[] {
  return estimates.filter((e): e is Estimate => !!e && !e.indexed && e.seconds > minutes * 60);
}

/** The question: each long folder's files, sections and embedding time (and the whole first index at the current
 * load when the server says). */
export function firstIndexQuestion(long: Estimate[], name: (folder: string) => string): string {
  const parts = long.map((e) => {
    const now = typeof e.wallSeconds === 'number' ? `, ${humanDuration(e.wallSeconds)} now with start-up` : '';
    return `${name(e.folder)}: ${e.files} files, ~${e.chunks} sections, ${humanDuration(e.seconds)} to embed on a quiet machine${now}`;
  });
  return `ragls: first index of ${parts.join('; ')}. Index it now?`;
}
