/**
 * VS Code's own Chat view, where the editor has one: the `@ragls` chat participant (answers streamed as markdown,
 * each source as a `reference` with its range, follow-ups) and the language-model tools that agent mode can call
 * (chat/tools.ts: ragls_search, ragls_ask, ragls_read_passage, ragls_index_status). Both are feature-detected at
 * run time (`vscode.chat.createChatParticipant`, `vscode.lm.registerTool`) so an editor without the API
 * (VSCodium, older VS Code) just keeps the ragls chat view. `@ragls` answers from the ragls server, not from VS
 * Code's chat model, and every reply (an error too) has a button to the ragls view, which needs no chat model.
 *
 * The API objects are typed loosely here on purpose: the extension builds against @types/vscode 1.91, which
 * predates the language-model tool API.
 */
import * as vscode from 'vscode';
import { answerBody, sourceLabel, withoutLabel } from '../answer';
import { focusOf } from '../decorations';
import { AskDeltaProgress, AskRequest, AskResult, HistoryTurn } from '../protocol';
import type { ServerManager } from '../server';
import { registerTools, ToolName } from './tools';
import { answerFooter } from './turnHtml';

export const PARTICIPANT_ID = 'ragls.chat';
/** Reveals the ragls chat view (VS Code's `<view id>.focus` command of ChatView.viewType). */
export const OPEN_VIEW_COMMAND = 'ragls.chat.focus';

/** What was registered (tests and the output channel read it). */
export interface ChatIntegrations {
  participant: boolean;
  /** At least one language-model tool registered. */
  tool: boolean;
  /** The language-model tools registered (chat/tools.ts). */
  tools: ToolName[];
}

/* eslint-disable @typescript-eslint/no-explicit-any */

/** The question/answer pairs of earlier `@ragls` turns in VS Code's chat history. */
function historyFromContext(context: any): HistoryTurn[] {
  const out: HistoryTurn[] = [];
  for (const turn of context?.history ?? []) {
    if (turn?.participant !== PARTICIPANT_ID) {
      continue;
    }
    if (typeof turn.prompt === 'string') {
      out.push({ role: 'user', content: turn.prompt });
    } else if (Array.isArray(turn.response)) {
      // The answer as this participant kept it (without the footer and notes), else the reply's markdown.
      const kept = turn.result?.metadata?.answer;
      const text = typeof kept === 'string' ? kept : turn.response
        .map((part: any) => (typeof part?.value?.value === 'string' ? part.value.value : ''))
        .join('');
      if (text.trim() && out.length && out[out.length - 1].role === 'user') {
        out.push({ role: 'assistant', content: text });
      }
    }
  }
  return out;
}

/** A source as a chat reference: its cited lines (`focusRange`, else the chunk's range), where the ragls view opens it. */
function toLocation(source: AskResult['sources'][number]): vscode.Location {
  const r = focusOf(source);
  return new vscode.Location(
    vscode.Uri.parse(source.uri),
    new vscode.Range(r.start.line, r.start.character, r.end.line, r.end.character),
  );
}

/**
 * The answer's pieces as a `@ragls` reply streams them, one piece behind: VS Code's chat keeps whatever was streamed,
 * and an extractive answer (one piece, sent just before the result) opens with the label line the result then names
 * (rag/ask `label`), which the reply leaves out as the chat view does (its footer says who wrote the answer). A piece
 * goes out when the next one arrives, the last one at `finish`.
 */
export class PieceBehind {
  private held = '';
  /** Whether any piece arrived (a server that does not stream sends none: `finish` writes the whole answer). */
  streamed = false;

  constructor(private readonly write: (markdown: string) => void) {}

  push(piece: string): void {
    if (this.held) {
      this.write(this.held);
    }
    this.held = piece;
    this.streamed = true;
  }

  /** Write the held piece, without `label` when it opens with it (`undefined`: as it is). */
  finish(label?: string): void {
    const text = withoutLabel(this.held, label);
    this.held = '';
    if (text.trim()) {
      this.write(text);
    }
  }
}

