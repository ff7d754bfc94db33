/**
 * Request and progress types of the ragls wire protocol (v1), mirroring `docs/protocol.md` in the ragls repository.
 *
 * Positions are LSP's: 0-based lines, `character` in UTF-16 code units. No logic lives here; keep this file in
 * step with docs/protocol.md (old fields keep working, new ones are optional).
 */
import { ProgressType, RequestType } from 'vscode-languageclient';

export interface Position {
  line: number;
  character: number;
}

export interface Range {
  start: Position;
  end: Position;
}

/** A place in a workspace file: `path` is relative to its workspace folder with "/" separators. */
export interface Source {
  /** `file://` URI, or the page URL (with the nearest heading's `#fragment`) for a web source. */
  uri: string;
  path: string;
  range: Range;
  title?: string;
  /** 1-based page of a PDF where the chunk starts. */
  page?: number;
  /** The answering lines inside `range` (best embedding window or densest query terms); optional. */
  focusRange?: Range;
  /** An extractive answer's source quoted at places too far apart for one `focusRange`: every quoted place, in
   * line order (`focusRange` is one of them, where a source entry opens; a `[n]` opens the place its answer item
   * quotes: answer.ts citedPlace); optional, absent with one place. */
  focusRanges?: Range[];
  /** Newer servers, extractive rag/ask: each passage the answer quotes from this source, in the answer's order,
   * from the quoted sentence's first character; a `[n]` opens at the one its item quotes (answer.ts citedPlace). */
  quoteRanges?: Range[];
  /** Newer servers: the ranges count lines of the text ragls extracted (PDF, HTML, DOCX, web page), not the file's. */
  extractedText?: true;
}

/** A `rag/list` entry: the workspace or a named RAG. */
export interface RagInfo {
  name: string;
  sources: string[];
  files: number;
  chunks: number;
  pendingVectors: number;
  lastIndexedAt: string | null;
  errors: { message: string }[];
  kind?: string;
  skipped?: { path: string; reason: string }[];
}

export interface Chunk {
  id: string;
  text: string;
  /** The ranking's own number; its scale depends on the fusion and reranker, so it is not shown. */
  score: number;
  /** The score as a share of the best chunk's (0..1), shown as "64%"; absent when no share means anything. */
  relevance?: number;
  /** Newer servers: the focus lines (else the chunk's first) as the page reads them, on one line, ≤ 200 chars. */
  preview?: string;
  source: Source;
  /** 1-based ranks per retrieval signal; `rerank` is the score. */
  signals?: { vector?: number; bm25?: number; graph?: number; rerank?: number };
}

export interface QueryParams {
  query: string;
  topK?: number;
  /** A knowledge base name or several; default "workspace". */
  rag?: string | string[];
  explain?: boolean;
}

export interface QueryResult {
  query: string;
  chunks: Chunk[];
  abstained: boolean;
  elapsedMs: number;
}

export interface HistoryTurn {
  role: 'user' | 'assistant';
  content: string;
}

export interface AskParams {
  question: string;
  topK?: number;
  rag?: string | string[];
  /** Ephemeral documents: paths/globs relative to the first folder, URLs, `%%`, `` `command` ``. */
  documents?: string[];
  history?: HistoryTurn[];
  partialResultToken?: string;
  workDoneToken?: string;
}

export type NumberedSource = Source & { n: number };

export interface AskResult {
  /** Markdown citing sources as [1], [2] … */
  answer: string;
  sources: NumberedSource[];
  citations: { n: number; supported: boolean }[];
  model: string;
  abstained: boolean;
  elapsedMs: number;
  /** A follow-up's standalone query, as searched (only with `history`). */
  retrievalQuery?: string;
  /** Newer servers: the words from earlier questions a follow-up was searched with (without an LLM: appended to it in
   * `retrievalQuery`, weighing less than its own); shown apart from the question. */
  retrievalContext?: string;
  /** Answered from the answer cache (`generation.cache`), without an LLM call. */
  cached?: true;
  /** The LLM failed: `answer` is the extractive answer over `sources`. */
  error?: { message: string };
  /** Newer servers: the label line `answer` opens with when it says no more than `model` "extractive" and `error`
   * ("*Extractive answer (no LLM configured): …*"); the view shows the answer without it (`answerBody`). */
  label?: string;
}

