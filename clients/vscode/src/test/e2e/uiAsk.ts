/**
 * UI end-to-end test: installs the packaged .vsix into code-server, opens the fixture workspace in headless
 * Chromium, and does what a person does: waits for the status bar to show the index, opens the command
 * palette, runs "ragls: Ask", types a question, reads the answer in the chat view (a webview view: the one answer
 * surface) with its per-turn buttons, saves a screenshot, then clicks citation [1] and checks that the cited file
 * opens; with a change staged in handbook/, clicks the Source Control title button "Generate Commit Message" and
 * reads the commit message box; asks in a new chat and types a follow-up into it (screenshot `chat-view.png`);
 * asks for a command longer than the chat view is wide: its code block wraps, and uiChatLayout.ts' checks (source
 * labels wrap in order, Shift+Tab focus in the theme's colours) run on that turn (screenshot `chat-code-block.png`);
 * asks a question the docs cannot answer and checks that the turn says why once and lists its closest matches,
 * [1] opening its file (screenshot `chat-abstained.png`); opens Chat History from the chat's header and picks the
 * first thread back (screenshot `chat-history.png`); uiChatErrors.ts' steps: a dead LLM server's error, with Retry
 * and Open Settings, above the extractive answer (screenshot `chat-error.png`), the server killed mid-answer and
 * Retry (`chat-server-stopped.png`, `chat-server-retried.png`); adds a folder of code only to the workspace
 * and checks that the status bar item warns, its hover says what to set (screenshot `status-warning.png`) and
 * clicking it shows that warning (screenshot `status-warning-message.png`); then, in the same session, uiReload.ts'
 * steps: an HTML page's extracted text stays Markdown after a window reload (screenshot `extracted-after-reload.png`).
 *
 *   node out/test/e2e/uiAsk.js VSIX [WORK_DIR]
 *
 * Screenshots go to $RAGLS_TEST_RESULTS (default clients/vscode/test-results/). Prints `ok - …` / `not ok - …`
 * lines; exits 0 only when every step passed. Needs the toolchain variables (codeServer.ts).
 */
