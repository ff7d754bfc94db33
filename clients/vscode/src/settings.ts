/**
 * The extension's settings (`ragls.*`).
 *
 * - `ragls.server.*` decide how the server starts (see launch.ts); changing them restarts it.
 * - `ragls.trace.server` is read by vscode-languageclient itself (client id "ragls").
 * - Everything else is passed through to the server: sent as `initializationOptions` and, on change, as
 *   `workspace/didChangeConfiguration` with `{ settings: { ragls: … } }`. Only values the user set (user,
 *   workspace or folder level) are sent, so a folder's `ragls.toml` is not overridden by unset defaults.
 */
import * as vscode from 'vscode';
import { ServerSettings } from './launch';

export const SECTION = 'ragls';

/**
 * Pass-through keys that point ragls at programs, endpoints, keys, paths outside the folder or a model download:
 * in restricted mode (an untrusted workspace) only their user-level value is sent — a cloned folder's
 * .vscode/settings.json must not set them. Also `restrictedConfigurations` in package.json.
 */
const RESTRICTED = [
  'embedding.model',
  'embedding.modelPath',
  'generation.backend',
  'generation.model',
  'generation.baseUrl',
  'generation.apiKeyEnv',
  'index.path',
] as const;

export const RESTRICTED_KEYS: ReadonlySet<string> = new Set(RESTRICTED);

/** Pass-through keys, as dotted paths under `ragls.` (the server accepts camelCase): the restricted ones and these. */
export const PASS_THROUGH_KEYS = [
  'sources.include',
  'sources.exclude',
  'retrieval.topK',
  'retrieval.minSimilarity',
  'commit.style',
  ...RESTRICTED,
] as const;

/** `ragls.server.*` with defaults from package.json. */
export function serverSettings(): ServerSettings {
  const cfg = vscode.workspace.getConfiguration(SECTION);
  return {
    command: cfg.get<string>('server.command', '') ?? '',
    args: cfg.get<string[]>('server.args', ['serve']) ?? ['serve'],
    pythonPath: cfg.get<string>('server.pythonPath', '') ?? '',
  };
}

/**
 * The user-set pass-through settings as a nested object, e.g. `{ retrieval: { topK: 3 } }`; `{}` when none.
 * Precedence is VS Code's: folder (first folder) > workspace > user; `null`, "" and [] count as unset.
 */
export function passThroughSettings(): Record<string, Record<string, unknown>> {
  const folder = vscode.workspace.workspaceFolders?.[0];
  const cfg = vscode.workspace.getConfiguration(SECTION, folder?.uri);
  const out: Record<string, Record<string, unknown>> = {};
  for (const key of PASS_THROUGH_KEYS) {
    const seen = cfg.inspect(key);
    const userOnly = !vscode.workspace.isTrusted && RESTRICTED_KEYS.has(key);
    const layers = userOnly ? [seen?.globalValue] : [seen?.workspaceFolderValue, seen?.workspaceValue, seen?.globalValue];
    // "" and [] are the schema's "unset" (the Settings UI has no null), like undefined and a legacy null.
    const value = layers.find(
      (v) => v !== undefined && v !== null && v !== '' && !(Array.isArray(v) && v.length === 0),
    );
    if (value === undefined) {
      continue;
    }
    const [section, name] = key.split('.');
    (out[section] ??= {})[name] = value;
  }
  return out;
}

/**
 * What the server gets as initializationOptions and in `workspace/didChangeConfiguration`: the pass-through
 * settings plus `workspaceTrusted`, VS Code's Workspace Trust (false in restricted mode: the folders' ragls.toml
 * may then only tune retrieval; docs/protocol.md).
 */
export function initializationOptions(): Record<string, unknown> {
  return { ...passThroughSettings(), workspaceTrusted: vscode.workspace.isTrusted };
}

/** Whether a configuration change needs a server restart (`ragls.server.*`). */
export function needsRestart(e: vscode.ConfigurationChangeEvent): boolean {
  return e.affectsConfiguration(`${SECTION}.server`);
}

/** Whether a configuration change touches pass-through settings. */
export function touchesPassThrough(e: vscode.ConfigurationChangeEvent): boolean {
  return PASS_THROUGH_KEYS.some((key) => e.affectsConfiguration(`${SECTION}.${key}`));
}
