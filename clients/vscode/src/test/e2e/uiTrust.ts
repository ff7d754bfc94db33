/**
 * UI test of Restricted Mode, `node out/test/e2e/uiTrust.js VSIX [WORK_DIR]`: a code-server session of its own with
 * VS Code's Workspace Trust on (the other UI tests run with every workspace trusted) on the fixture workspace, whose
 * handbook's ragls.toml names an LLM, and which VS Code opens restricted (`security.workspace.trust.startupPrompt`
 * "never": no startup dialog; the server path comes from the user's settings, as workspace ones are not read
 * there). The server's warning that the file's LLM settings are ignored comes as a notification saying VS Code's
 * way to trust, with a "Manage Workspace Trust" button (it said "trust the workspace in the editor to use them" and
 * had no button); "ragls: Show Status" offers the same button; the button opens the Workspace Trust editor
 * (screenshots `restricted-warning.png`, `restricted-trust-editor.png`), whose Trust starts the server again with
 * the whole file applied (no warning left). Prints TAP-like `ok -` / `not ok -` lines.
 */
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { offlineModelDir } from '../fixture';
import type { PwPage } from './codeServer';
import { paletteCommand, runMain, step, uiSession, until } from './uiSteps';

/** A server start and a first index of 4 files on a loaded machine. */
const WARNING_TIMEOUT_MS = 180_000;

/** The toast whose message holds `text`, once it shows a button labelled `button`; throws after `ms`. */
async function toastWithButton(page: PwPage, text: string, button: string, ms: number): Promise<string> {
  const toast = page.locator(`.notifications-toasts .notification-toast:has-text("${text}")`);
  await toast.locator(`.monaco-button:has-text("${button}")`).first().waitFor({ state: 'visible', timeout: ms });
  return (await toast.first().locator('.notification-list-item-message').first().textContent()) ?? '';
}

runMain(() => uiSession('uiTrust', (ws) => {
  // The handbook's ragls.toml asks for an LLM: ignored while the workspace is restricted.
  const toml = join(ws.handbook, 'ragls.toml');
  writeFileSync(toml, readFileSync(toml, 'utf8').replace('[generation]\nbackend = "none"',
    '[generation]\nbackend = "openai"\nbase_url = "http://127.0.0.1:9/v1"\nmodel = "team-model"'));
  // The user's own settings (read in Restricted Mode, where the workspace's ragls.server.* are not).
  const user = join(dirname(ws.root), 'user-data', 'User');
  mkdirSync(user, { recursive: true });
  writeFileSync(join(user, 'settings.json'), JSON.stringify({
    'security.workspace.trust.enabled': true,
    'security.workspace.trust.startupPrompt': 'never',
    'security.workspace.trust.banner': 'never',
    'ragls.server.pythonPath': ws.python,
    'ragls.embedding.model': 'sentence-transformers/all-MiniLM-L6-v2',
    'ragls.embedding.modelPath': offlineModelDir(ws.python),
    'workbench.startupEditor': 'none',
    'chat.disableAIFeatures': true,
  }, null, 2));
}, async ({ page, shots }) => {
  await step('Restricted Mode: the untrusted ragls.toml\'s warning says VS Code\'s way to trust, with a "Manage Workspace Trust" button', async () => {
    const said = await toastWithButton(page, 'handbook/ragls.toml', 'Manage Workspace Trust', WARNING_TIMEOUT_MS);
    for (const part of ['generation.backend', 'generation.base_url', 'trust this workspace (Workspaces: Manage Workspace Trust) to use them']) {
      if (!said.includes(part)) {
        throw new Error(`the warning does not say ${JSON.stringify(part)}: ${JSON.stringify(said)}`);
      }
    }
    await page.screenshot({ path: join(shots, 'restricted-warning.png') });
    console.log(`#   said: ${said}`);
  }, page, shots);

  await step('"ragls: Show Status" offers the same button beside Show Details', async () => {
    await paletteCommand(page, 'ragls: Show Status');
    await page.keyboard.press('Enter');
    const asked = 'what to do: Manage Workspace Trust or Show Details';
    const said = await toastWithButton(page, asked, 'Manage Workspace Trust', 60_000);
    const toast = page.locator(`.notifications-toasts .notification-toast:has-text("${asked}")`);
    await toast.locator('.monaco-button:has-text("Show Details")').first().waitFor({ state: 'visible', timeout: 10_000 });
    console.log(`#   said: ${said}`);
  }, page, shots);

  await step('the button opens the Workspace Trust editor', async () => {
    const toast = page.locator('.notifications-toasts .notification-toast:has-text("what to do: Manage Workspace Trust")');
    await toast.locator('.monaco-button:has-text("Manage Workspace Trust")').first().click();
    await page.locator('.workspace-trust-editor:has-text("You are in Restricted Mode")').first().waitFor({ state: 'visible', timeout: 30_000 });
    await page.screenshot({ path: join(shots, 'restricted-trust-editor.png') });
  }, page, shots);

  await step('Trust there: the server starts again trusted, and the warning is gone', async () => {
    await page.locator('.workspace-trust-editor .monaco-button:has-text("Trust")').first().click();
    await until(page, 'the ragls status item without its warning', async () => {
      const restricted = await page.locator('.statusbar-item:has-text("Restricted Mode")').count();
      const item = page.locator('.statusbar-item:has-text("ragls: 4 files")');
      return restricted === 0 && await item.count() > 0 && await item.first().locator('.codicon-warning').count() === 0;
    }, WARNING_TIMEOUT_MS);
  }, page, shots);
}, { workspaceTrust: true }));
