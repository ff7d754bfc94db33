/**
 * How an answer is rendered and opened, shared by the chat view (the one answer surface: chat/view.ts) and the
 * `@ragls` participant: markdown with `[n]` citation links, source labels ("path:12-18") and opening a source at
 * its focus lines.
 *
 * Markdown is rendered in the extension host by markdown-it with raw HTML disabled (so server text can never
 * inject markup); the webview only swaps in the HTML.
 */
import MarkdownIt from 'markdown-it';
import * as vscode from 'vscode';
import { escapeHtml } from './webview';
import { focusOf, lineRange, revealSource } from './decorations';
import { sourceDocumentUri } from './extracted';
import type { AskResult, Source } from './protocol';

/** The longest word of inline code kept on one line (`createRenderer`): a command's words and options. */
export const NOWRAP_CODE_WORD = 24;

/**
 * The answer's markdown as the view shows, copies and inserts it: `answer` without the label line the server names
 * as saying no more than the turn's footer does (`label`, newer servers: "*Extractive answer (no LLM configured):
 * …*") and the blank lines after it; else `answer`. Trimmed.
 */
export function answerBody(result: Pick<AskResult, 'answer' | 'label'>): string {
  return withoutLabel(result.answer.trim(), result.label).trim();
}

/**
 * `text` without the label line it opens with (after any blank lines: an extractive answer streamed after an LLM's
 * failed start) and the blank lines after that line, when `label` (rag/ask `label`) is given and `text` opens with
 * it; else `text` unchanged.
 */
export function withoutLabel(text: string, label: string | undefined): string {
  const line = label?.trim();
  const lead = /^\s*/.exec(text)?.[0] ?? '';
  return line && text.startsWith(line, lead.length) ? lead + text.slice(lead.length + line.length).trimStart() : text;
}

/** `html` (a code block's escaped text) with, in each word (a run without spaces) longer than NOWRAP_CODE_WORD
 * characters (an entity such as `&quot;` counting as one), a <wbr> after each ",", "|", "=", "/" or "(" followed by
 * more of the same token, and after each "." followed by a letter or "_" (a name's part, not a number's decimals):
 * where a token longer than the narrow chat view's line may break (createRenderer). A shorter word has none: it fits
 * a line, so it goes to the next one whole (the browser fills each line to the last break that fits: "load=json." /
 * "load)" in Flask's `app.config.from_file("config.json", load=json.load)`). The text read or copied is unchanged. */
