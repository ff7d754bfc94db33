/**
 * First run: "ragls: Choose How Answers Are Written" (a step of the walkthrough in package.json) writes the
 * answer settings for Ollama, an OpenAI-compatible server, Anthropic, or none (extractive answers), and
 * `openSettings` opens the Settings UI on the right tab in local and remote windows (code-server, SSH, WSL,
 * Codespaces keep `machine-overridable` settings such as `ragls.server.*` on the Remote tab).
 */
import * as vscode from 'vscode';

export type AnswerBackend = 'ollama' | 'openai' | 'anthropic' | 'none';

interface BackendItem extends vscode.QuickPickItem {
  backend: AnswerBackend;
}

export const BACKEND_ITEMS: BackendItem[] = [
  { label: '$(server) Ollama', description: 'local models', detail: 'Runs models on this machine (ollama serve; ollama pull llama3.2).', backend: 'ollama' },
  {
    label: '$(globe) OpenAI-compatible server',
    description: 'OpenAI, LM Studio, llama.cpp, vLLM, …',
    detail: 'A base URL, a model name, and the name of the environment variable holding the API key.',
    backend: 'openai',
  },
  { label: '$(comment-discussion) Anthropic', description: 'Claude', detail: 'The API key is read from ANTHROPIC_API_KEY.', backend: 'anthropic' },
  { label: '$(quote) None', description: 'extractive answers', detail: 'No LLM: answers quote the passages that match best.', backend: 'none' },
];

/** The settings (under `ragls.`) a choice writes; undefined values are reset. */
export function backendSettings(
  backend: AnswerBackend,
  model?: string,
  baseUrl?: string,
  apiKeyEnv?: string,
): Record<string, string | undefined> {
  return {
    'generation.backend': backend,
    'generation.model': backend === 'none' ? undefined : model || undefined,
    'generation.baseUrl': backend === 'openai' ? baseUrl || undefined : undefined,
    'generation.apiKeyEnv': backend === 'openai' ? apiKeyEnv || undefined : undefined,
  };
}

/** Ask which backend writes answers (and its model / URL), then save the settings (user level). */
export async function chooseAnswerBackend(): Promise<AnswerBackend | undefined> {
  const picked = await vscode.window.showQuickPick(BACKEND_ITEMS, {
    title: 'ragls: how should answers be written?',
    ignoreFocusOut: true,
  });
  if (!picked) {
    return undefined;
  }
  let model: string | undefined;
  let baseUrl: string | undefined;
  let apiKeyEnv: string | undefined;
  if (picked.backend === 'openai') {
    baseUrl = await vscode.window.showInputBox({
      title: 'ragls: base URL of the OpenAI-compatible server',
      value: 'https://api.openai.com/v1',
      prompt: 'e.g. http://localhost:1234/v1 for LM Studio, http://localhost:8080/v1 for llama.cpp',
      ignoreFocusOut: true,
    });
    if (baseUrl === undefined) {
      return undefined;
    }
    apiKeyEnv = await vscode.window.showInputBox({
      title: 'ragls: environment variable holding the API key (never the key itself)',
      value: 'OPENAI_API_KEY',
      ignoreFocusOut: true,
    });
  }
  if (picked.backend !== 'none') {
    model = await vscode.window.showInputBox({
      title: 'ragls: model name',
      prompt: 'Empty: the server default for this backend',
      value: picked.backend === 'ollama' ? 'llama3.2' : '',
      ignoreFocusOut: true,
    });
    if (model === undefined) {
      return undefined;
    }
  }
  const cfg = vscode.workspace.getConfiguration('ragls');
  for (const [key, value] of Object.entries(backendSettings(picked.backend, model, baseUrl, apiKeyEnv))) {
    await cfg.update(key, value, vscode.ConfigurationTarget.Global);
  }
  void vscode.window.showInformationMessage(`ragls: answers now come from ${picked.label.replace(/^\$\([^)]*\)\s*/, '')}.`);
  return picked.backend;
}

/** Open the Settings UI filtered to `query`, on the Remote tab in a remote window. */
export function openSettings(query = '@ext:ragls.ragls-vscode'): Thenable<unknown> {
  const command = vscode.env.remoteName ? 'workbench.action.openRemoteSettings' : 'workbench.action.openSettings';
  return vscode.commands.executeCommand(command, query);
}