export interface RebuildParams {
  /** Folder URI; default: all folders. */
  workspaceFolder?: string;
  workDoneToken?: string;
}

export interface SkippedFile {
  path: string;
  reason: string;
}

export interface RebuildResult {
  files: number;
  chunks: number;
  /** Newer servers: the first 50 files left out; `skippedMore` counts the rest. */
  skipped: SkippedFile[];
  skippedMore?: number;
  elapsedMs: number;
}

export interface FolderStatus {
  uri: string;
  files: number;
  chunks: number;
  /** Files queued for indexing. */
  pending: number;
  /** Chunks without vectors yet. */
  pendingVectors: number;
  lastIndexedAt: string | number | null;
  indexPath: string;
  /** false: another process holds the index lock. */
  writer: boolean;
  /** Newer servers: the first 50 files left out (a folder of thousands of unreadable files); `skippedMore` counts
   * the rest. */
  skipped: SkippedFile[];
  skippedMore?: number;
  /** Chunks whose embedding windows are not all embedded yet; null when unknown. */
  pendingWindows?: number | null;
  /** True while the server's embedding model is still loading: pendingVectors then counts every chunk, and search
   * uses keywords (BM25) until it is ready. */
  embeddingLoading?: boolean;
  /** Chunks without a stored first vector, known without the model (what is really left to embed); null: not
   * recorded. */
  storedPendingVectors?: number | null;
  /** The process holding the index lock; absent when nobody does. */
  writerProcess?: { pid: number; role: string };
}

export interface StatusResult {
  folders: FolderStatus[];
  /** The embedding model in use (after a fallback: the bundled one). */
  embeddingModel: string;
  /** Where it came from: "path", "cache", "download", "offline-fallback"; absent until the model has loaded. */
  embeddingSource?: string;
  /** The configured model, when the one in use differs from it (the fallback, or a model pinned by the index). */
  embeddingRequested?: string;
  store: string;
  fingerprint: string;
  generation: {
    backend: string;
    model: string | null;
    /** Newer servers: why an untrusted folder's own LLM settings are not used. Part of that folder's `errors`
     * warning when the server sends one (then shown only as the reason answers are extractive). */
    ignored?: string;
  };
  /** `severity: 'warning'` (newer servers): nothing failed, the user decides (an untrusted ragls.toml's ignored
   * settings); shown as a warning. Without it: an error. */
  errors: {
    path?: string; message: string; severity?: 'warning';
    /** Newer servers, on an untrusted ragls.toml's warning: the end of `message` saying how to trust it. */
    trustHow?: string;
  }[];
  /** Lines that are not errors: "<folder>: ..." when that folder's index holds no file (what to set; a warning),
   * else notes (the index keeps the embedding model it was built with, an old setting name). */
  notices?: string[];
  /** Newer servers: one per notice, in order: 'warning' when the user must act (a folder whose index holds no file),
   * 'info' when nothing needs doing (also a folder's: its autodoc pages). Without it a folder-led notice is a warning. */
  noticeLevels?: ('warning' | 'info')[];
  /** Tokens the embedding model reads per text. */
  embeddingMaxLength?: number;
}

export interface CommitMessageParams {
  /** Repository root URI. */
  repository?: string;
  /** Default true. */
  staged?: boolean;
  style?: 'conventional' | 'plain';
}

export interface CommitMessageResult {
  message: string;
  truncated: boolean;
  files: string[];
}

