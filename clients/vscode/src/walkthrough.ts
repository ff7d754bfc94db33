/**
 * First run: "ragls: Choose How Answers Are Written" (a step of the walkthrough in package.json) writes the answer
 * settings for a local OpenAI-compatible server (LM Studio, llama.cpp, vLLM, Jan: no key, the `external` backend),
 * Ollama, OpenAI (or another keyed OpenAI-compatible API), Anthropic, or none (extractive answers).
 *
 * For a server with a base URL the connection is tested before anything is saved: the server's `rag/models`
 * (`GET <baseUrl>/models`, without a key first) lists the models to pick from, or says what went wrong. Runtimes
 * already listening on their default ports are offered first. The probing is the server's; this file only asks.
 *
 * `openSettings` opens the Settings UI filtered to ragls settings, on the Remote tab for the machine-scoped
 * `ragls.server.*` in a remote window (code-server, SSH, WSL, Codespaces). `revealChatOnFirstRun` shows the chat
 * view once in a new workspace where VS Code's own Chat view would be an empty pane.
 */
import * as vscode from 'vscode';
import type { LlmServer, ModelsParams } from './protocol';

export type AnswerBackend = 'external' | 'ollama' | 'openai' | 'anthropic' | 'none';

/** A choice of the first quick pick: a kind of backend, or a runtime found listening. */
export type SetupKind = 'local' | 'ollama' | 'openai' | 'anthropic' | 'none';

interface KindItem extends vscode.QuickPickItem {
  choice: SetupKind;
  /** A runtime found listening (its base URL and models are known already). */
  found?: LlmServer;
}

export const KIND_ITEMS: KindItem[] = [
  {
    label: '$(vm) Local OpenAI-compatible server',
    description: 'LM Studio, llama.cpp, vLLM, Jan… — no API key',
    detail: 'A base URL such as http://localhost:1234/v1; the models are read from the server.',
    choice: 'local',
  },
  { label: '$(server) Ollama', description: 'local models', detail: 'ollama serve; ollama pull llama3.2', choice: 'ollama' },
  {
    label: '$(globe) OpenAI or another API with a key',
    description: 'OpenAI, OpenRouter, Groq, …',
    detail: 'A base URL and the name of the environment variable holding the key (never the key itself).',
    choice: 'openai',
  },
  { label: '$(comment-discussion) Anthropic', description: 'Claude', detail: 'The key is read from ANTHROPIC_API_KEY.', choice: 'anthropic' },
  { label: '$(quote) None', description: 'extractive answers', detail: 'No LLM: answers quote the passages that match best.', choice: 'none' },
];

/** Default base URL offered for each kind that has one. */
const DEFAULT_URLS: Partial<Record<SetupKind, string>> = {
  local: 'http://localhost:1234/v1',
  openai: 'https://api.openai.com/v1',
};

/** Answers given up front (tests, other extensions): each one skips its question. */
export interface SetupAnswers {
  kind?: SetupKind;
  baseUrl?: string;
  model?: string;
  /** Environment variable holding the key; "" for no key. */
  apiKeyEnv?: string;
  /** When the connection test fails: true saves anyway, false gives up; undefined asks. */
  saveAnyway?: boolean;
}

/** What was saved (undefined: cancelled). */
export interface SetupResult {
  backend: AnswerBackend;
  model?: string;
  baseUrl?: string;
  apiKeyEnv?: string;
  /** The models the connection test listed. */
  models?: string[];
}

/** The settings (under `ragls.`) a choice writes; undefined values are reset. */
export function backendSettings(
  backend: AnswerBackend,
  model?: string,
  baseUrl?: string,
  apiKeyEnv?: string,
): Record<string, string | undefined> {
  const withUrl = backend === 'openai' || backend === 'external';
  return {
    'generation.backend': backend,
    'generation.model': backend === 'none' ? undefined : model || undefined,
    'generation.baseUrl': withUrl ? baseUrl || undefined : undefined,
    'generation.apiKeyEnv': withUrl ? apiKeyEnv || undefined : undefined,
  };
}

/** Asks `rag/models` (the running server); throws when the server is not running. */
export type ModelsProbe = (params: ModelsParams) => Promise<LlmServer[]>;

/**
 * Ask which backend writes answers; for a base URL, test the connection and pick one of the models it lists; save
 * the settings (user level). Returns what was saved, undefined when cancelled. `now`: who writes the answers now
 * (status.ts answersLabel, "openai · gpt-4o-mini"), shown in the pick's input ("Now: …") so a change starts from it.
 */
