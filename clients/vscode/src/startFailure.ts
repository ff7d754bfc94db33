/**
 * Why the server stopped while it started, in words a user can act on. The language client reports a server that
 * exits before it answers `initialize` as "Pending response rejected since connection got disposed"; the reason is
 * the Python exception the server printed on stderr, which the client copies into the output channel. A channel
 * wrapped by `RecordingChannel` keeps the end of that text, and `pythonError` reads the exception's last line from
 * it ("ModuleNotFoundError: No module named 'lsprotocol'": a Python that can import ragls but not its libraries).
 * Pure code apart from the channel it wraps, so the wire test can run `pythonError` without VS Code.
 */
import type * as vscode from 'vscode';

/** The last line of the last Python traceback in `text` ("ValueError: ..."), or undefined when there is none. */
export function pythonError(text: string): string | undefined {
  const at = text.lastIndexOf('Traceback (most recent call last):');
  if (at < 0) {
    return undefined;
  }
  // After the frames (indented lines): the exception's own line, e.g. "ModuleNotFoundError: No module named 'x'".
  const lines = text.slice(at).split('\n').slice(1);
  const line = lines.find((l) => /^[A-Za-z_][\w.]*(Error|Exception|Exit|Interrupt|Warning)\b/.test(l));
  return line?.trim();
}

/** What to do about `error` (a `pythonError` line) of the server started as `command`: an import that fails is an
 * incomplete install in that Python; anything else is for the log. */
export function startFailureMessage(error: string, command: string): string {
  const missing = /^(ModuleNotFoundError|ImportError)\b/.test(error);
  const what = missing
    ? ` — the Python that runs it (${command}) lacks a library ragls needs: install ragls there again ` +
      "(`python -m pip install '/path/to/ragls[offline]'`), or set `ragls.server.pythonPath` to the Python that has it"
    : '';
  return `ragls: the server stopped while starting: ${error}${what}. Output → ragls has the whole log.`;
}

/** The one message of a server that stopped again and again after it had run, which the language client no longer
 * restarts (its default handler: 5 restarts in 3 minutes), in ragls' words and with `error` (a `pythonError`
 * line of the last run) when there is one; the language client's own said "The ragls server crashed 5 times in
 * the last 3 minutes. The server will not be restarted. See the output for more information." */
export function crashedMessage(error: string | undefined): string {
  const why = error ? `: ${error}` : '';
  return `ragls: the server stopped 5 times in 3 minutes and is not started again${why}. ` +
    'Output → ragls has the whole log; “ragls: Restart Server” starts it again.';
}

/**
 * An output channel that passes everything on to `channel` and keeps the last `keep` characters written since
 * `reset()`, for `pythonError`. `onText` is called after each write (the text kept so far).
 */
export class RecordingChannel {
  private recent = '';
  onText: ((recent: string) => void) | undefined;

  constructor(
    private readonly channel: vscode.OutputChannel,
    private readonly keep = 8000,
  ) {}

  /** The text kept since the last `reset()`. */
  get text(): string {
    return this.recent;
  }

  /** Forget what was kept (a new start of the server). */
  reset(): void {
    this.recent = '';
  }

  /** `channel` with its writes recorded: the object to give the language client. */
  get wrapped(): vscode.OutputChannel {
    const record = (text: string): void => {
      this.recent = (this.recent + text).slice(-this.keep);
      this.onText?.(this.recent);
    };
    return new Proxy(this.channel, {
      get: (target, prop, receiver) => {
        if (prop === 'append') {
          return (value: string) => {
            target.append(value);
            record(value);
          };
        }
        if (prop === 'appendLine') {
          return (value: string) => {
            target.appendLine(value);
            record(`${value}\n`);
          };
        }
        const value = Reflect.get(target, prop, receiver) as unknown;
        return typeof value === 'function' ? (value as (...a: unknown[]) => unknown).bind(target) : value;
      },
    });
  }
}
