/**
 * The UI steps of a window reload, run at the end of uiAsk.ts' code-server session (a session of their own cost ~20
 * CPU-s more: code-server, Chromium, the extension host, a server and its first index): adds an HTML page to the
 * workspace and rebuilds the index, opens the page's result from Search Docs (its extracted text: a
 * `ragls-extracted:` editor in Markdown, extracted.ts), reloads the window and checks that the restored editor is
 * still that text in Markdown, not HTML (VS Code restores it without the extension's help; screenshot
 * `extracted-after-reload.png`). The editor's breadcrumbs read the page's path in the workspace, its folder's name first (a multi-root workspace), not every folder
 * from / (screenshot `extracted-breadcrumbs.png`).
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { PwPage } from './codeServer';
import { paletteCommand, quickInputFocused, step, type UiSession } from './uiSteps';

/** A server start (the window reload restarts the extension host and the server) and an index of 5 files. */
const INDEX_TIMEOUT_MS = 240_000;
const PAGE = [
  '<html><head><title>Pairing</title></head><body>',
  '<h1>Pairing a beacon with the tablet</h1>',
  '<p>Open Settings, choose Devices, and scan the pairing code shown on the tablet.',
  'A pairing code expires after 90 seconds; ask the tablet for a new one when it does.</p>',
  '</body></html>',
].join('\n');

/** The active editor: its tab shows pairing.html, and the status bar names its language `language`. */
async function pageTextIn(page: PwPage, language: string): Promise<void> {
  await page.locator('.tabs-container .tab.active:has-text("pairing.html")').first().waitFor({ state: 'visible', timeout: 60_000 });
  await page.locator(`.statusbar-item[id="status.editor.mode"]:has-text("${language}")`).first()
    .waitFor({ state: 'visible', timeout: 60_000 });
  // the text ragls extracted (its heading as a `#` line), not the page's markup
  const text = ((await page.locator('.editor-group-container.active .view-lines').first().textContent()) ?? '')
    .replace(/\u00a0/g, ' '); // (the editor draws spaces as no-break spaces)
  if (!text.includes('Pairing a beacon with the tablet') || text.includes('<h1>')) {
    throw new Error(`the editor shows ${JSON.stringify(text.slice(0, 300))}`);
  }
}

/** The reload steps in a session whose workspace indexes `filesBefore` files (the page makes one more). */
export async function extractedTextAfterReload({ page, ws, shots }: UiSession, filesBefore: number): Promise<void> {
  const files = `ragls: ${filesBefore + 1} files`;
  await step('an HTML page added and the index rebuilt: the status bar counts it', async () => {
    writeFileSync(join(ws.notes, 'pairing.html'), PAGE);
    await page.keyboard.press('Escape');
    await page.locator('.monaco-workbench').first().click();
    await paletteCommand(page, 'ragls: Rebuild Index');
    await page.keyboard.press('Enter');
    await page.locator(`.statusbar-item:has-text("${files}")`).first().waitFor({ state: 'visible', timeout: INDEX_TIMEOUT_MS });
  }, page, shots);
  await step('Search Docs opens the page\'s result as the text ragls extracted, in Markdown', async () => {
    await page.locator('.monaco-workbench').first().click();
    await page.keyboard.press('Control+Alt+D');
    await page.locator('.quick-input-widget .quick-input-title:has-text("ragls")').first().waitFor({ state: 'visible', timeout: 30_000 });
    await quickInputFocused(page);
    await page.keyboard.type('how long is a pairing code valid', { delay: 15 });
    await page.locator('.quick-input-widget .quick-input-title:has-text("for “how long is a pairing code valid”")').first()
      .waitFor({ state: 'visible', timeout: 60_000 });
    await page.locator('.quick-input-list .monaco-list-row[data-index="0"]:has-text("pairing.html")').first()
      .waitFor({ state: 'visible', timeout: 60_000 });
    await page.keyboard.press('Enter');
    await page.locator('.tabs-container .tab.active:has-text("pairing.html"):not(:has(.monaco-icon-label.italic))').first()
      .waitFor({ state: 'visible', timeout: 30_000 });
    await pageTextIn(page, 'Markdown');
  }, page, shots);
  await step('its breadcrumbs read the page\'s path in the workspace, its folder\'s name first, not every folder from /', async () => {
    // (the workspace has several folders: the breadcrumbs of notes/pairing.html itself read "notes > pairing.html")
    const crumbs = page.locator('.editor-group-container.active .breadcrumbs-control .monaco-breadcrumb-item');
    await crumbs.first().waitFor({ state: 'visible', timeout: 30_000 });
    const texts = (await crumbs.allTextContents()).map((t) => t.trim());
    if (texts[0] !== 'notes' || texts[1] !== 'pairing.html') {
      throw new Error(`the breadcrumbs read ${JSON.stringify(texts)}`);
    }
    await page.locator('.editor-group-container.active .title').first()
      .screenshot({ path: join(shots, 'extracted-breadcrumbs.png') });
  }, page, shots);
  await step('after a window reload the restored editor is still the extracted text in Markdown, not HTML', async () => {
    // as a user reloads the window (the workbench saves its editors' state first)
    await paletteCommand(page, 'Developer: Reload Window');
    await page.keyboard.press('Enter');
    await page.locator('.monaco-workbench').first().waitFor({ state: 'visible', timeout: 60_000 });
    await page.locator(`.statusbar-item:has-text("${files}")`).first().waitFor({ state: 'visible', timeout: INDEX_TIMEOUT_MS });
    await pageTextIn(page, 'Markdown');
    await page.screenshot({ path: join(shots, 'extracted-after-reload.png') });
  }, page, shots);
}
