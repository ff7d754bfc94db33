/**
 * The language-model tools agent mode can call (`vscode.lm.registerTool`, declared under `languageModelTools` in
 * package.json): the MCP tools of `ragls mcp` (server/ragls/mcp/server.py) under VS Code's tool-name rules —
 *
 *   ragls_search        {query, top_k?, rag?}              ≙ search_docs
 *   ragls_ask           {question, top_k?, rag?}           ≙ ask_docs
 *   ragls_read_passage  {path, start_line?, end_line?}     ≙ read_passage
 *   ragls_index_status  {}                                 ≙ index_status
 *
 * Each tool is one `rag/tool` request: the server runs the MCP tool of that name (server/ragls/answer/agent_tools.py)
 * and returns its text for the model, with document text quoted in `<passage>` elements by the server's one
 * quoting function (`answer.template.quote_passage`) under a note that it is data, never instructions — this
 * extension neither formats nor quotes anything. Inputs use the MCP tools' property names (`topK`, `startLine`,
 * `endLine` are still accepted). A server error (a path outside the indexed folders, an unknown knowledge base, a
 * missing argument) comes back as the error's message, which the model can act on.
 */
import * as vscode from 'vscode';
import { ToolRequest } from '../protocol';
import type { ServerManager } from '../server';

export const TOOL_NAMES = ['ragls_search', 'ragls_ask', 'ragls_read_passage', 'ragls_index_status'] as const;
export type ToolName = (typeof TOOL_NAMES)[number];

/* eslint-disable @typescript-eslint/no-explicit-any */

/** The tool's input as the server takes it: an object (anything else becomes `{}`, which the server refuses with
 * the field it misses). */
function args(input: any): Record<string, unknown> {
  return input && typeof input === 'object' && !Array.isArray(input) ? input : {};
}

/** The text a tool returns to the model: the server's (`rag/tool`); an error becomes its message. */
export async function runTool(server: ServerManager, name: ToolName, input: any, token?: vscode.CancellationToken): Promise<string> {
  try {
    return (await server.request(ToolRequest, { name, arguments: args(input) }, token)).text;
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    return `ragls could not ${name === 'ragls_read_passage' ? 'read that passage' : 'answer'}: ${message}`;
  }
}

function invocationMessage(name: ToolName, input: any): string {
  switch (name) {
    case 'ragls_search':
      return `Searching the project docs for “${String(input?.query ?? '')}”`;
    case 'ragls_ask':
      return `Asking the project docs: “${String(input?.question ?? '')}”`;
    case 'ragls_read_passage':
      return `Reading ${String(input?.path ?? '')}`;
    case 'ragls_index_status':
      return 'Checking what ragls has indexed';
  }
}

/** Register every tool this VS Code accepts; returns the names registered (none without the API). */
export function registerTools(context: vscode.ExtensionContext, server: ServerManager): ToolName[] {
  const api = vscode as any;
  if (typeof api.lm?.registerTool !== 'function' || typeof api.LanguageModelToolResult !== 'function') {
    return [];
  }
  const registered: ToolName[] = [];
  for (const name of TOOL_NAMES) {
    try {
      context.subscriptions.push(
        api.lm.registerTool(name, {
          prepareInvocation(options: any) {
            return { invocationMessage: invocationMessage(name, options?.input) };
          },
          async invoke(options: any, token: vscode.CancellationToken) {
            const text = await runTool(server, name, options?.input, token);
            return new api.LanguageModelToolResult([new api.LanguageModelTextPart(text)]);
          },
        }),
      );
      registered.push(name);
    } catch {
      // Not declared in package.json or refused by this VS Code: the other tools still register.
    }
  }
  return registered;
}