export async function chooseAnswerBackend(probe: ModelsProbe, given: SetupAnswers = {}, now?: string): Promise<SetupResult | undefined> {
  let kind = given.kind;
  let found: LlmServer | undefined;
  if (!kind) {
    const running = await probe({}).catch(() => [] as LlmServer[]);
    const items: (KindItem | vscode.QuickPickItem)[] = [];
    if (running.length) {
      items.push({ label: 'Running on this machine', kind: vscode.QuickPickItemKind.Separator });
      for (const s of running) {
        items.push({
          label: `$(pass-filled) ${s.name}`,
          description: s.baseUrl,
          detail: s.models.length ? `models: ${s.models.slice(0, 6).join(', ')}${s.models.length > 6 ? ', …' : ''}` : 'no model listed',
          choice: s.backend === 'ollama' ? 'ollama' : 'local',
          found: s,
        } satisfies KindItem);
      }
      items.push({ label: 'Other choices', kind: vscode.QuickPickItemKind.Separator });
    }
    items.push(...KIND_ITEMS);
    const picked = (await vscode.window.showQuickPick(items, {
      title: 'ragls: who should write answers?',
      placeHolder: now ? `Now: ${now}` : undefined,
      ignoreFocusOut: true,
      matchOnDescription: true,
    })) as KindItem | undefined;
    if (!picked) {
      return undefined;
    }
    kind = picked.choice;
    found = picked.found;
  }
  if (kind === 'none' || kind === 'anthropic') {
    const model = kind === 'anthropic' ? await askModel(given, [], '') : undefined;
    if (model === undefined && kind === 'anthropic') {
      return undefined;
    }
    return save({ backend: kind, model: model || undefined });
  }
  if (kind === 'ollama') {
    const models = found?.models ?? [];
    const model = await askModel(given, models, 'llama3.2');
    return model === undefined ? undefined : save({ backend: 'ollama', model: model || undefined, models });
  }
  // A server with a base URL: local (no key) or keyed.
  let baseUrl = given.baseUrl ?? found?.baseUrl;
  let apiKeyEnv = given.apiKeyEnv ?? (kind === 'openai' ? undefined : '');
  for (;;) {
    if (baseUrl === undefined) {
      baseUrl = await vscode.window.showInputBox({
        title: 'ragls: base URL of the server',
        value: DEFAULT_URLS[kind],
        prompt: 'LM Studio http://localhost:1234/v1 · llama.cpp http://localhost:8080/v1 · vLLM http://localhost:8000/v1 · Jan http://localhost:1337/v1',
        ignoreFocusOut: true,
        validateInput: (v) => (/^https?:\/\/\S+$/.test(v.trim()) ? undefined : 'an http:// or https:// URL'),
      });
      if (baseUrl === undefined) {
        return undefined;
      }
      baseUrl = baseUrl.trim();
    }
    if (apiKeyEnv === undefined) {
      apiKeyEnv = await askKeyEnv();
      if (apiKeyEnv === undefined) {
        return undefined;
      }
    }
    const tested = await vscode.window.withProgress(
      { location: vscode.ProgressLocation.Notification, title: `ragls: testing ${baseUrl}` },
      () => probe({ baseUrl: baseUrl!, ...(apiKeyEnv ? { apiKeyEnv } : {}) }).then((s) => s[0], (e: unknown) => ({
        name: '', baseUrl: baseUrl!, backend: '', models: [], error: e instanceof Error ? e.message : String(e),
      } as LlmServer)),
    );
    if (!tested?.error) {
      const models = tested?.models ?? [];
      const model = await askModel(given, models, '');
      if (model === undefined) {
        return undefined;
      }
      // No key: the `external` backend (readiness check, the served model when none is named); a key: `openai`.
      const backend: AnswerBackend = apiKeyEnv || tested?.keyUsed ? 'openai' : 'external';
      return save({ backend, baseUrl, model: model || undefined, apiKeyEnv: apiKeyEnv || undefined, models });
    }
    if (given.saveAnyway !== undefined) {
      // Answers given up front: no dialog; saved only when asked to.
      void vscode.window.showWarningMessage(`ragls: the connection test failed: ${tested.error}`);
      return given.saveAnyway
        ? save({ backend: apiKeyEnv ? 'openai' : 'external', baseUrl, model: given.model, apiKeyEnv: apiKeyEnv || undefined })
        : undefined;
    }
    const needsKey = /needs an API key/.test(tested.error);
    const choice = await vscode.window.showWarningMessage(
      `ragls: the connection test failed: ${tested.error}`,
      { modal: false },
      'Edit URL',
      ...(needsKey ? ['Use a Key…'] : []),
      'Save Anyway',
    );
    if (choice === 'Edit URL') {
      baseUrl = undefined;
      given = { ...given, baseUrl: undefined };
    } else if (choice === 'Use a Key…') {
      apiKeyEnv = undefined;
      given = { ...given, apiKeyEnv: undefined };
    } else if (choice === 'Save Anyway') {
      const model = await askModel(given, [], '');
      if (model === undefined) {
        return undefined;
      }
      return save({ backend: apiKeyEnv ? 'openai' : 'external', baseUrl, model: model || undefined, apiKeyEnv: apiKeyEnv || undefined });
    } else {
      return undefined;
    }
  }
}

