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

/** The authority of a `ragls-extracted:` URI whose path starts with its workspace folder's name (`sourceDocumentUri`). */
export const NAMED_FOLDER_AUTHORITY = 'folder';

/**
 * The document a source opens in: its extracted text for an `extractedText` file, else its own URI. A file in a
 * workspace folder has its path relative to that folder, the folder in the query (`{"root": folder URI, "name":
 * folder name}`, see `extractedFileUri`), so that its breadcrumbs read as the file's own editor's: VS Code's
 * breadcrumbs walk a document's path up to a workspace folder of its own scheme, so `ragls-extracted:` + the
 * absolute path showed every folder from `/` ("home > me > ws > docs > page.html"). In a workspace opened from a
 * `.code-workspace` file (a multi-root one), where a file's breadcrumbs start with its folder's name ("notes >
 * page.html"), the path starts with that name and the authority is `NAMED_FOLDER_AUTHORITY`
 * (`ragls-extracted://folder/notes/page.html`); with a folder opened alone, "docs > page.html". Tabs and hovers read
 * "ws/docs/page.html" (the `resourceLabelFormatters` contribution). A file outside the workspace keeps its absolute
 * path.
 */
export function sourceDocumentUri(source: Source): vscode.Uri {
  const uri = vscode.Uri.parse(source.uri);
  if (source.extractedText !== true || uri.scheme !== 'file') {
    return uri;
  }
  const folder = vscode.workspace.getWorkspaceFolder(uri);
  const root = folder?.uri.path.replace(/\/+$/, '');
  if (!folder || !root || !uri.path.startsWith(`${root}/`)) {
    return uri.with({ scheme: EXTRACTED_SCHEME });
  }
  const query = JSON.stringify({ root: folder.uri.toString(), name: folder.name });
  const relative = uri.path.slice(root.length);
  return vscode.workspace.workspaceFile === undefined
    ? vscode.Uri.from({ scheme: EXTRACTED_SCHEME, path: relative, query })
    : vscode.Uri.from({ scheme: EXTRACTED_SCHEME, authority: NAMED_FOLDER_AUTHORITY, path: `/${folder.name}${relative}`, query });
}

/**
 * The file whose extracted text `uri` (a `ragls-extracted:` document, `sourceDocumentUri`) shows: the workspace
 * folder's URI in its query joined with its path relative to that folder (after the folder's name, for the
 * `NAMED_FOLDER_AUTHORITY`), else (no folder: a file outside the workspace, an editor restored from before) the
 * file of the same path.
 */
export function extractedFileUri(uri: vscode.Uri): vscode.Uri {
  let folder: { root?: unknown; name?: unknown } = {};
  try {
    folder = uri.query ? (JSON.parse(uri.query) as typeof folder) : {};
  } catch {
    folder = {};
  }
  if (typeof folder.root !== 'string') {
    return uri.with({ scheme: 'file', authority: '', query: '' });
  }
  const name = uri.authority === NAMED_FOLDER_AUTHORITY && typeof folder.name === 'string' ? folder.name : undefined;
  const named = name !== undefined && uri.path.startsWith(`/${name}/`);
  return vscode.Uri.joinPath(vscode.Uri.parse(folder.root), named ? uri.path.slice(name.length + 1) : uri.path);
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

/**
 * Puts a `ragls-extracted:` document opened without `openSourceDocument` into its text's language
 * (`extractedLanguage`): an editor VS Code restores after a window reload opens its document itself, in the language
 * of the file's name (an HTML page's text in HTML mode). Once per document and session, so a language the user picks
 * for it afterwards stays (a language change closes and opens the document again).
 */
export function keepExtractedLanguage(): vscode.Disposable {
  const seen = new Set<string>();
  const fix = (doc: vscode.TextDocument): void => {
    const key = doc.uri.toString();
    if (doc.uri.scheme !== EXTRACTED_SCHEME || seen.has(key)) {
      return;
    }
    seen.add(key);
    if (doc.languageId !== extractedLanguage(doc.uri)) {
      void vscode.languages.setTextDocumentLanguage(doc, extractedLanguage(doc.uri));
    }
  };
  vscode.workspace.textDocuments.forEach(fix);
  return vscode.workspace.onDidOpenTextDocument(fix);
}

/**
 * Serves `ragls-extracted:` documents, read-only: the file's extracted text, read from the server in pages. A file
 * system (not a text document content provider) so that VS Code keeps their editors over a window reload: it
 * dropped a content provider's editor, and restores a file system's, activating the extension for it
 * (`onFileSystem:ragls-extracted`).
 */
export class ExtractedTextFileSystem implements vscode.FileSystemProvider {
  private readonly changed = new vscode.EventEmitter<vscode.FileChangeEvent[]>();
  readonly onDidChangeFile = this.changed.event;

  constructor(private readonly server: Pick<ServerManager, 'request'>) {}

  /** The extracted text as UTF-8 (at most MAX_LINES lines); the server's error when it cannot read the file. */
  async readFile(uri: vscode.Uri): Promise<Uint8Array> {
    const path = extractedFileUri(uri).toString();
    const lines: string[] = [];
    let first = 1;
    while (lines.length < MAX_LINES) {
      const r = await this.server.request(ReadPassageRequest, { path, startLine: first, endLine: first + READ_LINES - 1 });
      if (r.endLine >= r.startLine) {
        lines.push(...r.text.split('\n'));
      }
      if (r.endLine >= r.totalLines || r.endLine < first) {
        break;
      }
      first = r.endLine + 1;
    }
    return new TextEncoder().encode(lines.join('\n'));
  }

  /** A read-only file, modified "now" (the text is read again whenever VS Code asks: the index may have changed). */
  stat(): vscode.FileStat {
    return { type: vscode.FileType.File, ctime: 0, mtime: Date.now(), size: 0, permissions: vscode.FilePermission.Readonly };
  }

  watch(): vscode.Disposable {
    return new vscode.Disposable(() => undefined);
  }

  readDirectory(): never {
    throw vscode.FileSystemError.FileNotADirectory();
  }

  createDirectory(): never {
    throw vscode.FileSystemError.NoPermissions('the extracted text is read-only');
  }

  writeFile(): never {
    throw vscode.FileSystemError.NoPermissions('the extracted text is read-only');
  }

  delete(): never {
    throw vscode.FileSystemError.NoPermissions('the extracted text is read-only');
  }

  rename(): never {
    throw vscode.FileSystemError.NoPermissions('the extracted text is read-only');
  }
}