export function codeBreaks(html: string): string {
  return html.replace(/[^\s]+/g, (word) => word.replace(/&[#\w]+;/g, '&').length <= NOWRAP_CODE_WORD ? word
    : word.replace(/([,|=/(])(?=[^\s<)])|(\.)(?=[A-Za-z_])/g, (_m, mark?: string, dot?: string) => `${mark ?? dot}<wbr>`));
}

/** Render answer markdown; `[n]` becomes a citation link when `n` is a known source number. */
export function createRenderer(): (
  markdown: string,
  sources: ReadonlySet<number>,
  titles?: ReadonlyMap<number, string>,
) => string {
  const md = new MarkdownIt({ html: false, linkify: false, breaks: false });
  let known: ReadonlySet<number> = new Set();
  let hover: ReadonlyMap<number, string> = new Map();
  md.inline.ruler.before('link', 'ragls_cite', (state, silent) => {
    const match = /^\[(\d{1,3})\]/.exec(state.src.slice(state.pos));
    if (!match || !known.has(Number(match[1]))) {
      return false;
    }
    if (!silent) {
      const token = state.push('ragls_cite', '', 0);
      token.meta = { n: Number(match[1]) };
    }
    state.pos += match[0].length;
    return true;
  });
  // A citation stays on the line of the word before it: the space before it a no-break one (U+00A0) in the HTML only
  // (copied and inserted answers are the markdown). In the narrow side bar "[1]." went to a line of its own under
  // a sentence ending at the edge ("… from_prefixed_env" / "[1].").
  md.core.ruler.push('ragls_cite_glue', (state) => {
    for (const block of state.tokens) {
      const children = block.children ?? [];
      children.forEach((token, i) => {
        const before = children[i - 1];
        if (token.type === 'ragls_cite' && before?.type === 'text' && before.content.endsWith(' ')) {
          before.content = `${before.content.slice(0, -1)}\u00a0`;
        }
      });
    }
  });
  md.renderer.rules.ragls_cite = (tokens, idx) => {
    const n = Number(tokens[idx].meta.n);
    // Hover shows the cited text (answerActions.citationTitles) once it is read, else what a click does.
    const title = escapeHtml(hover.get(n) ?? `Open source ${n}`);
    return `<a href="#" class="cite" data-n="${n}" title="${title}">[${n}]</a>`;
  };
  // Inline code breaks only at its spaces: the browser breaks after a hyphen, so in the narrow side bar
  // "beacon push --previous" read "beacon push --" / "previous". Each word up to NOWRAP_CODE_WORD characters is kept
  // whole (a longer one still breaks where nothing else fits); the text copied is the same.
  md.renderer.rules.code_inline = (tokens, idx, _options, _env, self) => {
    const words = tokens[idx].content.split(/(\s+)/).map((w) => {
      const text = md.utils.escapeHtml(w);
      return w.length && w.length <= NOWRAP_CODE_WORD && !/^\s+$/.test(w) ? `<span class="nw">${text}</span>` : text;
    });
    return `<code${self.renderAttrs(tokens[idx])}>${words.join('')}</code>`;
  };
  // A code block wraps in the narrow side bar (page.ts: `overflow-wrap: anywhere`): a token longer than the line broke
  // wherever the line ended ("--fields name,firmware_version,last_" / "seen,uptime", "parent.register_blueprint(c" /
  // "hild)"). A break may come after a ",", "|", "=", "/" or "(" inside it, or after a "." before a name
  // ("flask.json." / "provider"; not in "1.5") (<wbr>: nothing is added to the text copied), so it breaks between
  // its parts first.
  for (const rule of ['fence', 'code_block'] as const) {
    const render = md.renderer.rules[rule]!;
    md.renderer.rules[rule] = (tokens, idx, options, env, self) =>
      render(tokens, idx, options, env, self).replace(
        /(<code[^>]*>)([\s\S]*)(<\/code>)/,
        (_m, open: string, body: string, close: string) => `${open}${codeBreaks(body)}${close}`,
      );
  }
  // Links in answers open outside the webview only through VS Code (never navigate the webview itself).
  return (markdown, sources, titles) => {
    known = sources;
    hover = titles ?? new Map();
    return md.render(markdown);
  };
}

/** The source's path; in a multi-root workspace prefixed with its folder's name ("notes/meeting-notes.md"). */
export function displayPath(source: Source): string {
  const uri = vscode.Uri.parse(source.uri);
  // Relative to its workspace folder even when the server sent an absolute path (a file of the selection, sent
  // with the question as an ephemeral document, is not named relative to its folder).
  if (uri.scheme === 'file' && vscode.workspace.getWorkspaceFolder(uri)) {
    return vscode.workspace.asRelativePath(uri, (vscode.workspace.workspaceFolders?.length ?? 0) > 1);
  }
  return source.path;
}

/**
 * "path:12-18" with 1-based lines, as people read them (path as in `displayPath`): the cited lines (`focusRange`,
 * else the chunk's range), as the CLI prints them and where opening the source puts the cursor. A source an
 * extractive answer quotes at places far apart lists them all (`focusRanges`): "path:4-10, 22-27". Lines that need
 * a note say it after them, as the CLI does (`whereNote`): "manual.pdf:12-14 (page 3, extracted text)".
 */
export function sourceLabel(source: Source): string {
  const { path, lines, note } = sourceLabelParts(source);
  return `${path}:${lines}${note ? ` (${note})` : ''}`;
}

/**
 * What a source's line numbers need beside them, as the CLI prints it: "page 3" for a PDF's page, "extracted text"
 * when they count the text ragls extracted from a PDF, HTML or DOCX file or a web page (`extractedText`, newer
 * servers), not the file's lines; both as "page 3, extracted text"; else "". Neovim's answer_text.where_note.
 */
export function whereNote(source: Source): string {
  const notes = [
    ...(typeof source.page === 'number' ? [`page ${source.page}`] : []),
    ...(source.extractedText === true ? ['extracted text'] : []),
  ];
  return notes.join(', ');
}

/**
 * `sourceLabel`'s parts: the path, the lines after its colon ("12-18"; "4-10, 22-27" for a source quoted at places
 * far apart) and the note on them (`whereNote`, "" without one), for a view that lays them out itself (the chat
 * view keeps the lines on one line).
 */
export function sourceLabelParts(source: Source): { path: string; lines: string; note: string } {
  const path = displayPath(source);
  const note = whereNote(source);
  if (source.focusRanges && source.focusRanges.length > 1) {
    return { path, lines: source.focusRanges.map(linesOf).join(', '), note };
  }
  return { path, lines: linesOf(focusOf(source)), note };
}

/** "12-18", "12", or "3:1996" for one line entered mid-way: the 1-based lines of a wire range as labels show them. */
function linesOf(range: Source['range']): string {
  const start = range.start.line + 1;
  // An end at character 0 means the range stops at the end of the previous line.
  const endLine = range.end.character === 0 && range.end.line > range.start.line
    ? range.end.line
    : range.end.line + 1;
  if (start !== endLine) {
    return `${start}-${endLine}`;
  }
  // One line entered mid-way (a chunk of a line longer than a chunk): ":column", as the CLI and Neovim print it, so
  // two chunks of that line are told apart.
  return range.start.character > 0 ? `${start}:${range.start.character + 1}` : `${start}`;
}

/** The distinct words (3+ letters or digits, lower-cased) of `text`, for `citedPlace`. */
function wordsOf(text: string): Set<string> {
  return new Set((text.toLowerCase().match(/[\p{L}\p{N}_]{3,}/gu) ?? []));
}

/**
 * The source to open for a `[n]` cited in `quote` (the answer's list item or paragraph holding it). An extractive
 * answer's source lists each passage it quotes (`quoteRanges`, from the quoted sentence's first character): the
 * `[n]` opens at the quote whose text shares the most words with `quote` (ties: the one of fewer words, then the first),
 * so the cursor lands on the sentence quoted there, not on the first line of the cited lines ("To roll back, run
 * ..." starts mid-line, after the sentence before it). From an older server, a source quoted at places far apart
 * (`focusRanges`, labelled "path:4-10, 22-27") opens at the place sharing the most words. Any other source (or one
 * whose file cannot be read, or no word in common) is returned as it is. Neovim's answer_text.cited_place does the
 * same.
 */
export async function citedPlace(source: Source, quote: string): Promise<Source> {
  const places = (source.quoteRanges?.length ?? 0) > 1 ? source.quoteRanges : source.focusRanges;
  if (!places || places.length < 2 || !quote) {
    return source;
  }
  let doc: vscode.TextDocument;
  try {
    doc = await vscode.workspace.openTextDocument(sourceDocumentUri(source));
  } catch {
    return source;
  }
  const wanted = wordsOf(quote.replace(/\[\d+\]/g, ' '));
  let best: Source['range'] | undefined;
  let bestScore = 0;
  let bestSize = 0;
  for (const place of places) {
    const lines = lineRange(place);
    // From the quote's first character: the sentence before it on that line is not part of it.
    const words = wordsOf(doc.getText(new vscode.Range(lines.start.line, place.start.character, Math.min(lines.end.line, doc.lineCount - 1), Number.MAX_SAFE_INTEGER)));
    let score = 0;
    for (const w of words) {
      score += wanted.has(w) ? 1 : 0;
    }
    // A tie goes to the place with fewer words: a quote running on over the next one holds that one's words too.
    if (score > bestScore || (score > 0 && score === bestScore && words.size < bestSize)) {
      best = place;
      bestScore = score;
      bestSize = words.size;
    }
  }
  return best ? { ...source, focusRange: best, quoteRanges: undefined } : source;
}

/**
 * Open `source.uri` at its focus lines (`focusRange`, else the chunk range) in `column` (default the first), with
 * the transient highlight of decorations.ts; returns the editor. A web source opens in the browser (undefined).
 */
export async function openSource(
  source: Source,
  column = vscode.ViewColumn.One,
): Promise<vscode.TextEditor | undefined> {
  if (/^https?:/i.test(source.uri)) {
    await vscode.env.openExternal(vscode.Uri.parse(source.uri, true));
    return undefined;
  }
  return revealSource(source, { column, preview: true });
}

/**
 * An answer's sources split into those its text cites (rag/ask `citations`, in `sources` order) and the others it
 * was written from. Everything is `cited` when nothing says otherwise: an abstained answer (its sources are the
 * closest matches, none cited), a server that sends no `citations`, or an answer citing none of them.
 */
export function citedSources(result: Pick<AskResult, 'sources' | 'citations' | 'abstained'> | undefined): {
  cited: AskResult['sources'];
  uncited: AskResult['sources'];
} {
  const sources = result?.sources ?? [];
  const ns = new Set((result?.citations ?? []).map((c) => c.n));
  if (!result || result.abstained || !sources.some((s) => ns.has(s.n))) {
    return { cited: sources, uncited: [] };
  }
  return { cited: sources.filter((s) => ns.has(s.n)), uncited: sources.filter((s) => !ns.has(s.n)) };
}
