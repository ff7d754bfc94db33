/**
 * VS Code's own Chat view, where the editor has one: the `@ragls` chat participant (answers streamed as markdown,
 * each source as a `reference` with its range, follow-ups) and the language-model tools that agent mode can call
 * (chat/tools.ts: ragls_search, ragls_ask, ragls_read_passage, ragls_index_status). Both are feature-detected at
 * run time (`vscode.chat.createChatParticipant`, `vscode.lm.registerTool`) so an editor without a chat provider (code-server, VSCodium, older VS Code) just keeps the ragls chat webview.
 *
 * The API objects are typed loosely here on purpose: the extension builds against @types/vscode 1.91, which
 * predates the language-model tool API.
 */
import * as vscode from 'vscode';
import { sourceLabel } from '../answer';
import { AskDeltaProgress, AskRequest, AskResult, HistoryTurn } from '../protocol';
import type { ServerManager } from '../server';
import { registerTools, ToolName } from './tools';

export const PARTICIPANT_ID = 'ragls.chat';

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
      const text = turn.response
        .map((part: any) => (typeof part?.value?.value === 'string' ? part.value.value : ''))
        .join('');
      if (text.trim() && out.length && out[out.length - 1].role === 'user') {
        out.push({ role: 'assistant', content: text });
      }
    }
  }
  return out;
}

function toLocation(source: AskResult['sources'][number]): vscode.Location {
  const r = source.range;
  return new vscode.Location(
    vscode.Uri.parse(source.uri),
    new vscode.Range(r.start.line, r.start.character, r.end.line, r.end.character),
  );
}

/** Register the participant and the tool when this VS Code has the APIs; returns what was registered. */
export function registerChatIntegrations(context: vscode.ExtensionContext, server: ServerManager): ChatIntegrations {
  const api = vscode as any;
  const done: ChatIntegrations = { participant: false, tool: false, tools: [] };
  if (typeof api.chat?.createChatParticipant === 'function') {
    try {
      const participant = api.chat.createChatParticipant(
        PARTICIPANT_ID,
        async (request: any, chatContext: any, stream: any, token: vscode.CancellationToken) => {
          const history = historyFromContext(chatContext);
          const result = await server.withProgressToken(
            AskDeltaProgress,
            (value) => stream.markdown(value.delta),
            (tok) =>
              server.request(
                AskRequest,
                { question: request.prompt, partialResultToken: tok, ...(history.length ? { history } : {}) },
                token,
              ),
          );
          if (result.error) {
            stream.markdown(`\n\n> The LLM failed, so this is an extractive answer: ${result.error.message}`);
          }
          for (const source of result.sources) {
            stream.reference(toLocation(source));
          }
          return { metadata: { sources: result.sources.map((s) => ({ n: s.n, label: sourceLabel(s), title: s.title })) } };
        },
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
