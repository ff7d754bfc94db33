/**
 * Checks of the chat view's layout and keyboard use, run on a turn of uiAsk.ts' session (its step "a code block in an
 * answer wraps inside the chat view"): a source label wraps after a "/" of its path, never inside a file name that
 * fits a line, and in a view narrower than the name it still reads from its "[n]" down; Shift+Tab from the input
 * walks back through the turn's buttons and sources, each outlined in the theme's focus colour, the buttons with the
 * theme's button border. Each throws an Error that says what it saw.
 */
import type { PwFrameLocator, PwLocator, PwPage } from './codeServer';

/** The source labels of `turn` (a `section.turn` of the chat view) wrap only between the parts of a path, and the
 * label of `file` (a source of the turn whose label is wider than the view) does wrap, or the check proves nothing. */
export async function sourceLabelsReadInOrder(turn: PwLocator, file: string): Promise<void> {
  // A source label wraps after a "/" of its path, never inside the file name ("firmware-version-" above
  // "check.md:3-9"): a name that fits a line is on one line. The label must wrap here, or this proves nothing.
  /* eslint-disable @typescript-eslint/no-explicit-any -- (this file compiles without the DOM library) */
  const labels: { label: string; rows: number; nameRows: number; fits: boolean }[] = await turn.evaluate((el) =>
    Array.from(el.querySelectorAll('details.sources[open] a.source')).map((a: any) => {
      const doc = a.ownerDocument;
      const li = a.closest('li');
      const style = doc.defaultView.getComputedStyle(li);
      const width = li.clientWidth - parseFloat(style.paddingLeft) - parseFloat(style.paddingRight);
      const walker = doc.createTreeWalker(a, 4 /* NodeFilter.SHOW_TEXT */);
      const tops = new Set<number>();
      const nameTops = new Set<number>();
      let nameWidth = 0;
      const label = (a.textContent ?? '') as string;
      const name = label.replace(/^\[\d+\] /, '').replace(/:.*$/, '').split('/').pop() ?? '';
      for (let node = walker.nextNode(), at = 0; node; node = walker.nextNode()) {
        const text = node.textContent ?? '';
        for (let i = 0; i < text.length; i++, at++) {
          const range = doc.createRange();
          range.setStart(node, i);
          range.setEnd(node, i + 1);
          const rect = range.getClientRects()[0];
          if (!rect || rect.width === 0) {
            continue;
          }
          tops.add(Math.round(rect.top));
          const start = label.indexOf(name + ':');
          if (at >= start && at < start + name.length) {
            nameTops.add(Math.round(rect.top));
            nameWidth += rect.width;
          }
        }
      }
      return { label, rows: tops.size, nameRows: nameTops.size, fits: nameWidth <= width };
    }));
  /* eslint-enable @typescript-eslint/no-explicit-any */
  const firmware = labels.find((l) => l.label.includes(file));
  if (!firmware || firmware.rows < 2) {
    throw new Error(`the label of ${file} does not wrap (the view is wider than this step assumes): ${JSON.stringify(labels)}`);
  }
  const broken = labels.filter((l) => l.fits && l.nameRows > 1);
  if (broken.length) {
    throw new Error(`a source's file name is broken across lines though it fits one: ${JSON.stringify(broken)}`);
  }
  // The view dragged narrower than the file name: the name wraps inside, and the label still reads from its "[n]"
  // down (nothing of it above the row of "[1]": by the baseline, "[1]" stood beside the name's last line).
  const above: string[] = await turn.evaluate((el: any) => { // eslint-disable-line @typescript-eslint/no-explicit-any
    const doc = el.ownerDocument;
    const before = doc.body.style.width;
    doc.body.style.width = '150px';
    const out: string[] = [];
    for (const a of Array.from(el.querySelectorAll('details.sources[open] a.source')) as any[]) { // eslint-disable-line @typescript-eslint/no-explicit-any
      const tops: number[] = [];
      const walker = doc.createTreeWalker(a, 4 /* NodeFilter.SHOW_TEXT */);
      for (let node = walker.nextNode(); node; node = walker.nextNode()) {
        for (let i = 0; i < (node.textContent ?? '').length; i++) {
          const range = doc.createRange();
          range.setStart(node, i);
          range.setEnd(node, i + 1);
          const rect = range.getClientRects()[0];
          if (rect && rect.width > 0) {
            tops.push(Math.round(rect.top));
          }
        }
      }
      if (tops.length && Math.min(...tops) < tops[0]) {
        out.push(`${a.textContent}: a row above its "[n]" (${tops[0] - Math.min(...tops)} px)`);
      }
    }
    doc.body.style.width = before;
    return out;
  });
  if (above.length) {
    throw new Error(`in a narrow view a source label reads out of order: ${JSON.stringify(above)}`);
  }
}

/** Shift+Tab from the chat's input (`webview`: the chat view's frame on `page`) reaches a button and a source of `turn`,
 * each focused one outlined 1 px solid in --vscode-focusBorder, a button bordered in --vscode-button-border. */
export async function keyboardFocusInThemeColours(page: PwPage, webview: PwFrameLocator, turn: PwLocator): Promise<void> {
  // Keyboard only: Shift+Tab from the input walks back through the turn's buttons and sources, each outlined in
  // the theme's focus colour (the webview's default outline is near black, unseen on a dark theme, and none on a
  // button); the buttons have the theme's button border (Dark Modern's secondary ones have no background).
  /* eslint-disable @typescript-eslint/no-explicit-any */
  const [focusColour, buttonBorder]: string[] = await turn.evaluate((el: any) =>
    ['var(--vscode-focusBorder)', 'var(--vscode-button-border, transparent)'].map((value) => {
      const probe = el.ownerDocument.createElement('div');
      probe.style.outlineColor = value;
      el.appendChild(probe);
      const colour = el.ownerDocument.defaultView.getComputedStyle(probe).outlineColor;
      probe.remove();
      return colour;
    }));
  await webview.locator('#input').first().click();
  const walked: string[] = [];
  for (let i = 0; i < 8; i++) {
    await page.keyboard.press('Shift+Tab');
    const seen = await webview.locator(':focus').first().evaluate((el: any) => {
      const s = el.ownerDocument.defaultView.getComputedStyle(el);
      return { tag: el.tagName.toLowerCase(), text: (el.textContent ?? '').trim().slice(0, 30), outline: `${s.outlineStyle} ${s.outlineWidth} ${s.outlineColor}`,
        border: `${s.borderTopStyle} ${s.borderTopWidth} ${s.borderTopColor}` };
    });
    walked.push(JSON.stringify(seen));
    if (seen.outline !== `solid 1px ${focusColour}`) {
      throw new Error(`the focused ${seen.tag} "${seen.text}" is outlined ${seen.outline}, not in the focus colour ${focusColour}; walked: ${walked.join(', ')}`);
    }
    if (seen.tag === 'button' && seen.border !== `solid 1px ${buttonBorder}`) {
      throw new Error(`the button "${seen.text}" has the border ${seen.border}, not the theme's button border ${buttonBorder}`);
    }
  }
  /* eslint-enable @typescript-eslint/no-explicit-any */
  if (!walked.some((w) => w.includes('"tag":"a"')) || !walked.some((w) => w.includes('"tag":"button"'))) {
    throw new Error(`Shift+Tab did not reach both a button and a source: ${walked.join(', ')}`);
  }
}
