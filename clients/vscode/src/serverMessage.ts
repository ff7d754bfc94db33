/**
 * How the extension shows a server's `window/showMessage` (LSP's MessageType: 1 Error, 2 Warning, 3 Info, 4 Log,
 * 5 Debug since LSP 3.18). Kept free of the `vscode` module so the wire test can assert it.
 */

/** A pop-up of that severity, or `output`: the line goes to the server's Output channel only. */
export type MessageShow = 'error' | 'warning' | 'information' | 'output';

/**
 * The pop-up for a showMessage of `type`: errors, warnings and information as pop-ups of their severity; a Log or
 * Debug message, or a type this client does not know, to the Output channel only (a pop-up per log line would
 * interrupt the user for what the spec calls a log message).
 */
export function messageShow(type: number): MessageShow {
  return type === 1 ? 'error' : type === 2 ? 'warning' : type === 3 ? 'information' : 'output';
}