import { execFileSync } from 'node:child_process';
import { appendFileSync, mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { keyboardFocusInThemeColours, sourceLabelsReadInOrder } from './uiChatLayout';
import { chatErrorSteps } from './uiChatErrors';
import { extractedTextAfterReload } from './uiReload';
import { answerInputBox, paletteCommand, quickInputFocused, runMain, step, uiSession, until } from './uiSteps';

const QUESTION = 'How do I roll back beacon firmware?';
/** Names something the fixture never mentions: ragls abstains (`ragls ask --no-server` on testFixture/handbook says
 * "Not in your docs: they never mention Zigbee."). */
const UNANSWERABLE = 'How do I roll back beacon firmware over Zigbee?';
const STEP_TIMEOUT_MS = 120_000;
const LONG_COMMAND = 'beacon status --cluster lighthouse-north --fields name,firmware_version,last_seen,uptime --sort firmware_version --format table';
/** The first index: code-server's extension host, the server's start and model load, then 4 files — 40-50 s with the
 * machine at load 12-20 on 2 cores; the wait returns as soon as the status bar shows it. */
const FIRST_INDEX_TIMEOUT_MS = 240_000;
/** The notes file under a name with hyphens, holding LONG_COMMAND: "[1] notes/firmware-version-check.md:…" is wider
 * than the chat view, so it wraps, and the file name with its lines fits a line of its own. */
const FIRMWARE_FILE = 'firmware-version-check.md';

async function main(): Promise<number> {
  return uiSession('uiAsk', (ws) => {
    // A command longer than the chat view is wide, in a code block (the step "a code block in an answer wraps"), in a
    // file whose name has hyphens (the notes file renamed: still 4 files), so its source label has to wrap there.
    renameSync(join(ws.notes, 'meeting-notes.md'), join(ws.notes, FIRMWARE_FILE));
    appendFileSync(join(ws.notes, FIRMWARE_FILE), `\n## Checking the firmware version\n\nTo list the firmware version of every beacon, run:\n\n\`\`\`sh\n${LONG_COMMAND}\n\`\`\`\n`);
    // A staged change for the Source Control step.
    appendFileSync(join(ws.handbook, 'docs', 'calibration.md'), '\n## Safety\n\nWear gloves: the brass housing is sharp.\n');
    execFileSync('git', ['add', 'docs/calibration.md'], { cwd: ws.handbook });
  }, async (session) => {
    const { page, ws, shots } = session;
    await step('while the server starts, the status bar item names the step (not only its hover)', async () => {
      const item = page.locator('.statusbar-item:has-text("ragls: starting the server"), .statusbar-item:has-text("ragls: opening the index"), .statusbar-item:has-text("ragls: indexing")').first();
      await item.waitFor({ state: 'visible', timeout: FIRST_INDEX_TIMEOUT_MS });
      // The chat view (open in the Secondary Side Bar) shows its page meanwhile: the empty thread's invitation, and
      // what the server is doing while it still is (its first paint used to be blank, then "Loading…").
      const chat = page.frameLocator('iframe.webview.ready[src*="purpose=webviewView"]').frameLocator('#active-frame');
      await chat.locator('main#content p.empty').first().waitFor({ state: 'visible', timeout: STEP_TIMEOUT_MS });
      await page.screenshot({ path: join(shots, 'status-starting.png') });
    }, page, shots);

    await step('the status bar shows the indexed docs', async () => {
      await page.locator('.statusbar-item:has-text("ragls: 4 files")').first().waitFor({ state: 'visible', timeout: FIRST_INDEX_TIMEOUT_MS });
    }, page, shots);

    await step('"ragls: Ask" runs from the command palette', async () => {
      await page.locator('.monaco-workbench').first().click();
      await paletteCommand(page, 'ragls: Ask');
      await page.keyboard.press('Enter');
      // The input box of the command itself has the title "ragls: Ask".
      await answerInputBox(page, 'ragls: Ask', QUESTION);
    }, page, shots);

    const webview = page.frameLocator('iframe.webview.ready[src*="purpose=webviewView"]').frameLocator('#active-frame');
    await step('the chat view shows the answer, citation [1], the sources and the turn\'s buttons', async () => {
      await webview.locator('section.turn details.sources').first().waitFor({ state: 'visible', timeout: STEP_TIMEOUT_MS });
      const question = await webview.locator('section.turn h3.question').first().textContent();
      if (question !== QUESTION) {
        throw new Error(`turn question is ${JSON.stringify(question)}`);
      }
      for (const label of ['Copy', 'Insert', 'Retry', 'Open all sources']) {
        if ((await webview.locator(`section.turn .turn-actions button:text-is("${label}")`).count()) < 1) {
          throw new Error(`no ${label} button under the answer`);
        }
      }
      const answer = (await webview.locator('.answer').first().textContent()) ?? '';
      if (!answer.includes('beacon push --previous')) {
        throw new Error(`answer lacks the rollback command:\n${answer}`);
      }
      const sources = (await webview.locator('section.turn details.sources ol').first().textContent()) ?? '';
      if (!/\[1\] handbook\/docs\/deployment\.md:\d+/.test(sources)) {
        throw new Error(`sources list is ${JSON.stringify(sources)}`);
      }
      if ((await webview.locator('.answer a.cite[data-n="1"]').count()) < 1) {
        throw new Error('no clickable [1] citation in the answer');
      }
      // In the narrow side bar each source's lines stay on one line ("deployment.md:12-" above "16" read as line 12).
      // Read once the view is laid out: while an editor opens beside it the webview can have no layout for a moment
      // (every `.lines` then has 0 client rects: ci61d), so 0 is waited out, 2 or more fails at once.
      let whole: string[] = [];
      const laidOut = async (): Promise<boolean> => {
        whole = await webview.locator('section.turn').first().evaluate((turn) =>
          Array.from(turn.querySelectorAll('details.sources[open] a.source')).map((a: any) => { // eslint-disable-line @typescript-eslint/no-explicit-any
            const lines = a.querySelector('.lines');
            return lines ? `${lines.textContent} on ${lines.getClientRects().length} line(s)` : `${a.textContent}: no lines`;
          }));
        return whole.length > 0 && !whole.some((w) => w.endsWith(' on 0 line(s)'));
      };
      await until(page, 'the sources to be laid out', laidOut, 10_000).catch(() => undefined);
      if (!whole.length || whole.some((w) => !w.endsWith(' on 1 line(s)'))) {
        throw new Error(`the sources' lines: ${JSON.stringify(whole)}`);
      }
      // Inline code wraps only at its spaces: each word of a command on one line ("beacon push --" above "previous"
      // read as two things). Words of answer.ts' NOWRAP_CODE_WORD (24) characters or fewer; a longer one may break.
      const split: string[] = await webview.locator('.answer').first().evaluate((answer) => {
        const most = 24;
        const doc = answer.ownerDocument; // (the webview's; this file compiles without the DOM library)
        const out: string[] = [];
        for (const code of Array.from(answer.querySelectorAll('code')).filter((c: any) => c.parentElement?.tagName !== 'PRE')) { // eslint-disable-line @typescript-eslint/no-explicit-any
          const walker = doc.createTreeWalker(code, 4 /* NodeFilter.SHOW_TEXT */);
          for (let node = walker.nextNode(); node; node = walker.nextNode()) {
            for (const m of (node.textContent ?? '').matchAll(/\S+/g)) {
              const range = doc.createRange();
              range.setStart(node, m.index ?? 0);
              range.setEnd(node, (m.index ?? 0) + m[0].length);
              const rows = new Set(Array.from(range.getClientRects() as ArrayLike<{ top: number }>).map((r) => Math.round(r.top)));
              if (m[0].length <= most && rows.size > 1) {
                out.push(`${m[0]} on ${rows.size} lines`);
              }
            }
          }
        }
        return out;
      });
      if (split.length) {
        throw new Error(`inline code split inside a word: ${JSON.stringify(split)}`);
      }
      // The view lives in the Secondary Side Bar (beside the editor), and answers without any chat model.
      const aux = page.locator('.part.auxiliarybar');
      const labelled = aux.locator('[aria-label*="ragls" i]');
      if (!(await aux.isVisible()) || ((await labelled.count()) === 0 && !/ragls/i.test((await aux.textContent()) ?? ''))) {
        throw new Error('the ragls view is not in the Secondary Side Bar');
      }
      await page.screenshot({ path: join(shots, 'answer-panel.png') });
    }, page, shots);

    await step('clicking citation [1] opens docs/deployment.md on the sentence its item quotes', async () => {
      await webview.locator('.answer a.cite[data-n="1"]').first().click();
      await page.locator('.tabs-container .tab.active:has-text("deployment.md")').first().waitFor({ state: 'visible', timeout: 30_000 });
      // The first item quotes "To roll back, run `beacon push --previous`.", which starts mid-line 6 (column 45),
      // after the sentence before it: the cursor is there, not at line 3 where the cited lines 3-6 start.
      await page.locator('.statusbar-item:has-text("Ln 6, Col 45")').first().waitFor({ state: 'visible', timeout: 30_000 });
      // The highlight starts there too, not with "run `beacon push --all` ..." at the line's start: the editor's
      // decorations in ragls' colour, the first (top) one from the left edge of "To roll back".
      /* eslint-disable @typescript-eslint/no-explicit-any -- (this file compiles without the DOM library) */
      // The decorations are drawn a frame or more after the cursor moves: read them until they are there (10 s at most).
      const readLit = () => page.locator('.editor-group-container.active .monaco-editor').first().evaluate((editor: any) => {
        const doc = editor.ownerDocument;
        const win = doc.defaultView;
        const probe = doc.createElement('div'); // (the theme's colour variables are set on the workbench, not the body)
        probe.style.backgroundColor = 'var(--vscode-ragls-sourceHighlightBackground)';
        editor.appendChild(probe);
        const colour = win.getComputedStyle(probe).backgroundColor;
        probe.remove();
        const boxes = Array.from(editor.querySelectorAll('.view-overlays div'))
          .filter((el: any) => win.getComputedStyle(el).backgroundColor === colour)
          .map((el: any) => el.getBoundingClientRect())
          .sort((x: any, y: any) => x.top - y.top || x.left - y.left)
          .map((r: any) => ({ top: Math.round(r.top), left: Math.round(r.left) }));
        // (a view line's spaces are no-break spaces)
        const span: any = Array.from(editor.querySelectorAll('.view-line span span'))
          .find((el: any) => /To\sroll\sback/.test(el.textContent ?? ''));
        let to: number | null = null;
        if (span?.firstChild) {
          const range = doc.createRange();
          const at = span.textContent.search(/To\sroll\sback/);
          range.setStart(span.firstChild, at);
          range.setEnd(span.firstChild, at + 2);
          to = Math.round(range.getBoundingClientRect().left);
        }
        const lines = editor.querySelector('.view-lines');
        return { colour, boxes, to, textLeft: lines ? Math.round(lines.getBoundingClientRect().left) : null };
      });
      /* eslint-enable @typescript-eslint/no-explicit-any */
      const startsAtSentence = (l: Awaited<ReturnType<typeof readLit>>) => {
        const first = l.boxes[0];
        return l.colour !== 'rgba(0, 0, 0, 0)' && !!first && l.to !== null && Math.abs(first.left - l.to) <= 2
          && l.textLeft !== null && first.left > l.textLeft + 20;
      };
      let lit = await readLit();
      for (const until = Date.now() + 10_000; !startsAtSentence(lit) && Date.now() < until;) {
        await page.waitForTimeout(200);
        lit = await readLit();
      }
      if (!startsAtSentence(lit)) {
        throw new Error(`the highlight does not start at "To roll back": ${JSON.stringify(lit)}`);
      }
      await page.screenshot({ path: join(shots, 'source-opened.png') });
    }, page, shots);
    await step('Search Docs (Ctrl+Alt+D) updates its results as you type and previews the highlighted one', async () => {
      await page.locator('.monaco-workbench').first().click();
      await page.keyboard.press('Control+Alt+D');
      await page.locator('.quick-input-widget .quick-input-title:has-text("ragls")').first().waitFor({ state: 'visible', timeout: 30_000 });
      await quickInputFocused(page);
      await page.keyboard.type('zeta-17 torque wrench', { delay: 15 });
      await page.locator('.quick-input-list .monaco-list-row:has-text("calibration.md")').first().waitFor({ state: 'visible', timeout: 60_000 });
      await page.locator('.tabs-container .tab:has-text("calibration.md")').first().waitFor({ state: 'visible', timeout: 30_000 });
      await page.screenshot({ path: join(shots, 'search-live.png') });
      for (let i = 0; i < 'zeta-17 torque wrench'.length; i++) {
        await page.keyboard.press('Backspace');
      }
      await page.keyboard.type('roll back beacon firmware', { delay: 15 });
      // The results of the whole query (the title names it): a row 0 of a query typed halfway could be replaced
      // as Enter is pressed. Its first row: deployment.md (which may also be a lower row of the previous query).
      await page.locator('.quick-input-widget .quick-input-title:has-text("for “roll back beacon firmware”")').first()
        .waitFor({ state: 'visible', timeout: 60_000 });
      await page.locator('.quick-input-list .monaco-list-row[data-index="0"]:has-text("deployment.md")').first().waitFor({ state: 'visible', timeout: 60_000 });
      await page.keyboard.press('Enter');
      // Enter hides the pick, then opens the file pinned (its preview tab, italic, was already active) with the focus
      // in its editor. Until that lands, a palette opened by the next step was closed by it ("Rebuild Index": the
      // palette's input hidden under fill(), at load 40).
      await page.locator('.tabs-container .tab.active:has-text("deployment.md"):not(:has(.monaco-icon-label.italic))').first()
        .waitFor({ state: 'visible', timeout: 30_000 });
      await page.locator('.editor-group-container.active .monaco-editor.focused').first().waitFor({ state: 'visible', timeout: 30_000 });
      await page.screenshot({ path: join(shots, 'search-opened-highlight.png') });
    }, page, shots);

    await step('Rebuild Index shows its progress', async () => {
      await paletteCommand(page, 'ragls: Rebuild Index');
      await page.keyboard.press('Enter');
      // The progress (a toast and the status item's percentage) may be over quickly on 4 files: whichever of it or
      // the closing message comes first. Waiting for the progress alone could outlast the message's toast, which
      // VS Code hides after ~10-15 s.
      const done = '.notifications-toasts:has-text("ragls: indexed 4 files")';
      await page.locator(`.notifications-toasts:has-text("ragls: rebuilding"), .statusbar-item:has-text("ragls: indexing"), ${done}`).first()
        .waitFor({ state: 'visible', timeout: 30_000 }).catch(() => undefined);
      await page.screenshot({ path: join(shots, 'progress.png') });
      const shown = await page.locator(done).first().waitFor({ state: 'visible', timeout: STEP_TIMEOUT_MS }).then(() => true, () => false);
      if (!shown) {
        // Its toast may have come and gone while the machine was busy: the notification centre keeps every message.
        await paletteCommand(page, 'Notifications: Show Notifications');
        await page.keyboard.press('Enter');
        const centre = page.locator('.notifications-center');
        await centre.first().waitFor({ state: 'visible', timeout: 30_000 });
        const messages = await centre.locator('.notification-list-item-message').allTextContents();
        await page.keyboard.press('Escape');
        if (!messages.some((m) => m.includes('ragls: indexed 4 files'))) {
          throw new Error(`no "ragls: indexed 4 files" message; the notifications: ${JSON.stringify(messages)}`);
        }
        console.log('#   the rebuild message was no longer a toast; found in the notification centre');
      }
    }, page, shots);

    await step('the walkthrough opens from Welcome: Open Walkthrough', async () => {
      await paletteCommand(page, 'Welcome: Open Walkthrough');
      await page.keyboard.press('Enter');
      // The command's own pick of walkthroughs: the palette (whose text starts with '>') has to close first, or the
      // text goes into it.
      const input = page.locator('.quick-input-widget input').first();
      await until(page, 'the pick of walkthroughs', () => input.evaluate((el) => el.offsetParent !== null && el.value === ''));
      await input.fill('Get started with ragls');
      await page.locator('.quick-input-list .monaco-list-row.focused:has-text("Get started with ragls")').first().waitFor({ timeout: 30_000 });
      await page.keyboard.press('Enter');
      await page.locator('.gettingStartedContainer :text("Choose who writes answers")').first().waitFor({ state: 'visible', timeout: 30_000 });
      // The steps done by now without the walkthrough's links: the server found, the index built, questions asked.
      // Before WalkthroughProgress none showed done after a whole session (code-server's Getting Started service
      // hears nothing before the Welcome page opens).
      for (const id of ['server', 'index', 'ask']) {
        await page.locator(`.getting-started-step[data-step-id$="#${id}"][aria-checked="true"]`).first()
          .waitFor({ state: 'attached', timeout: 30_000 })
          .catch(async () => {
            const states = await page.locator('.gettingStartedContainer').first().evaluate((root) =>
              [...root.querySelectorAll('.getting-started-step')].map((el) =>
                `${el.getAttribute('data-step-id')}=${el.getAttribute('aria-checked')}`).join(', '));
            throw new Error(`the walkthrough's step "${id}" is not done: ${states}`);
          });
      }
      await page.waitForTimeout(500);
      await page.screenshot({ path: join(shots, 'walkthrough.png') });
    }, page, shots);

    await step('"Choose How Answers Are Written" names the choice in use', async () => {
      await page.keyboard.press('Escape');
      // (an editor's text takes the focus when one shows; with the walkthrough in front the first one is a hidden
      // tab's, and clicking it waited out Playwright's 30 s action timeout in every run)
      const editorText = page.locator('.part.editor .monaco-editor .view-lines').first();
      if (await editorText.isVisible()) {
        await editorText.click();
      }
      await paletteCommand(page, 'ragls: Choose How Answers Are Written');
      await page.keyboard.press('Enter');
      await page.locator('.quick-input-widget .quick-input-title:has-text("who should write answers")').first()
        .waitFor({ state: 'visible', timeout: 30_000 });
      const input = page.locator('.quick-input-widget input').first();
      let shown = '';
      await until(page, 'the pick to name the choice in use', async () =>
        (shown = (await input.getAttribute('placeholder')) ?? '') === 'Now: none (extractive answers, no LLM)', 10_000)
        .catch(() => { throw new Error(`the pick's input reads ${JSON.stringify(shown)}`); });
      await page.screenshot({ path: join(shots, 'choose-answers.png') });
      await page.keyboard.press('Escape');
    }, page, shots);
    await step('the Source Control button fills the commit message box', async () => {
      await page.keyboard.press('Control+Shift+G');
      // (the button is there once the Git extension has opened the repository: a loaded machine takes a while)
      const button = page.locator('.action-label[aria-label*="Generate Commit Message"]').first();
      await button.waitFor({ state: 'attached', timeout: STEP_TIMEOUT_MS });
      // A view's title buttons show while the pointer is over its pane or the focus in it, as for the user who
      // moves to it: the pointer goes there first. (Waiting for them to be visible relied on the focus that
      // Ctrl+Shift+G gives the commit box, and the walkthrough page opened before took it back at times: CI
      // waited 120 s on a hidden button.)
      await page.locator('.pane-header:has(.action-label[aria-label*="Generate Commit Message"])').first().hover();
      await button.click();
      const box = page.locator('.scm-editor .view-lines').first();
      const deadline = Date.now() + STEP_TIMEOUT_MS;
      let text = '';
      while (!text.includes('calibration') && Date.now() < deadline) {
        text = ((await box.textContent({ timeout: 5_000 }).catch(() => '')) ?? '').replace(/\u00a0/g, ' ');
        await page.waitForTimeout(250);
      }
      if (!text.includes('calibration')) {
        throw new Error(`commit box shows ${JSON.stringify(text)}`);
      }
      console.log(`#   commit box: ${JSON.stringify(text)}`);
      await page.screenshot({ path: join(shots, 'commit-message.png') });
    }, page, shots);
    await step('"ragls: Ask in Chat" continues the thread; a typed follow-up becomes the next turn', async () => {
      const chat = page.frameLocator('iframe.webview.ready[src*="purpose=webviewView"]').frameLocator('#active-frame');
      const before = await chat.locator('section.turn').count(); // the turn of "ragls: Ask" above
      // Focus an editor first (the commit box and the walkthrough page keep F1 from reaching the workbench).
      // (the text area of the editor part: the Source Control view's commit box is a Monaco editor too, earlier in
      // the page)
      await page.keyboard.press('Escape');
      await page.locator('.tabs-container .tab:has-text("deployment.md")').first().click();
      await page.locator('.part.editor .monaco-editor .view-lines').first().click();
      await paletteCommand(page, 'ragls: Ask in Chat');
      await page.keyboard.press('Enter');
      await answerInputBox(page, 'ragls: Ask in Chat', 'Which torque wrench is used for calibration?');
      const asked = chat.locator(`section.turn:nth-of-type(${before + 1})`);
      await asked.locator('details.sources').first().waitFor({ state: 'visible', timeout: STEP_TIMEOUT_MS });
      const first = (await asked.locator('.answer').first().textContent()) ?? '';
      if (!first.includes('zeta-17')) {
        throw new Error(`the chat answer lacks the wrench:\n${first}`);
      }
      // Keyboard only: the view's Focus command (as F6 or a keybinding would) puts the cursor in its question box.
      await paletteCommand(page, 'ragls: Focus on Chat View');
      await page.keyboard.press('Enter');
      const inInput = () => chat.locator('#input').first().evaluate((el) =>
        el.ownerDocument.activeElement === el && el.ownerDocument.hasFocus());
      await until(page, 'the chat\'s question box to have the focus after "ragls: Focus on Chat View"', inInput, 15_000);
      await page.keyboard.type('and how do I check which version of it is running?', { delay: 10 });
      await page.keyboard.press('Enter');
      // Keyboard only: Shift+Tab from the input to the turn above while the follow-up is answered. Its button keeps
      // the focus through the follow-up's renders (the thread was redrawn whole at each one: focus fell to the page).
      await page.keyboard.press('Shift+Tab');
      const focused = () => chat.locator('body').evaluate((body) => {
        const el = body.ownerDocument.activeElement;
        const turn = el?.closest('section.turn');
        return el && turn ? `turn ${Array.from(body.querySelectorAll('section.turn')).indexOf(turn) + 1}: ${el.textContent}` : el?.tagName ?? '';
      });
      const reached = await focused();
      const next = chat.locator(`section.turn:nth-of-type(${before + 2})`);
      await next.locator('details.sources').first().waitFor({ state: 'visible', timeout: STEP_TIMEOUT_MS });
      // A screen reader hears that the answer came (the page's live region), the thread being no live region.
      const announce = chat.locator('#announce[role="status"]');
      await until(page, 'the live region to say the answer is ready',
        async () => /^Answer ready, \d+ sources? cited\.$/.test((await announce.textContent()) ?? ''));
      await page.waitForTimeout(1000); // the cited lines' hover text arrives after the answer: one more render
      const after = await focused();
      if (!reached.startsWith(`turn ${before + 1}: `) || after !== reached) {
        throw new Error(`keyboard focus on ${JSON.stringify(reached)} before the follow-up's answer, on ${JSON.stringify(after)} after it`);
      }
      console.log(`#   focus kept on ${JSON.stringify(after)}; announced ${JSON.stringify(await announce.textContent())}`);
      const heading = (await next.locator('h3.question').first().textContent()) ?? '';
      if (heading !== 'and how do I check which version of it is running?') {
        throw new Error(`the follow-up's heading is ${JSON.stringify(heading)}`);
      }
      await page.screenshot({ path: join(shots, 'chat-view.png') });
    }, page, shots);
    await step('"ragls: Ask About Selection" names the selected lines in its input box', async () => {
      await page.keyboard.press('Escape');
      await page.locator('.tabs-container .tab:has-text("deployment.md")').first().click();
      await page.locator('.part.editor .monaco-editor .view-lines').first().click();
      await page.keyboard.press('Control+Home');
      for (let i = 0; i < 3; i++) {
        await page.keyboard.press('Shift+ArrowDown'); // lines 1-3, the selection ending at the start of line 4
      }
      await paletteCommand(page, 'ragls: Ask About Selection');
      await page.keyboard.press('Enter');
      const widget = page.locator('.quick-input-widget');
      await widget.locator('.quick-input-title:has-text("ragls: Ask About Selection")').first().waitFor({ state: 'visible', timeout: 30_000 });
      // (it said "Ask a question about the selected text")
      const message = (await widget.locator('.quick-input-message').first().textContent()) ?? '';
      if (!message.startsWith('Ask a question about handbook/docs/deployment.md:1-3')) {
        throw new Error(`the input box says ${JSON.stringify(message)}`);
      }
      await page.keyboard.press('Escape'); // (not asked: the thread of the steps above keeps its three questions)
    }, page, shots);
    await step('a question the docs cannot answer: the turn says why once, as a note, and lists the closest matches', async () => {
      // In a new chat (a follow-up would search with the thread's history).
      await page.locator('.part.auxiliarybar .action-label[aria-label^="New Chat"]').first().click();
      await webview.locator('p.empty').first().waitFor({ state: 'visible', timeout: 30_000 });
      await webview.locator('#input').first().click();
      await page.keyboard.type(UNANSWERABLE, { delay: 5 });
      await page.keyboard.press('Enter');
      const turn = webview.locator('section.turn').first();
      await turn.locator('.turn-actions').first().waitFor({ state: 'visible', timeout: STEP_TIMEOUT_MS });
      const text = (await turn.textContent()) ?? '';
      const note = (await turn.locator('.abstained[role="note"]').allTextContents()).join('\n');
      if (!note.includes('Not in your docs') || !note.includes('Zigbee')) {
        throw new Error(`the abstention note is ${JSON.stringify(note)}; the turn:\n${text}`);
      }
      if (text.split('Not in your docs').length !== 2 || text.split('never mention Zigbee').length !== 2 || text.includes('No answer.')) {
        throw new Error(`the turn does not say why exactly once:\n${text}`);
      }
      if ((await turn.locator('.answer').count()) !== 0) {
        throw new Error('an abstained turn also shows an answer block');
      }
      const summaries = await turn.locator('details.sources summary').allTextContents();
      if (summaries.length !== 1 || !/^Closest matches \(\d+\)$/.test(summaries[0])) {
        throw new Error(`the sources summaries are ${JSON.stringify(summaries)}`);
      }
      const first = turn.locator('details.sources a.source[data-n="1"]').first();
      const file = /\[1\] (?:\S+\/)?([^/\s:]+):\d+/.exec((await first.textContent()) ?? '')?.[1];
      if (!file) {
        throw new Error(`closest match [1] is ${JSON.stringify(await first.textContent())}`);
      }
      await page.screenshot({ path: join(shots, 'chat-abstained.png') });
      // Its closest matches open like sources: [1] opens its file (with every editor closed first).
      await paletteCommand(page, 'View: Close All Editors');
      await page.keyboard.press('Enter');
      await until(page, 'every editor to close', async () => (await page.locator('.tabs-container .tab').count()) === 0);
      await first.click();
      await page.locator(`.tabs-container .tab.active:has-text("${file}")`).first().waitFor({ state: 'visible', timeout: 30_000 });
    }, page, shots);
    await step('a code block in an answer wraps inside the chat view: the whole command shows, nothing scrolls sideways', async () => {
      await page.locator('.part.auxiliarybar .action-label[aria-label^="New Chat"]').first().click();
      await webview.locator('p.empty').first().waitFor({ state: 'visible', timeout: 30_000 });
      await webview.locator('#input').first().click();
      await page.keyboard.type('How do I list the firmware version of every beacon?', { delay: 5 });
      await page.keyboard.press('Enter');
      const turn = webview.locator('section.turn').first();
      await turn.locator('.turn-actions').first().waitFor({ state: 'visible', timeout: STEP_TIMEOUT_MS });
      const block = turn.locator('.answer pre').first();
      await block.waitFor({ state: 'visible', timeout: 10_000 });
      const text = ((await block.textContent()) ?? '').replace(/\s+/g, ' ').trim();
      if (text !== LONG_COMMAND) {
        throw new Error(`the code block reads ${JSON.stringify(text)}`);
      }
      // Every box of the turn fits the view's width: no sideways scroll bar, no text cut at the edge.
      const wide = await turn.evaluate((el) => [el, ...Array.from(el.querySelectorAll('*'))]
        .filter((e) => e.scrollWidth > e.clientWidth + 1 && e.clientWidth > 0)
        .map((e) => `${e.tagName.toLowerCase()}.${e.className}: ${e.scrollWidth} > ${e.clientWidth}`));
      if (wide.length) {
        throw new Error(`wider than the view: ${wide.join('; ')}`);
      }
      // A token longer than a line breaks after a ",", "|", "=", "/", "(" or "." (answer.ts codeBreaks), not inside a
      // name ("last_" / "seen").
      const inside: string[] = await block.evaluate((pre) => {
        const doc = pre.ownerDocument; // (the webview's; this file compiles without the DOM library)
        const walker = doc.createTreeWalker(pre, 4 /* NodeFilter.SHOW_TEXT */);
        const out: string[] = [];
        let before = '';
        let top: number | undefined;
        for (let node = walker.nextNode(); node; node = walker.nextNode()) {
          for (let i = 0; i < (node.textContent ?? '').length; i++) {
            const ch = node.textContent![i];
            const range = doc.createRange();
            range.setStart(node, i);
            range.setEnd(node, i + 1);
            const rect = (range.getClientRects() as ArrayLike<{ top: number }>)[0];
            if (rect && !/\s/.test(ch)) {
              if (top !== undefined && Math.round(rect.top) > top && !/[\s,|=/(.]$/.test(before)) {
                out.push(`${before.slice(-12)}|${ch}`);
              }
              top = Math.round(rect.top);
            }
            before += ch;
          }
        }
        return out;
      });
      if (inside.length) {
        throw new Error(`the code block breaks inside a word: ${JSON.stringify(inside)}`);
      }
      await sourceLabelsReadInOrder(turn, FIRMWARE_FILE);
      await keyboardFocusInThemeColours(page, webview, turn);
      await page.screenshot({ path: join(shots, 'chat-code-block.png') });
    }, page, shots);
    await step('the chat header opens Chat History: each chat by its whole first question, the latest question below', async () => {
      await webview.locator('button#threads').first().click();
      const widget = page.locator('.quick-input-widget');
      await widget.locator('.quick-input-title:has-text("Chat History")').first().waitFor({ state: 'visible', timeout: 30_000 });
      // The thread of "ragls: Ask" and "Ask in Chat" (three questions), by its first question and its latest.
      const row = widget.locator('.monaco-list-row:has-text("How do I roll back beacon firmware?")').first();
      await row.waitFor({ state: 'visible', timeout: 30_000 });
      const text = (await row.textContent()) ?? '';
      if (!text.includes('3 questions') || !text.includes('latest: and how do I check which version of it is running?')) {
        throw new Error(`the history row reads ${JSON.stringify(text)}`);
      }
      await page.screenshot({ path: join(shots, 'chat-history.png') });
      await row.click();
      await webview.locator('h3.question:has-text("and how do I check which version of it is running?")').first()
        .waitFor({ state: 'visible', timeout: 30_000 });
    }, page, shots);
    await chatErrorSteps(session, webview, QUESTION, STEP_TIMEOUT_MS);
    await step('a folder of code only: the status bar item warns; its hover and Show Status say what to set', async () => {
      const app = join(ws.root, 'app');
      mkdirSync(app, { recursive: true });
      writeFileSync(join(app, 'main.py'), "print('hello')\n");
      // As if added with "Add Folder to Workspace…": the workspace file lists it, the server gets the new folder.
      const file = JSON.parse(readFileSync(ws.workspaceFile, 'utf8'));
      file.folders.push({ path: 'app' });
      writeFileSync(ws.workspaceFile, JSON.stringify(file, null, 2));
      await page.keyboard.press('Escape');
      const item = page.locator('.statusbar-item:has-text("ragls: 4 files"):has(.codicon-warning)').first();
      await item.waitFor({ state: 'visible', timeout: STEP_TIMEOUT_MS });
      await item.hover();
      const hover = page.locator('.monaco-hover:has-text("no file here matches sources.include"), .workbench-hover:has-text("no file here matches sources.include")');
      await hover.first().waitFor({ state: 'visible', timeout: 30_000 });
      await page.screenshot({ path: join(shots, 'status-warning.png') });
      if (!/no file here matches sources\.include `\*\*\/\*\.\{md,/.test((await hover.first().textContent()) ?? '')) {
        throw new Error(`the hover does not show the notice as it is: ${await hover.first().textContent()}`);
      }
      await item.click(); // runs "ragls: Show Status"
      const toast = page.locator('.notifications-toasts .notification-toast:has-text("no file here matches sources.include")');
      await toast.locator('.monaco-button:has-text("Show Details")').first().waitFor({ state: 'visible', timeout: 60_000 });
      // In short, the folder by its name: what to set (and the absolute paths) is behind Show Details.
      const said = (await toast.first().locator('.notification-list-item-message').first().textContent()) ?? '';
      if (!said.includes('app: no file here matches sources.include; what to do: Show Details') || said.includes('ragls indexes') || said.includes(ws.root)) {
        throw new Error(`the Show Status message is not short: ${said}`);
      }
      await page.locator('.part.sidebar').first().hover(); // the item in its own colours, not hovered
      await page.waitForTimeout(500); // the toast slides in
      await page.screenshot({ path: join(shots, 'status-warning-message.png') });
    }, page, shots);
    await step('the extension\'s page shows its README with no broken image', async () => {
      await page.keyboard.press('Escape');
      await page.locator('.monaco-workbench').first().click();
      await paletteCommand(page, 'Extensions: Show Installed Extensions');
      await page.keyboard.press('Enter');
      await page.locator('.extensions-viewlet .extension-list-item:has-text("ragls")').first().click({ timeout: 60_000 });
      const readme = page.frameLocator('iframe.webview.ready:not([src*="purpose=webviewView"])').frameLocator('#active-frame');
      await readme.locator('h1:has-text("ragls for VS Code")').first().waitFor({ state: 'visible', timeout: 60_000 });
      await readme.locator('h2:has-text("Commands")').first().waitFor({ state: 'visible', timeout: 10_000 });
      // Each command's name leads its line (a table row centred its name out of sight beside a long description).
      await readme.locator('li:has-text("ragls: Ask") strong').first().waitFor({ state: 'visible', timeout: 10_000 });
      const images = readme.locator('img');
      const count = await images.count();
      for (let i = 0; i < count; i++) {
        const loaded = () => images.nth(i).evaluate((el) => el.complete && el.naturalWidth > 0);
        const deadline = Date.now() + 30_000;
        while (!(await loaded()) && Date.now() < deadline) {
          await page.waitForTimeout(250);
        }
        if (!(await loaded())) {
          throw new Error(`README image ${i + 1} of ${count} is broken (${await images.nth(i).getAttribute('src')})`);
        }
      }
      await page.screenshot({ path: join(shots, 'extension-page.png') });
    }, page, shots);
    await extractedTextAfterReload(session, 4);
  });
}

runMain(main);
