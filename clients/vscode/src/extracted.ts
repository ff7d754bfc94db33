/**
 * A converted document's extracted text as a read-only document of its own. The lines of a source with
 * `extractedText` (docs/protocol.md: a PDF, HTML or DOCX file, a web page) count the text ragls extracted from it,
 * not the file's lines: opening the file itself put the cursor on the wrong line of an HTML page and into the bytes
 * of a PDF. Such a source opens as `ragls-extracted:` + the file's path, whose text the server reads as it indexed
 * it (`rag/readPassage`: the same conversion, secrets masked as in the index); the cited lines are its lines.
 */
import * as vscode from 'vscode';
import { ReadPassageRequest, Source } from './protocol';
import type { ServerManager } from './server';

export const EXTRACTED_SCHEME = 'ragls-extracted';
/** Lines per `rag/readPassage` request (the server's most), and the most lines a document takes. */
const READ_LINES = 400;
const MAX_LINES = 200_000;

/** The document a source opens in: its extracted text for an `extractedText` file, else its own URI. */
export function sourceDocumentUri(source: Source): vscode.Uri {
  const uri = vscode.Uri.parse(source.uri);
  return source.extractedText === true && uri.scheme === 'file' ? uri.with({ scheme: EXTRACTED_SCHEME }) : uri;
}

/**
 * The language of a `ragls-extracted:` document, which VS Code would otherwise take from the file's name (an HTML
 * page's text opened in HTML mode): Markdown for an HTML or DOCX file (the server extracts their headings as `#`
 * lines and lists as Markdown; server/ragls/sources/convert.py), plain text for a PDF's pages.
 */
export function extractedLanguage(uri: vscode.Uri): string {
  return /\.pdf$/i.test(uri.path) ? 'plaintext' : 'markdown';
}

/** The document a source opens in (`sourceDocumentUri`), its extracted text in that text's language. */
export async function openSourceDocument(source: Source): Promise<vscode.TextDocument> {
  const doc = await vscode.workspace.openTextDocument(sourceDocumentUri(source));
  if (doc.uri.scheme !== EXTRACTED_SCHEME) {
    return doc;
  }
  const language = extractedLanguage(doc.uri);
  return doc.languageId === language ? doc : vscode.languages.setTextDocumentLanguage(doc, language);
}

/** Serves `ragls-extracted:` documents: the file's extracted text, read from the server in pages. */
export class ExtractedTextProvider implements vscode.TextDocumentContentProvider {
  constructor(private readonly server: Pick<ServerManager, 'request'>) {}

  async provideTextDocumentContent(uri: vscode.Uri, token: vscode.CancellationToken): Promise<string> {
    const path = uri.with({ scheme: 'file' }).toString();
    const lines: string[] = [];
    let first = 1;
    while (lines.length < MAX_LINES && !token.isCancellationRequested) {
      const r = await this.server.request(ReadPassageRequest, { path, startLine: first, endLine: first + READ_LINES - 1 }, token);
      if (r.endLine >= r.startLine) {
        lines.push(...r.text.split('\n'));
      }
      if (r.endLine >= r.totalLines || r.endLine < first) {
        break;
      }
      first = r.endLine + 1;
    }
    return lines.join('\n');
  }
}
