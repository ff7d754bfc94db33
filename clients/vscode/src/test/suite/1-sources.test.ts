/**
 * In-editor tests, a source opens at its cited passage: labels, [n] and extracted text (how they run, and the suite
 * they share: ./helpers.ts).
 */
import assert from 'node:assert/strict';
import * as vscode from 'vscode';
import { highlightedRanges, highlightParts, revealSource } from '../../decorations';
import { describeError } from '../../commands';
import { ResponseError } from 'vscode-languageclient/node';
import { citedPlace, openSource, sourceLabel } from '../../answer';
import { extractedFileUri, extractedLanguage, sourceDocumentUri } from '../../extracted';
import { AskRequest, QueryRequest, Source } from '../../protocol';
import { assertOpensAt, editorSuite, api, handbook } from './helpers';

editorSuite(() => {
  test('a source label: lines, one line, and one line entered mid-way (path:line:column, as the CLI prints it)', () => {
    const uri = vscode.Uri.joinPath(handbook.uri, 'docs', 'calibration.md').toString();
    const at = (sl: number, sc: number, el: number, ec: number): Source => ({
      uri, path: 'docs/calibration.md', range: { start: { line: sl, character: sc }, end: { line: el, character: ec } },
    });
    assert.equal(sourceLabel(at(6, 0, 8, 0)), 'handbook/docs/calibration.md:7-8');
    assert.equal(sourceLabel(at(6, 0, 6, 40)), 'handbook/docs/calibration.md:7');
    // two chunks of one 300,000-character line were both "…:3"
    assert.equal(sourceLabel(at(2, 1995, 2, 3994)), 'handbook/docs/calibration.md:3:1996');
    assert.equal(sourceLabel({ ...at(0, 0, 9, 0), focusRange: at(2, 299995, 2, 300027).range }),
      'handbook/docs/calibration.md:3:299996');
    // an extractive answer quoting one chunk at two far places: one label with both (`focusRanges`, line order)
    assert.equal(sourceLabel({ ...at(0, 0, 40, 0), focusRange: at(21, 0, 26, 0).range,
      focusRanges: [at(3, 0, 9, 5).range, at(21, 0, 26, 0).range] }), 'handbook/docs/calibration.md:4-10, 22-26');
    // lines of a converted document's extracted text, and a PDF's page, said after them as the CLI says it
    assert.equal(sourceLabel({ ...at(6, 0, 8, 0), extractedText: true }), 'handbook/docs/calibration.md:7-8 (extracted text)');
    assert.equal(sourceLabel({ ...at(6, 0, 8, 0), page: 3, extractedText: true }),
      'handbook/docs/calibration.md:7-8 (page 3, extracted text)');
    assert.equal(sourceLabel({ ...at(6, 0, 8, 0), page: 3 }), 'handbook/docs/calibration.md:7-8 (page 3)');
  });

  test('a [n] of a source quoted at two places opens the place its own answer item quotes', async () => {
    const uri = vscode.Uri.joinPath(handbook.uri, 'docs', 'calibration.md').toString();
    const tools = { start: { line: 6, character: 0 }, end: { line: 6, character: 98 } };
    const steps = { start: { line: 10, character: 0 }, end: { line: 13, character: 64 } };
    const source: Source = { uri, path: 'docs/calibration.md', range: { start: { line: 0, character: 0 }, end: { line: 14, character: 0 } },
      focusRange: tools, focusRanges: [tools, steps] };
    assert.deepEqual((await citedPlace(source, '2. Loosen the three housing bolts with the zeta-17 wrench [1].')).focusRange, steps);
    assert.deepEqual((await citedPlace(source, 'Use the zeta-17 torque wrench, set to 42 newton-metres [1].')).focusRange, tools);
    assert.equal(await citedPlace(source, ''), source, 'no item text (a source list entry): as the server sent it');
    const one: Source = { ...source, focusRanges: undefined };
    assert.equal(await citedPlace(one, 'Loosen the three housing bolts [1].'), one, 'one place: as the server sent it');
  });

  test('a [n] lands on the sentence its answer item quotes (quoteRanges), also mid-line after another sentence', async () => {
    // The real server's extractive answer quotes four sentences of deployment.md for [1], cited as one range
    // (3-6); "To roll back, run ..." starts mid-line 6. Each item's [1] opens at its own sentence.
    const result = await api.server.request(AskRequest, { question: 'How do I roll back beacon firmware?' });
    const source = result.sources.find((s) => s.n === 1 && s.path.endsWith('deployment.md'));
    assert.ok(source?.quoteRanges && source.quoteRanges.length > 1, JSON.stringify(result.sources));
    const doc = await vscode.workspace.openTextDocument(vscode.Uri.parse(source.uri));
    for (const [item, sentence] of [
      ['To roll back, run beacon push --previous [1].', 'To roll back, run `beacon push --previous`.'],
      ['If no beacon reports a fault, run beacon push --all to update the rest [1].', 'If no beacon reports a fault,'],
      ['New firmware goes out to the beacon cluster in stages [1].', 'New firmware goes out'],
    ]) {
      const place = await citedPlace(source, item);
      const editor = await openSource(place);
      assertOpensAt(editor, place);
      const at = editor!.selection.active;
      assert.ok(doc.lineAt(at.line).text.slice(at.character).startsWith(sentence),
        `${item} opened at ${at.line + 1}:${at.character + 1}: ${doc.lineAt(at.line).text}`);
    }
    // A search result too: its focus joins the sentences around the answering one (lines 3-6; the closing warning on
    // line 8, which shares only the page's topic word, stays out since session 68); the cursor goes to the answering
    // sentence, the highlight covers the focus the server sent.
    const found = await api.server.request(QueryRequest, { query: 'roll back beacon firmware', topK: 5 });
    const hit = found.chunks.find((c) => c.source.path.endsWith('deployment.md'));
    assert.ok(hit?.source.quoteRanges?.length === 1, JSON.stringify(found.chunks.map((c) => c.source)));
    const editor = await revealSource(hit.source);
    const at = editor.selection.active;
    assert.ok(doc.lineAt(at.line).text.slice(at.character).startsWith('To roll back'), `at ${at.line + 1}:${at.character + 1}`);
    assert.deepEqual(highlightedRanges(editor.document.uri).map((r) => [r.start.line, r.end.line]),
      [[hit.source.focusRange!.start.line, hit.source.focusRange!.end.line]]);
    assert.ok(hit.source.focusRange!.start.line <= 5 && hit.source.focusRange!.end.line >= 5, JSON.stringify(hit.source));
  });

  test('a cited sentence that starts or ends inside a line is highlighted from its first to its last character', async () => {
    const uri = vscode.Uri.joinPath(handbook.uri, 'docs', 'deployment.md');
    const doc = await vscode.workspace.openTextDocument(uri);
    const row = 5; // "run `beacon push --all` to update the rest. To roll back, run `beacon push --previous`."
    const text = doc.lineAt(row).text;
    const at = text.indexOf('To roll back');
    assert.ok(at > 0, text);
    const pos = (line: number, character = 0) => ({ line, character });
    const source = (start: { line: number; character: number }, end: { line: number; character: number }): Source => ({
      uri: uri.toString(), path: 'docs/deployment.md', range: { start: pos(0), end: pos(8) }, focusRange: { start, end } });
    // the sentence after another one on its line, to the line's end: lit from "To", not with the sentence before
    let editor = await revealSource(source(pos(row, at), pos(row, text.length)));
    let parts = highlightParts(editor.document, source(pos(row, at), pos(row, text.length)).focusRange!);
    assert.equal(editor.document.getText(highlightedRanges(uri)[0]), text.slice(at));
    assert.deepEqual([parts.lines.length, parts.spans.length], [0, 1], 'one span, no whole line');
    // from the line above's start to the end of the sentence before "To roll back": a whole line, then a span
    editor = await revealSource(source(pos(row - 1), pos(row, at - 1)));
    parts = highlightParts(editor.document, source(pos(row - 1), pos(row, at - 1)).focusRange!);
    assert.ok(editor.document.getText(highlightedRanges(uri)[0]).endsWith('to update the rest.'),
      editor.document.getText(highlightedRanges(uri)[0]));
    assert.deepEqual(parts.lines.map((r) => [r.start.line, r.end.line]), [[row - 1, row - 1]]);
    assert.deepEqual(parts.spans.map((r) => [r.start.line, r.start.character, r.end.line, r.end.character]), [[row, 0, row, at - 1]]);
    // lines cited whole stay whole lines (an end at character 0 ends with the line before)
    editor = await revealSource(source(pos(row - 1), pos(row + 1)));
    parts = highlightParts(editor.document, source(pos(row - 1), pos(row + 1)).focusRange!);
    assert.deepEqual(parts.lines.map((r) => [r.start.line, r.end.line]), [[row - 1, row]]);
    assert.equal(parts.spans.length, 0);
  });

  test('a source of extracted text (a PDF, HTML or DOCX file) opens as the text the server extracted', async () => {
    // The server reads a file as it indexed it (rag/readPassage); the mechanism is the same for any indexed file,
    // so deployment.md stands in for a converted one here.
    const uri = vscode.Uri.joinPath(handbook.uri, 'docs', 'deployment.md');
    const line = (n: number) => ({ line: n, character: 0 });
    const source: Source = { uri: uri.toString(), path: 'docs/deployment.md', range: { start: line(2), end: line(6) },
      focusRange: { start: line(5), end: { line: 5, character: 20 } }, extractedText: true };
    const editor = await openSource(source);
    assert.ok(editor, 'no editor');
    assert.equal(editor.document.uri.scheme, 'ragls-extracted', editor.document.uri.toString());
    // its path is the file's in its workspace folder, after the folder's name in this multi-root workspace (the
    // breadcrumbs read "handbook > docs > deployment.md" as the file's own, not every folder from /), the folder in
    // its query; it reads the file's text
    assert.equal(editor.document.uri.authority, 'folder');
    assert.equal(editor.document.uri.path, '/handbook/docs/deployment.md');
    assert.equal(extractedFileUri(editor.document.uri).toString(), uri.toString());
    const outside = vscode.Uri.file('/elsewhere/manual.pdf');
    assert.equal(sourceDocumentUri({ ...source, uri: outside.toString() }).toString(),
      outside.with({ scheme: 'ragls-extracted' }).toString(), 'a file outside the workspace: its absolute path');
    assert.equal(extractedFileUri(vscode.Uri.parse('ragls-extracted:/elsewhere/manual.pdf')).toString(),
      outside.toString(), 'an editor restored from before: the file of its path');
    const query = JSON.stringify({ root: handbook.uri.toString(), name: 'handbook' });
    assert.equal(extractedFileUri(vscode.Uri.from({ scheme: 'ragls-extracted', path: '/docs/deployment.md', query })).toString(),
      uri.toString(), 'a folder opened alone: the path in the folder (so did an editor restored from session 62)');
    assert.ok(editor.document.lineAt(5).text.includes('To roll back, run'), editor.document.getText());
    assertOpensAt(editor, source);
    // in the extracted text's language, not the one of the file's name: Markdown (HTML, DOCX), plain text (PDF).
    // (deployment.md's name says Markdown too: the page's HTML mode is put on it by hand, and opening it again
    // gives the text its language back.)
    assert.equal(editor.document.languageId, 'markdown');
    await vscode.languages.setTextDocumentLanguage(editor.document, 'html');
    const again = await openSource(source);
    assert.equal(again?.document.uri.toString(), editor.document.uri.toString());
    assert.equal(again?.document.languageId, 'markdown');
    assert.equal(extractedLanguage(vscode.Uri.parse('ragls-extracted:/docs/page.html')), 'markdown');
    assert.equal(extractedLanguage(vscode.Uri.parse('ragls-extracted:/docs/manual.PDF')), 'plaintext');
  });

  test('a request pending when the server dies says so in words, not as a JSON-RPC code', () => {
    // What vscode-jsonrpc rejects pending requests with when the server's connection closes.
    const text = describeError(new ResponseError(-32097, 'Pending response rejected since connection got disposed'));
    assert.equal(text, 'ragls: the server stopped before it answered (Output → ragls says why); ask again, or run "ragls: Restart Server" if it keeps stopping.');
    assert.equal(describeError(new ResponseError(-32803, 'query must not be empty')), 'ragls: query must not be empty');
  });
});
