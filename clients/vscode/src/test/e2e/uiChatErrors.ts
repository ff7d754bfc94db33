/**
 * The UI steps of a chat turn that fails, run in uiAsk.ts' code-server session after its chat steps: answers pointed at
 * a dead LLM server show the error with Retry and Open Settings above the extractive answer (screenshot
 * `chat-error.png`); the server killed (SIGKILL) while an LLM holds its answer: the turn says the server stopped, with
 * Retry and Show Output (screenshot `chat-server-stopped.png`), and Retry answers from the server the language client
 * started again (`chat-server-retried.png`). Each step changes the workspace file's settings as Settings would; the
 * last one removes them again (extractive answers).
 */
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { createServer as createHttpServer, type ServerResponse } from 'node:http';
import { createServer } from 'node:net';
import { join } from 'node:path';
import type { PwFrameLocator } from './codeServer';
import { step, type UiSession } from './uiSteps';

/** Pids of the `ragls serve` processes in code-server's process group (`pgid`: it runs detached, its own group):
 * this test's server only, never another one running on the machine. */
function raglsServers(pgid: number): number[] {
  const found: number[] = [];
  for (const name of readdirSync('/proc').filter((n) => /^\d+$/.test(n))) {
    try {
      const stat = readFileSync(`/proc/${name}/stat`, 'utf8');
      const group = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[2]);
      const args = readFileSync(`/proc/${name}/cmdline`, 'utf8').split('\0');
      if (group === pgid && args.some((a) => a === 'ragls' || a.endsWith('/ragls')) && args.includes('serve')) {
        found.push(Number(name));
      }
    } catch {
      // gone meanwhile
    }
  }
  return found;
}

/** The error steps in `session`, asking `question` (its answer names `beacon push --previous`) in the chat view
 * `webview` (the Secondary Side Bar's webview frame), each wait at most `stepTimeoutMs`. */