/** The model: the given one, a pick among `models` (or typed), else an input box; "" means the server's default. */
async function askModel(given: SetupAnswers, models: string[], fallback: string): Promise<string | undefined> {
  if (given.model !== undefined) {
    return given.model;
  }
  if (given.kind && models.length) {
    return models[0]; // answers given up front: the first model the server lists
  }
  if (models.length) {
    const typed = '$(edit) Type a model name…';
    const picked = await vscode.window.showQuickPick([...models, typed], {
      title: `ragls: which model? (${models.length} listed by the server)`,
      ignoreFocusOut: true,
    });
    if (picked !== typed) {
      return picked;
    }
  }
  return vscode.window.showInputBox({
    title: 'ragls: model name',
    prompt: 'Empty: the backend\'s default (the first model a local server lists)',
    value: fallback,
    ignoreFocusOut: true,
  });
}

/** The environment variable holding the key; "" for none; undefined when cancelled. */
async function askKeyEnv(): Promise<string | undefined> {
  const none = { label: '$(unlock) No key', description: 'the server needs none', value: '' };
  const env = { label: '$(key) A key in an environment variable…', description: 'e.g. OPENAI_API_KEY', value: 'env' };
  const picked = await vscode.window.showQuickPick([env, none], { title: 'ragls: API key', ignoreFocusOut: true });
  if (!picked) {
    return undefined;
  }
  if (!picked.value) {
    return '';
  }
  return vscode.window.showInputBox({
    title: 'ragls: name of the environment variable holding the key (never the key itself)',
    value: 'OPENAI_API_KEY',
    ignoreFocusOut: true,
    validateInput: (v) => (/^[A-Za-z_][A-Za-z0-9_]*$/.test(v.trim()) ? undefined : 'a variable name, e.g. OPENAI_API_KEY'),
  });
}

async function save(result: SetupResult): Promise<SetupResult> {
  const cfg = vscode.workspace.getConfiguration('ragls');
  for (const [key, value] of Object.entries(backendSettings(result.backend, result.model, result.baseUrl, result.apiKeyEnv))) {
    await cfg.update(key, value, vscode.ConfigurationTarget.Global);
  }
  const who = result.backend === 'none' ? 'quotes from your docs (no LLM)' : `${result.backend}${result.model ? ` (${result.model})` : ''}`;
  void vscode.window.showInformationMessage(`ragls: answers now come from ${who}.`);
  return result;
}

/**
 * Open the Settings UI filtered to ragls settings matching `query` (e.g. "ragls.generation"). `machine`: the
 * settings are machine-scoped (`ragls.server.*`), so a remote window opens its Remote tab.
 */
export function openSettings(query = '', machine = false): Thenable<unknown> {
  const filter = `@ext:ragls.ragls-vscode ${query}`.trim();
  const command = machine && vscode.env.remoteName ? 'workbench.action.openRemoteSettings' : 'workbench.action.openSettings';
  return vscode.commands.executeCommand(command, { query: filter });
}

/** workspaceState: the chat view was shown once on its own (`revealChatOnFirstRun`). */
const FIRST_RUN_KEY = 'ragls.chat.revealedOnFirstRun';
/** The extension that fills VS Code's own Chat view; without it that view is an empty pane. */
const COPILOT_CHAT = 'GitHub.copilot-chat';