/** Markdown's special characters in `text` escaped (a model's name in the footer is text, not markup). */
function plainMarkdown(text: string): string {
  return text.replace(/[\\`*_[\]<>]/g, '\\$&');
}

/**
 * Answer one `@ragls` request into VS Code's chat `stream`: the answer streamed (without the extractive label line),
 * then any LLM error, the footer (who wrote it, how long it took: answerFooter, as the chat view's), each source as a
 * reference and a button to the ragls view. Returns the participant's result (metadata: the sources, for the
 * follow-ups, and the answer's body, for the history of later turns).
 */
export async function answerInChat(
  server: ServerManager,
  request: any,
  chatContext: any,
  stream: any,
  token: vscode.CancellationToken,
): Promise<any> {
  // The answer comes from the ragls server, never from VS Code's chat model (`request.model` is not used):
  // it works with any chat provider, or none; each answer also offers the ragls view, which needs none.
  const viewButton = () => {
    if (typeof stream.button === 'function') {
      stream.button({ command: OPEN_VIEW_COMMAND, title: 'Open the ragls view' });
    }
  };
  const history = historyFromContext(chatContext);
  const pieces = new PieceBehind((markdown) => stream.markdown(markdown));
  let result: AskResult;
  try {
    result = await server.withProgressToken(
      AskDeltaProgress,
      (value) => pieces.push(value.delta),
      (tok) =>
        server.request(
          AskRequest,
          { question: request.prompt, partialResultToken: tok, ...(history.length ? { history } : {}) },
          token,
        ),
    );
  } catch (error) {
    if (token.isCancellationRequested) {
      return {};
    }
    pieces.finish();
    // What went wrong and where to go on: the ragls view (Retry, Open Settings) rather than a bare refusal.
    const message = error instanceof Error ? error.message : String(error);
    stream.markdown(`${pieces.streamed ? '\n\n' : ''}ragls could not answer: ${message}\n\nThe ragls view (secondary side bar) has the same answers, with Retry and the settings.`);
    viewButton();
    return { errorDetails: { message } };
  }
  const body = answerBody(result);
  if (pieces.streamed) {
    pieces.finish(result.label);
  } else {
    stream.markdown(body);
  }
  if (result.error) {
    stream.markdown(`\n\n> The LLM failed, so this is an extractive answer: ${result.error.message}`);
  }
  stream.markdown(`\n\n*${plainMarkdown(answerFooter(result))}*`);
  for (const source of result.sources) {
    stream.reference(toLocation(source));
  }
  viewButton();
  return {
    metadata: { answer: body, sources: result.sources.map((s) => ({ n: s.n, label: sourceLabel(s), title: s.title })) },
  };
}

/** Register the participant and the tool when this VS Code has the APIs; returns what was registered. */
export function registerChatIntegrations(context: vscode.ExtensionContext, server: ServerManager): ChatIntegrations {
  const api = vscode as any;
  const done: ChatIntegrations = { participant: false, tool: false, tools: [] };
  if (typeof api.chat?.createChatParticipant === 'function') {
    try {
      const participant = api.chat.createChatParticipant(
        PARTICIPANT_ID,
        (request: any, chatContext: any, stream: any, token: vscode.CancellationToken) =>
          answerInChat(server, request, chatContext, stream, token),
      );
      participant.followupProvider = {
        provideFollowups(result: any) {
          const sources: { title?: string }[] = result?.metadata?.sources ?? [];
          return sources
            .filter((s) => s.title)
            .slice(0, 2)
            .map((s) => ({ prompt: `Tell me more about ${s.title}`, label: `More on ${s.title}` }));
        },
      };
      context.subscriptions.push(participant);
      done.participant = true;
    } catch {
      // A chat API that exists but refuses (no chat provider): the webview stays the way to chat.
    }
  }
  done.tools = registerTools(context, server);
  done.tool = done.tools.length > 0;
  return done;
}