export async function chatErrorSteps({ page, ws, shots, server }: UiSession, webview: PwFrameLocator, question: string,
  stepTimeoutMs: number): Promise<void> {
  await step('an LLM that cannot be reached: the turn shows the error, Retry and Open Settings above the answer', async () => {
    const dead = await new Promise<number>((done) => {
      const probe = createServer().listen(0, '127.0.0.1', () => {
        const { port } = probe.address() as { port: number };
        probe.close(() => done(port));
      });
    });
    // As if set in Settings: the workspace file's settings change, the server gets didChangeConfiguration.
    const file = JSON.parse(readFileSync(ws.workspaceFile, 'utf8'));
    file.settings['ragls.generation.backend'] = 'external';
    file.settings['ragls.generation.baseUrl'] = `http://127.0.0.1:${dead}/v1`;
    writeFileSync(ws.workspaceFile, JSON.stringify(file, null, 2));
    // New Chat: the "+" in the view's title bar (the Secondary Side Bar's).
    await page.locator('.part.auxiliarybar .action-label[aria-label^="New Chat"]').first().click();
    await webview.locator('p.empty').first().waitFor({ state: 'visible', timeout: 30_000 });
    // The new settings reach the server asynchronously: ask until a turn reports the LLM failure.
    const deadline = Date.now() + stepTimeoutMs;
    for (let n = 1; ; n++) {
      await webview.locator('#input').first().click();
      await page.keyboard.type(question, { delay: 5 });
      await page.keyboard.press('Enter');
      const turn = webview.locator(`section.turn:nth-of-type(${n})`);
      await turn.locator('p.meta').first().waitFor({ state: 'visible', timeout: stepTimeoutMs });
      if ((await turn.locator('.error').count()) > 0 || Date.now() > deadline) {
        break;
      }
    }
    const error = webview.locator('section.turn:last-of-type .error').first();
    await error.waitFor({ state: 'visible', timeout: 10_000 });
    const text = (await error.textContent()) ?? '';
    if (!text.includes('The LLM failed') || !text.includes(`127.0.0.1:${dead}`) || !text.includes('the VS Code setting ragls.generation.baseUrl')) {
      throw new Error(`error text is ${JSON.stringify(text)}`);
    }
    for (const label of ['Retry', 'Open Settings']) {
      if ((await error.locator(`button:text-is("${label}")`).count()) !== 1) {
        throw new Error(`no ${label} button in the error`);
      }
    }
    const answer = (await webview.locator('section.turn:last-of-type .answer').first().textContent()) ?? '';
    if (!answer.includes('beacon push --previous')) {
      throw new Error(`the extractive answer is missing:\n${answer}`);
    }
    await page.screenshot({ path: join(shots, 'chat-error.png') });
  }, page, shots);
  await step('the server killed mid-answer: the turn says so with Retry and Show Output; Retry answers', async () => {
    // A loopback LLM that lists a model and holds every chat request open: the answer is under way when the
    // server dies (SIGKILL, as the kernel's OOM killer ends it).
    const held: ServerResponse[] = [];
    const llm = createHttpServer((req, res) => {
      if (req.method === 'GET') {
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ object: 'list', data: [{ id: 'slow-model', object: 'model' }] }));
        return;
      }
      held.push(res);
    });
    await new Promise<void>((done) => llm.listen(0, '127.0.0.1', done));
    try {
      const file = JSON.parse(readFileSync(ws.workspaceFile, 'utf8'));
      file.settings['ragls.generation.backend'] = 'external';
      file.settings['ragls.generation.baseUrl'] = `http://127.0.0.1:${(llm.address() as { port: number }).port}/v1`;
      writeFileSync(ws.workspaceFile, JSON.stringify(file, null, 2));
      await page.locator('.part.auxiliarybar .action-label[aria-label^="New Chat"]').first().click();
      await webview.locator('p.empty').first().waitFor({ state: 'visible', timeout: 30_000 });
      // The new settings reach the server asynchronously: ask until the LLM holds a request (Stop ends the turns
      // answered before, by the failing LLM of the step above).
      const deadline = Date.now() + stepTimeoutMs;
      while (!held.length) {
        await webview.locator('#input').first().click();
        await page.keyboard.type(question, { delay: 5 });
        await page.keyboard.press('Enter');
        const turn = webview.locator('section.turn:last-of-type');
        while (!held.length && (await turn.locator('p.meta').count()) === 0 && Date.now() < deadline) {
          await page.waitForTimeout(200);
        }
        if (Date.now() > deadline) {
          throw new Error('the LLM was never asked');
        }
      }
      const servers = raglsServers(server.proc.pid!);
      if (servers.length !== 1) {
        throw new Error(`expected one ragls server under code-server, found ${JSON.stringify(servers)}`);
      }
      process.kill(servers[0], 'SIGKILL');
      const error = webview.locator('section.turn:last-of-type .error').first();
      await error.waitFor({ state: 'visible', timeout: 30_000 });
      const text = (await error.textContent()) ?? '';
      if (!text.includes('the server stopped before it answered')) {
        throw new Error(`error text is ${JSON.stringify(text)}`);
      }
      for (const [label, count] of [['Retry', 1], ['Show Output', 1], ['Open Settings', 0]] as const) {
        if ((await error.locator(`button:text-is("${label}")`).count()) !== count) {
          throw new Error(`${count ? 'no' : 'a'} ${label} button in the error: ${await error.textContent()}`);
        }
      }
      await page.screenshot({ path: join(shots, 'chat-server-stopped.png') });
    } finally {
      held.forEach((res) => res.destroy());
      llm.close();
    }
    // Back to extractive answers; Retry asks the server the language client started again.
    const file = JSON.parse(readFileSync(ws.workspaceFile, 'utf8'));
    delete file.settings['ragls.generation.backend'];
    delete file.settings['ragls.generation.baseUrl'];
    writeFileSync(ws.workspaceFile, JSON.stringify(file, null, 2));
    await webview.locator('section.turn:last-of-type .error button:text-is("Retry")').first().click();
    const retried = webview.locator('section.turn:last-of-type');
    await retried.locator('p.meta').first().waitFor({ state: 'visible', timeout: stepTimeoutMs });
    const answer = (await retried.locator('.answer').first().textContent()) ?? '';
    if (!answer.includes('beacon push --previous')) {
      throw new Error(`no answer after Retry: ${await retried.textContent()}`);
    }
    await page.screenshot({ path: join(shots, 'chat-server-retried.png') });
  }, page, shots);
}
