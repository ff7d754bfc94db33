"""Soft term coverage of recorded fused lists (issue 27, "the right file first"): how much of the question each fused
chunk covers word by word, read with the embedding model's own token vectors, for `bench/file_rank_loco.py` to weigh
by leave-one-corpus-out.

    python bench/fused_replay.py record bench/questions/<set>.jsonl <folder> rec/<set>.json   # once per set
    python bench/soft_coverage.py rec/<set>.json ...                                           # adds to rec/<set>.feat
    python bench/file_rank_loco.py rec/*.json --base second30=0.1 --family softcov_rel --weights 0 1 2 3 4 5

Every signal the ranking has scores a chunk as a whole (BM25 over its words, the cosine of its pooled window vector
with the question's pooled vector), and every page-level signal measured since session 40 prefers the gold page of a
near-tie miss about as often as the rival of a near-tie hit (bench/history/session-52.md, "File Hit@1 misses by
cause"). This one reads the pair: BERTScore's recall (Zhang et al., ICLR 2020) or ColBERT's MaxSim (Khattab & Zaharia,
SIGIR 2020) with the bi-encoder the index already has (all-MiniLM-L6-v2, not trained for it): each content wordpiece
of the question (alphanumeric, not an English stop word; the question cut at 126 wordpieces) finds its most similar
contextual wordpiece vector (`last_hidden_state`, L2-normalised) in the chunk (its heading path line and text, read in
at most 2 windows of 254 wordpieces), and the chunk scores the mean of those best cosines. Per recorded answerable
question, for its first K fused entries (`--k`, default 5; `<set>.feat`: {question id: {feature: [value per
entry]}}, merged into what `bench/heading_features.py` wrote there):

  softcov      the mean best cosine (0 below the first K)
  softcov_rel  softcov minus the best of the first K (<= 0); below the first K, the first K's worst minus their best

The ONNX file and tokenizer are the offline model's (`embedding.embed.offline_model_dir`), run on the CPU with one
thread. A chunk costs one model pass per window; chunks repeat across a set's questions and are encoded once.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

import numpy as np

MAX_QUERY = 126  # question wordpieces read (the model's [CLS] and [SEP] make 128)
WINDOW = 254  # chunk wordpieces per model pass (256 with [CLS] and [SEP]: the model's declared length)
MAX_WINDOWS = 2  # windows read per chunk (a 2,000-character chunk is about 400-500 wordpieces)


class TokenVectors:
    """The offline MiniLM's contextual wordpiece vectors: `query(text)` -> (its content wordpieces' vectors (n, 384)),
    `chunk(key, text)` -> (every wordpiece vector of the text's first MAX_WINDOWS windows (m, 384)), L2-normalised,
    float32; chunks memoised by `key`."""

    def __init__(self):
        import onnxruntime as ort
        from ragls.core.analysis import STOPWORDS
        from ragls.embedding.embed import offline_model_dir
        from tokenizers import Tokenizer

        folder = offline_model_dir()
        options = ort.SessionOptions()
        options.intra_op_num_threads = options.inter_op_num_threads = 1
        self.session = ort.InferenceSession(str(folder / "model.onnx"), options, providers=["CPUExecutionProvider"])
        self.tok = Tokenizer.from_file(str(folder / "tokenizer.json"))
        self.tok.no_truncation()
        self.tok.no_padding()
        self.cls, self.sep = self.tok.token_to_id("[CLS]"), self.tok.token_to_id("[SEP]")
        self.stop = STOPWORDS
        self.memo: dict[str, np.ndarray] = {}

    def _run(self, batch: list[list[int]]) -> list[np.ndarray]:
        """Each id list's wordpiece vectors without [CLS] / [SEP], L2-normalised."""
        n = max(len(ids) for ids in batch)
        ids = np.zeros((len(batch), n), dtype=np.int64)
        mask = np.zeros_like(ids)
        for i, row in enumerate(batch):
            ids[i, :len(row)] = row
            mask[i, :len(row)] = 1
        out = self.session.run(None, {"input_ids": ids, "attention_mask": mask, "token_type_ids": np.zeros_like(ids)})[0]
        vecs = [out[i, 1:len(row) - 1] for i, row in enumerate(batch)]
        return [v / np.maximum(np.linalg.norm(v, axis=1, keepdims=True), 1e-9) for v in vecs]

    def query(self, text: str) -> np.ndarray:
        enc = self.tok.encode(text, add_special_tokens=False)
        vecs = self._run([[self.cls, *enc.ids[:MAX_QUERY], self.sep]])[0]
        keep = [i for i, t in enumerate(enc.tokens[:MAX_QUERY])
                if (t.isalnum() or t.startswith("##")) and t.lower() not in self.stop]
        return vecs[keep]

    def chunk(self, key: str, text: str) -> np.ndarray:
        if key not in self.memo:
            ids = self.tok.encode(text, add_special_tokens=False).ids
            windows = [[self.cls, *ids[i:i + WINDOW], self.sep] for i in range(0, max(1, len(ids)), WINDOW)]
            self.memo[key] = np.concatenate(self._run(windows[:MAX_WINDOWS]))
        return self.memo[key]


def coverage(question: np.ndarray, chunk: np.ndarray) -> float:
    """The mean over the question's wordpiece vectors of their best cosine with one of the chunk's (0 if either is
    empty)."""
    if not len(question) or not len(chunk):
        return 0.0
    return float((question @ chunk.T).max(axis=1).mean())


def features(tv: TokenVectors, q: dict, k: int) -> dict[str, list[float]]:
    """`softcov` and `softcov_rel` (module docstring) of one recorded question's fused entries."""
    fused = q["fused"]
    qv = tv.query(q["question"])
    head = [coverage(qv, tv.chunk(f"{r['path']}:{r['lines']}:{hash(r['text'])}",
                                  (r["title"] + "\n" if r.get("title") else "") + r["text"])) for r in fused[:k]]
    best, worst = max(head, default=0.0), min(head, default=0.0)
    rest = len(fused) - len(head)
    return {"softcov": head + [0.0] * rest, "softcov_rel": [v - best for v in head] + [worst - best] * rest}


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("lists", nargs="+", type=Path, help="rec/<set>.json files written by fused_replay.py record")
    ap.add_argument("--k", type=int, default=5, help="fused entries scored per question (default 5)")
    args = ap.parse_args(argv)
    tv = TokenVectors()
    for path in args.lists:
        side = path.with_suffix(".feat")
        out = json.loads(side.read_text()) if side.exists() else {}
        tv.memo.clear()
        for q in json.loads(path.read_text()):
            if q.get("answerable") and q.get("fused"):
                out.setdefault(q["id"], {}).update(features(tv, q, args.k))
        side.write_text(json.dumps(out))
        print(f"{path}: {len(out)} questions, {len(tv.memo)} chunks encoded", file=sys.stderr)


if __name__ == "__main__":
    main()
