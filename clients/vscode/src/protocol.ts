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
  score: number;
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
  /** Answered from the answer cache (`generation.cache`), without an LLM call. */
  cached?: true;
  /** The LLM failed: `answer` is the extractive answer over `sources`. */
  error?: { message: string };
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
  skipped: SkippedFile[];
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
  skipped: SkippedFile[];
  /** Chunks whose embedding windows are not all embedded yet; null when unknown. */
  pendingWindows?: number | null;
  /** The process holding the index lock; absent when nobody does. */
  writerProcess?: { pid: number; role: string };
}

export interface StatusResult {
  folders: FolderStatus[];
  embeddingModel: string;
  store: string;
  fingerprint: string;
  generation: { backend: string; model: string | null };
  errors: { path?: string; message: string }[];
  /** Informational lines (not errors), e.g. the index keeps the embedding model it was built with. */
  notices?: string[];
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

/** `rag/readPassage`: exact lines of an indexed file (1-based, inclusive; at most 400 lines). */
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
  /** `endLine` was cut to the maximum. */
  truncated: boolean;
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

/** JSON-RPC error codes the server uses (docs/protocol.md "Errors"). */
export const ErrorCodes = {
  InvalidParams: -32602,
  RequestFailed: -32803,
  RequestCancelled: -32800,
} as const;
