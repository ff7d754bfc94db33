/**
 * Chat History's quick pick items (the chat view's `showHistory`, view.ts): one per stored thread, labelled by its
 * first question.
 */
import type * as vscode from 'vscode';
import type { ChatThread } from './thread';
import { counted } from '../words';

/** A chat history pick item: one stored thread. */
export interface ThreadItem extends vscode.QuickPickItem {
  id: string;
}

/** `text` on one line (runs of whitespace as one space), trimmed. */
export function oneLine(text: string): string {
  return text.replace(/\s+/g, ' ').trim();
}

/** When a thread started, short: its time today ("09:46"), else its day ("Dec 3"), or its year's too. */
function startedAt(ms: number, now = new Date()): string {
  const d = new Date(ms);
  if (d.toDateString() === now.toDateString()) {
    return d.toLocaleTimeString(undefined, { hour: '2-digit', minute: '2-digit' });
  }
  const year = d.getFullYear() === now.getFullYear() ? undefined : 'numeric';
  return d.toLocaleDateString(undefined, { month: 'short', day: 'numeric', year });
}

/** The history pick's item for `thread`: first question, "current · 3 questions · 09:46", the latest question. */
export function threadItem(thread: ChatThread, current: boolean): ThreadItem {
  const n = thread.turns.length;
  const first = oneLine(thread.turns[0]?.shown ?? '') || 'New chat';
  const parts = [...(current ? ['current'] : []), ...(n ? [counted(n, 'question'), startedAt(thread.createdAt)] : [])];
  return {
    id: thread.id,
    label: `$(${current ? 'comment-discussion' : 'history'}) ${first}`,
    description: parts.join(' · '),
    detail: n > 1 ? `latest: ${oneLine(thread.turns[n - 1].shown)}` : undefined,
  };
}