/**
 * Whether VS Code's own Chat view has something to show: Copilot Chat is installed, or another extension contributes
 * chat models (`languageModelChatProviders`: a bring-your-own-key or local-model extension). A chat participant alone
 * does not count: without a model, VS Code's Chat view only offers to set up Copilot. `extensions`: VS Code's
 * installed extensions (`vscode.extensions.all`); read from their manifests, so nothing waits for them to activate
 * (`vscode.lm.selectChatModels()` did not answer within 10 s in code-server).
 */
export function chatViewIsServed(
  extensions: readonly { id: string; packageJSON?: { contributes?: Record<string, unknown> } }[],
): boolean {
  return extensions.some(
    (e) => e.id.toLowerCase() === COPILOT_CHAT.toLowerCase() || e.packageJSON?.contributes?.languageModelChatProviders !== undefined,
  );
}

/**
 * The first time ragls runs in a workspace, bring its chat view (`viewType`) into sight when VS Code's own Chat view
 * has nothing to show (`chatViewIsServed`): VS Code opens the Secondary Side Bar of a new workspace on that Chat
 * view, and it stayed an empty pane ("Drag a view here") beside a ragls tab nobody had clicked. Once per workspace
 * (`state`), so a view the user closed stays closed; the editor keeps the focus.
 */
export async function revealChatOnFirstRun(state: vscode.Memento, viewType: string): Promise<void> {
  if (state.get<boolean>(FIRST_RUN_KEY)) {
    return;
  }
  if (chatViewIsServed(vscode.extensions.all)) {
    return;
  }
  await state.update(FIRST_RUN_KEY, true);
  const editor = vscode.window.activeTextEditor;
  await vscode.commands.executeCommand(`${viewType}.focus`).then(undefined, () => undefined);
  if (editor) {
    await vscode.window.showTextDocument(editor.document, editor.viewColumn).then(undefined, () => undefined);
  }
}

/** The walkthrough steps (package.json `walkthroughs`) done by using ragls, not by a link of the step: the server
 * found and started, the first index built, a question asked or searched; their context keys. */
export const WALKTHROUGH_KEYS = { server: 'ragls.walkthrough.server', index: 'ragls.walkthrough.index', ask: 'ragls.walkthrough.ask' } as const;
/** The values a done step's key takes in turn (package.json: one `onContext:<key> == n` completion event each). */
export const KEY_VALUES = 6;
/** After a Welcome or walkthrough tab opens, when the done steps' keys take their next value (ms). */
const BUMPS_MS = [500, 2000, 5000, 10_000];

/** A tab of VS Code's Welcome page (its walkthroughs): "Welcome", "Walkthrough: Get started with ragls". */
export function isWelcomeTab(tab: { label: string }): boolean {
  return /^(welcome|walkthrough)\b/i.test(tab.label);
}

/**
 * Completes the walkthrough's steps the user did without its links (clients68: none of the four showed done after a
 * whole session). VS Code's Getting Started service hears a command or a context key change only once it exists —
 * code-server makes it when the Welcome page opens — and an `onContext:` event already true when it registers the
 * walkthrough is taken as seen without completing the step, for the rest of the session. So a done step's key
 * takes the values 1..KEY_VALUES in turn, one completion event each: set when the step is done, and moved on a few
 * times after a Welcome tab opens (BUMPS_MS), the next value is a change the service has not seen, whenever it
 * registered the walkthrough.
 */
export class WalkthroughProgress implements vscode.Disposable {
  private readonly values = new Map<string, number>();
  private timers: NodeJS.Timeout[] = [];
  private readonly subscription: vscode.Disposable;

  constructor() {
    this.subscription = vscode.window.tabGroups.onDidChangeTabs((e) => {
      if (this.values.size && !this.timers.length && [...e.opened, ...e.changed].some(isWelcomeTab)) {
        this.timers = BUMPS_MS.map((ms, n) => setTimeout(() => {
          this.bump();
          if (n === BUMPS_MS.length - 1) {
            this.timers = [];
          }
        }, ms));
      }
    });
  }

  /** The step is done (again: nothing changes). */
  mark(step: keyof typeof WALKTHROUGH_KEYS): void {
    const key = WALKTHROUGH_KEYS[step];
    if (!this.values.has(key)) {
      this.values.set(key, 1);
      void vscode.commands.executeCommand('setContext', key, 1);
    }
  }

  private bump(): void {
    for (const [key, value] of this.values) {
      const next = (value % KEY_VALUES) + 1;
      this.values.set(key, next);
      void vscode.commands.executeCommand('setContext', key, next);
    }
  }

  dispose(): void {
    this.timers.forEach(clearTimeout);
    this.subscription.dispose();
  }
}
