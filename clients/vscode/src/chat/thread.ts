/**
 * The chat model, free of UI: a thread of turns, the `history` a follow-up sends (docs/protocol.md), and the last
 * threads kept per workspace in `workspaceState`.
 *
 * Every turn carries its own `requestId`; the view applies a delta or a result only to the turn whose id the
 * request was started with, so a stale stream can never write into a newer turn (and two overlapping asks each
 * fill their own turn).
 */
import type { AskResult, HistoryTurn } from '../protocol';

export type TurnStatus = 'waiting' | 'streaming' | 'done' | 'stopped' | 'error';

export interface ChatTurn {
  /** Unique per window session; tags the request, its deltas and its result. */
  requestId: number;
  /** The question sent to the server (may include a selection). */
  question: string;
  /** What the thread shows as the heading (the selection is summarised as path:lines). */
  shown: string;
  /** Markdown streamed so far, then the final answer. */
  markdown: string;
  /** Every delta joined, exactly as received (tests compare it with the final answer). */
  streamed: string;
  status: TurnStatus;
  result?: AskResult;
  /** The request failed (the user-facing sentence); the turn has no result. */
  error?: string;
  /** The server process ended before it answered (the language client starts it again): Retry and Show Output,
   * not the answer settings. */
  serverStopped?: boolean;
  /** `documents` sent with the question (e.g. the selection's file); Retry sends them again. */
  documents?: string[];
  /** A note shown under the answer, e.g. that the index was still being built while it was answered. */
  note?: string;
}

export interface ChatThread {
  id: string;
  turns: ChatTurn[];
  createdAt: number;
}

/** How many threads the workspace keeps (the current one and the ones before it). */
export const MAX_THREADS = 10;
/** Turns kept per stored thread (the server summarises older ones anyway; see generation.memory_max_turns). */
export const MAX_STORED_TURNS = 50;
export const STATE_KEY = 'ragls.chat.threads';

export function newThread(): ChatThread {
  return { id: `t${Date.now().toString(36)}${Math.random().toString(36).slice(2, 6)}`, turns: [], createdAt: Date.now() };
}

/**
 * `history` for the next question: each finished turn's question and answer, oldest first. Stopped, failed and
 * abstained turns are left out (nothing the user saw completed, or nothing answered).
 */
export function historyOf(thread: ChatThread): HistoryTurn[] {
  const out: HistoryTurn[] = [];
  for (const turn of thread.turns) {
    if (turn.status === 'done' && turn.result && !turn.result.abstained) {
      out.push({ role: 'user', content: turn.question }, { role: 'assistant', content: turn.result.answer });
    }
  }
  return out;
}

/** Minimal `Memento` (vscode.ExtensionContext.workspaceState) so this module stays testable without VS Code. */
export interface StateStore {
  get<T>(key: string): T | undefined;
  update(key: string, value: unknown): Thenable<void>;
}

interface Stored {
  threads: ChatThread[];
}

/** Threads stored in the workspace: the current one first. A turn still streaming is stored as stopped. */
export class ThreadStore {
  constructor(private readonly state: StateStore) {}

  load(): ChatThread[] {
    const stored = this.state.get<Stored>(STATE_KEY);
    const threads = Array.isArray(stored?.threads) ? stored.threads : [];
    return threads.filter((t) => t && Array.isArray(t.turns)).slice(0, MAX_THREADS);
  }

  save(threads: ChatThread[]): Thenable<void> {
    const clean = threads.slice(0, MAX_THREADS).map((t) => ({
      ...t,
      turns: t.turns.slice(-MAX_STORED_TURNS).map((turn) => ({
        ...turn,
        status: turn.status === 'streaming' || turn.status === 'waiting' ? ('stopped' as const) : turn.status,
      })),
    }));
    return this.state.update(STATE_KEY, { threads: clean } satisfies Stored);
  }
}
