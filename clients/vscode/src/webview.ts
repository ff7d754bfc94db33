/**
 * What the webviews (the chat view `chat/view.ts` and its page `chat/page.ts`, and the markdown renderer in
 * `answer.ts`) share: HTML escaping and the strict Content-Security-Policy of a webview page (nothing loads but the
 * page's own nonce'd style and script).
 */
import { randomBytes } from 'node:crypto';
import type * as vscode from 'vscode';

/** `text` safe inside HTML text and attribute values (& < > " ' escaped). */
export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!);
}

/**
 * A fresh nonce and the CSP that allows only styles and scripts carrying it (plus the webview's own and data:
 * images); no fonts, connections, frames or form posts.
 */
export function webviewPolicy(webview: vscode.Webview): { nonce: string; csp: string } {
  const nonce = randomBytes(16).toString('base64');
  const csp = [
    "default-src 'none'",
    `style-src 'nonce-${nonce}'`,
    `script-src 'nonce-${nonce}'`,
    `img-src ${webview.cspSource} data:`,
    "font-src 'none'",
    "connect-src 'none'",
    "frame-src 'none'",
    "form-action 'none'",
  ].join('; ');
  return { nonce, csp };
}