/** `rag/readPassage`: exact lines of an indexed file (1-based, inclusive; at most 400 lines, 20,000 characters). */
export interface ReadPassageParams {
  /** As in `Source.path` (relative to its folder), an absolute path or a `file://` URI. */
  path: string;
  startLine?: number;
  endLine?: number;
}

export interface ReadPassageResult {
  path: string;
  uri: string;
  startLine: number;
  endLine: number;
  totalLines: number;
  text: string;
  /** `endLine` was cut to the maximum: 400 lines, or the whole lines within 20,000 characters. */
  truncated: boolean;
  /** A line longer than 20,000 characters: how many of line `endLine`'s characters `text` leaves out. */
  cutChars?: number;
}

export const QueryRequest = new RequestType<QueryParams, QueryResult, void>('rag/query');
export const AskRequest = new RequestType<AskParams, AskResult, void>('rag/ask');
export const RebuildRequest = new RequestType<RebuildParams, RebuildResult, void>('rag/rebuild');
export const ListRagsRequest = new RequestType<Record<string, never>, RagInfo[], void>('rag/list');
export const StatusRequest = new RequestType<Record<string, never>, StatusResult, void>('rag/status');
export const CommitMessageRequest = new RequestType<CommitMessageParams, CommitMessageResult, void>(
  'rag/commitMessage',
);

export const ReadPassageRequest = new RequestType<ReadPassageParams, ReadPassageResult, void>('rag/readPassage');

/** Streamed `rag/ask` piece, sent as `$/progress` with the request's `partialResultToken`. */
export interface AskDelta {
  delta: string;
}
export const AskDeltaProgress = new ProgressType<AskDelta>();

/** Title of the server's work-done progress while it indexes. */
export const INDEXING_TITLE = 'ragls: indexing';
/** The indexing progress `message` while the embedding model loads (rag/status `embeddingLoading` meanwhile). */
export const EMBEDDING_LOADING_MESSAGE = 'loading the embedding model';
/** What the user is told while it loads. */
export const EMBEDDING_LOADING_NOTE = 'the embedding model is loading: search uses keywords until it is ready';

/** JSON-RPC error codes the server uses (docs/protocol.md "Errors"). */
export const ErrorCodes = {
  InvalidParams: -32602,
  RequestFailed: -32803,
  RequestCancelled: -32800,
  /** Not the server's: vscode-jsonrpc rejects the requests still pending when the connection closes (the server
   * process died). */
  PendingResponseRejected: -32097,
} as const;

export interface ModelsParams {
  /** An OpenAI-compatible base URL; absent: the local runtimes on their default ports. */
  baseUrl?: string;
  /** Variable holding a key, tried only after HTTP 401/403 (default OPENAI_API_KEY). */
  apiKeyEnv?: string;
}

export interface LlmServer {
  /** The runtime's name ("LM Studio"…), "" for the baseUrl asked about. */
  name: string;
  baseUrl: string;
  /** "ollama", "external" (no key needed) or "openai" (the key was needed). */
  backend: string;
  models: string[];
  keyUsed?: true;
  /** What `GET /models` got, when it failed. */
  error?: string;
}

export const ModelsRequest = new RequestType<ModelsParams, { servers: LlmServer[] }, void>('rag/models');

/** `rag/tool`: one MCP tool of `ragls mcp` by name, with its arguments (snake_case, as the MCP tool takes them). */
export interface ToolParams {
  name: 'search_docs' | 'ask_docs' | 'read_passage' | 'index_status'
    | 'ragls_search' | 'ragls_ask' | 'ragls_read_passage' | 'ragls_index_status';
  arguments?: Record<string, unknown>;
}

export interface ToolResult {
  /** For a model: document text quoted by the server inside `<passage>` elements, under a note that it is data. */
  text: string;
  /** The same result, structured (the MCP tool's structuredContent). */
  data: Record<string, unknown>;
}

export const ToolRequest = new RequestType<ToolParams, ToolResult, void>('rag/tool');
