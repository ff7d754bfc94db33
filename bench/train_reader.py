"""Train a reader (a cross-encoder: question [SEP] passage -> one logit) from the dev sets' own gold, fine-tuned from
all-MiniLM-L6-v2's float weights, and measure it on held-out corpora as a reranker of the product's top 10 and as
an abstention signal (issue 27; bench/history/session-63.md, "Reader: a cross-encoder fine-tuned here").

Four steps (and export), each its own subcommand, so the heavy one (train) runs alone:

  build   (the product's venv, PYTHONPATH=server)  question sets + the product's eval runs -> candidates.jsonl
          one line per question: set, id, answerable, question, cands (rank order, at most 10: hit "path:a-b",
          text = the file's lines a..b, file = in a gold file, span = overlaps a gold item's lines) and gold_windows
          (each gold item's lines with CONTEXT lines either side: a positive when no candidate overlaps it).
  train   (a venv with torch + transformers)  candidates.jsonl of the --train sets -> a model directory.
          Pairs per answerable question: the first POS candidates overlapping gold lines (else gold windows) labelled
          1, the first NEG non-gold-file candidates labelled 0 (same-file candidates that miss the lines are left
          out: a file hit is what Hit@1 counts); per near miss its first NM_NEG candidates labelled 0. Pointwise
          binary cross-entropy, AdamW, linear warm-up/decay.
  score   (same venv)  model + candidates.jsonl -> scores.json {set: {id: [logit per candidate]}}, and the time per
          candidate (one thread).
  export  (same venv, + onnx, onnxruntime)  model -> model.onnx and its dynamic int8 quantization, for `score --onnx`.
  report  (any python)  candidates.jsonl + scores.json -> per held-out set: file Hit@1 and MRR@10 (span) of the
          product's order, of the reader's order, of a blend (the product's reciprocal rank plus w * sigmoid(logit),
          w chosen on the train sets), and the abstention evidence (max logit over the top 5: AUROC near miss vs
          answerable; near misses abstained / answerable refused at the threshold chosen on the train sets).

The product's order is `results[].hits` of an evaluation run (evaluate.py's judge()); no corpus, file or question is
named here. Example (set=folder pairs as in the notes' set list):
  PYTHONPATH=server python bench/train_reader.py build --runs RUNDIR --tag main --out cands.jsonl \
      --corpus flask-docs=FOLDER ...
  python bench/train_reader.py train --cands cands.jsonl --train SET... --base MINILM_DIR --out model/
  python bench/train_reader.py score --cands cands.jsonl --model model/ --out scores.json
  python bench/train_reader.py report --cands cands.jsonl --scores scores.json --train SET... --test SET...
"""

from __future__ import annotations

import argparse
import json
import math
import random
import time
from pathlib import Path

K = 10  # candidates per question (the product's MRR depth)
CONTEXT = 8  # lines either side of a gold item for its fallback positive window
POS = 1  # positives per answerable question
NEG = 2  # hard negatives per answerable question
NM_NEG = 2  # negatives per near miss
ABST_TOP = 5  # abstention reads the max logit over this many top candidates


def _read_lines(folder: Path, rel: str, cache: dict[str, list[str]]) -> list[str]:
    if rel not in cache:
        try:
            cache[rel] = (folder / rel).read_text(encoding="utf-8", errors="replace").splitlines()
        except OSError:
            cache[rel] = []
    return cache[rel]


def build(args: argparse.Namespace) -> None:
    """Write one JSON line per question of each --corpus set that has a run RUNS/<set>.<tag>.json."""
    from ragls.evaluation.evaluate import load_questions  # the product's gold-file parser (one implementation)

    out: list[str] = []
    for pair in args.corpus:
        name, folder = pair.split("=", 1)
        run = Path(args.runs) / f"{name}.{args.tag}.json"
        qfile = Path(args.questions) / f"{name}.jsonl"
        if not run.exists() or not qfile.exists():
            continue
        results = {r["id"]: r for r in json.loads(run.read_text())["results"]}
        files: dict[str, list[str]] = {}
        n = 0
        for q in load_questions(qfile):
            r = results.get(q.id)
            if r is None:
                continue
            cands = []
            for hit in r["hits"][:K]:
                path, _, span = hit.rpartition(":")
                a, _, b = span.partition("-")
                a, b = int(a), int(b or a)
                lines = _read_lines(Path(folder), path, files)
                gold_here = [g for g in q.gold if g.path == path]
                cands.append({
                    "hit": hit, "text": "\n".join(lines[a - 1:b]), "file": bool(gold_here),
                    "span": any(g.start is None or (a <= g.end and b >= g.start) for g in gold_here)})
            windows = []
            for g in q.gold:
                if g.start is not None:
                    lines = _read_lines(Path(folder), g.path, files)
                    windows.append({"path": g.path, "text": "\n".join(
                        lines[max(0, g.start - 1 - CONTEXT):g.end + CONTEXT])})
            out.append(json.dumps({"set": name, "id": q.id, "answerable": bool(q.gold), "question": q.question,
                                   "cands": cands, "gold_windows": windows}) + "\n")
            n += 1
        print(f"{name}: {n} questions")
    Path(args.out).write_text("".join(out), encoding="utf-8")


def _load(path: str) -> list[dict]:
    return [json.loads(line) for line in open(path, encoding="utf-8")]


def passage(path: str, text: str) -> str:
    """What the reader sees of a candidate: its file path, then its text (whitespace collapsed)."""
    return f"{path} | {' '.join(text.split())}"


def pairs(records: list[dict], seed: int = 0) -> list[tuple[str, str, float]]:
    """(question, passage, label) training pairs; see the module docstring."""
    out: list[tuple[str, str, float]] = []
    for r in records:
        q, cands = r["question"], r["cands"]
        if r["answerable"]:
            pos = [c for c in cands if c["span"]][:POS]
            if pos:
                out += [(q, passage(c["hit"].rpartition(":")[0], c["text"]), 1.0) for c in pos]
            else:
                out += [(q, passage(w["path"], w["text"]), 1.0) for w in r["gold_windows"][:POS]]
            out += [(q, passage(c["hit"].rpartition(":")[0], c["text"]), 0.0)
                    for c in [c for c in cands if not c["file"]][:NEG]]
        else:
            out += [(q, passage(c["hit"].rpartition(":")[0], c["text"]), 0.0) for c in cands[:NM_NEG]]
    random.Random(seed).shuffle(out)
    return out


def _model(path: str, threads: int):
    import torch
    from transformers import AutoModelForSequenceClassification, AutoTokenizer

    torch.set_num_threads(threads)
    tok = AutoTokenizer.from_pretrained(path)
    model = AutoModelForSequenceClassification.from_pretrained(path, num_labels=1)
    return torch, tok, model


def train(args: argparse.Namespace) -> None:
    """Fine-tune --base (a BERT checkpoint directory) on the --train sets' pairs; save to --out."""
    records = [r for r in _load(args.cands) if r["set"] in set(args.train)]
    data = pairs(records, args.seed)
    if args.limit:
        data = data[:args.limit]
    torch, tok, model = _model(args.base, args.threads)
    torch.manual_seed(args.seed)
    frozen = [model.bert.embeddings, *model.bert.encoder.layer[:args.freeze]]  # no backward through these
    for part in frozen:
        part.requires_grad_(False)
    print(f"{len(records)} questions -> {len(data)} pairs ({sum(p[2] for p in data):.0f} positive)", flush=True)
    steps = args.epochs * math.ceil(len(data) / args.batch)
    opt = torch.optim.AdamW([p for p in model.parameters() if p.requires_grad], lr=args.lr, weight_decay=0.01)
    warm = max(1, steps // 10)
    sched = torch.optim.lr_scheduler.LambdaLR(
        opt, lambda s: min((s + 1) / warm, max(0.0, (steps - s) / max(1, steps - warm))))
    lossf = torch.nn.BCEWithLogitsLoss()
    model.train()
    step, t0 = 0, time.time()
    for epoch in range(args.epochs):
        random.Random(args.seed + epoch).shuffle(data)
        run = 0.0
        for i in range(0, len(data), args.batch):
            b = data[i:i + args.batch]
            enc = tok([p[0] for p in b], [p[1] for p in b], truncation="only_second", max_length=args.max_len,
                      padding=True, return_tensors="pt")
            logits = model(**enc).logits.squeeze(-1)
            loss = lossf(logits, torch.tensor([p[2] for p in b]))
            loss.backward()
            torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
            opt.step()
            sched.step()
            opt.zero_grad()
            step += 1
            run = 0.98 * run + 0.02 * loss.item() if step > 1 else loss.item()
            if step % 20 == 0:
                print(f"epoch {epoch} step {step}/{steps} loss {run:.3f} {time.time() - t0:.0f}s", flush=True)
    model.save_pretrained(args.out)
    tok.save_pretrained(args.out)
    print(f"trained {steps} steps in {time.time() - t0:.0f}s -> {args.out}")


def export(args: argparse.Namespace) -> None:
    """--model as ONNX (MODEL/model.onnx) and dynamically int8-quantized (MODEL/model.int8.onnx, onnxruntime)."""
    from onnxruntime.quantization import QuantType, quantize_dynamic

    torch, tok, model = _model(args.model, args.threads)
    model.eval()
    enc = tok(["a question"], ["a passage"], return_tensors="pt")
    names = ["input_ids", "attention_mask", "token_type_ids"]
    axes = {n: {0: "batch", 1: "tokens"} for n in names}
    torch.onnx.export(model, tuple(enc[n] for n in names), f"{args.model}/model.onnx", input_names=names,
                      output_names=["logits"], dynamic_axes={**axes, "logits": {0: "batch"}}, dynamo=False)
    quantize_dynamic(f"{args.model}/model.onnx", f"{args.model}/model.int8.onnx", weight_type=QuantType.QInt8)
    print(f"wrote {args.model}/model.onnx and model.int8.onnx")


def score(args: argparse.Namespace) -> None:
    """Logit per candidate of every question in --cands (--sets only, when given), by the torch model or, with
    --onnx FILE, by onnxruntime on that file (one intra-op thread)."""
    torch, tok, model = _model(args.model, args.threads)
    model.eval()
    if args.onnx:
        import onnxruntime as ort

        opts = ort.SessionOptions()
        opts.intra_op_num_threads = opts.inter_op_num_threads = args.threads
        sess = ort.InferenceSession(args.onnx, opts, providers=["CPUExecutionProvider"])
    out: dict[str, dict[str, list[float]]] = {}
    n, t0 = 0, time.time()
    for r in _load(args.cands):
        if args.sets and r["set"] not in args.sets:
            continue
        cands = r["cands"]
        if not cands:
            out.setdefault(r["set"], {})[r["id"]] = []
            continue
        enc = tok([r["question"]] * len(cands), [passage(c["hit"].rpartition(":")[0], c["text"]) for c in cands],
                  truncation="only_second", max_length=args.max_len, padding=True, return_tensors="pt")
        if args.onnx:
            feed = {i.name: enc[i.name].numpy() for i in sess.get_inputs()}
            logits = sess.run(None, feed)[0][:, 0].tolist()
        else:
            with torch.no_grad():
                logits = model(**enc).logits.squeeze(-1).tolist()
        out.setdefault(r["set"], {})[r["id"]] = logits
        n += len(cands)
    dt = time.time() - t0
    Path(args.out).write_text(json.dumps(out))
    print(f"scored {n} candidates in {dt:.0f}s: {1000 * dt / max(1, n):.1f} ms per candidate "
          f"({args.threads} thread, max {args.max_len} tokens, batches of one question's candidates)")


def _auroc(pos: list[float], neg: list[float]) -> float:
    """P(a random `pos` value > a random `neg` value), ties half."""
    if not pos or not neg:
        return float("nan")
    return sum((p > n) + 0.5 * (p == n) for p in pos for n in neg) / (len(pos) * len(neg))


def _order(r: dict, logits: list[float], w: float | None) -> list[int]:
    """Candidate indices best first: the reader alone (w None) or the product's 1/rank + w * sigmoid(logit)."""
    idx = range(len(r["cands"]))
    if w is None:
        return sorted(idx, key=lambda i: -logits[i])
    return sorted(idx, key=lambda i: -(1 / (i + 1) + w / (1 + math.exp(-logits[i]))))


def _rank_figures(recs: list[dict], scores: dict, w: float | None | str) -> tuple[int, float, int, int]:
    """(file Hit@1 count, MRR@10 sum, Hit@1 gained, Hit@1 lost against the product's order) over answerable `recs`;
    w "product" keeps the product's order."""
    hit1, mrr, won, lost = 0, 0.0, 0, 0
    for r in recs:
        if not r["answerable"] or not r["cands"]:
            continue
        order = list(range(len(r["cands"]))) if w == "product" else _order(r, scores[r["set"]][r["id"]], w)
        hit1 += r["cands"][order[0]]["file"]
        won += r["cands"][order[0]]["file"] and not r["cands"][0]["file"]
        lost += r["cands"][0]["file"] and not r["cands"][order[0]]["file"]
        first = next((k for k, i in enumerate(order) if r["cands"][i]["span"]), None)
        mrr += 1 / (first + 1) if first is not None else 0.0
    return hit1, mrr, won, lost


def _maxlogit(r: dict, scores: dict) -> float:
    s = scores[r["set"]][r["id"]][:ABST_TOP]
    return max(s) if s else -1e9


def report(args: argparse.Namespace) -> None:
    """Print the held-out figures (see the module docstring)."""
    recs = _load(args.cands)
    scores = json.loads(Path(args.scores).read_text())
    train = [r for r in recs if r["set"] in set(args.train) and r["set"] in scores]
    weights = [0.25, 0.5, 1.0, 2.0, 4.0]
    if train:
        best_w = max(weights, key=lambda w: _rank_figures(train, scores, w)[0])
        ans = sorted(_maxlogit(r, scores) for r in train if r["answerable"])
        nm = [_maxlogit(r, scores) for r in train if not r["answerable"]]
        # the threshold that refuses at most 1 in 30 answerable train questions
        thr = ans[max(0, math.floor(len(ans) / 30) - 1)] if ans else 0.0
        print(f"train ({len(train)} questions): blend w={best_w}, abstention threshold {thr:.2f} "
              f"(near misses below it {sum(x < thr for x in nm)}/{len(nm)}, "
              f"AUROC {_auroc(nm and [-x for x in nm], [-x for x in ans]):.3f})")
    else:
        best_w, thr = args.w, args.threshold
    print(f"{'set':20} {'n':>3} {'H@1 prod':>8} {'reader':>6} {'+/-':>5} {'blend':>5} {'MRR prod':>8} {'reader':>6}"
          f" {'blend':>6} {'AUROC':>6} {'nm abst':>7} {'refused':>7}")
    tot = [0, 0, 0, 0, 0.0, 0.0, 0.0, 0, 0, 0]
    for s in args.test:
        rs = [r for r in recs if r["set"] == s]
        if not rs or s not in scores:
            continue
        n = sum(r["answerable"] and bool(r["cands"]) for r in rs)
        p, rd, bl = (_rank_figures(rs, scores, w) for w in ("product", None, best_w))
        ans = [_maxlogit(r, scores) for r in rs if r["answerable"]]
        nm = [_maxlogit(r, scores) for r in rs if not r["answerable"]]
        ab, ref = sum(x < thr for x in nm), sum(x < thr for x in ans)
        print(f"{s:20} {n:3} {p[0]:8} {rd[0]:6} {f'+{rd[2]}/-{rd[3]}':>5} {bl[0]:5} {p[1] / n:8.3f} {rd[1] / n:6.3f} {bl[1] / n:6.3f}"
              f" {_auroc([-x for x in nm], [-x for x in ans]):6.3f} {ab:3}/{len(nm):<3} {ref:3}/{len(ans):<3}")
        for j, v in enumerate((n, p[0], rd[0], bl[0], p[1], rd[1], bl[1], ab, len(nm), ref)):
            tot[j] += v
    n = tot[0] or 1
    print(f"{'TOTAL':20} {tot[0]:3} {tot[1]:8} {tot[2]:6} {'':5} {tot[3]:5} {tot[4] / n:8.3f} {tot[5] / n:6.3f}"
          f" {tot[6] / n:6.3f} {'':6} {tot[7]:3}/{tot[8]:<3} {tot[9]:3}")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = ap.add_subparsers(dest="cmd", required=True)
    b = sub.add_parser("build")
    b.add_argument("--runs", required=True)
    b.add_argument("--tag", default="main")
    b.add_argument("--questions", default=str(Path(__file__).parent / "questions"))
    b.add_argument("--corpus", nargs="+", required=True, help="set=folder pairs")
    b.add_argument("--out", required=True)
    t = sub.add_parser("train")
    t.add_argument("--cands", required=True)
    t.add_argument("--train", nargs="+", required=True)
    t.add_argument("--base", required=True)
    t.add_argument("--out", required=True)
    t.add_argument("--epochs", type=int, default=2)
    t.add_argument("--batch", type=int, default=16)
    t.add_argument("--lr", type=float, default=3e-5)
    t.add_argument("--max-len", type=int, default=256)
    t.add_argument("--limit", type=int, default=0, help="use only the first N shuffled pairs")
    t.add_argument("--freeze", type=int, default=3, help="also freeze the first N encoder layers (with embeddings)")
    t.add_argument("--threads", type=int, default=1)
    t.add_argument("--seed", type=int, default=0)
    s = sub.add_parser("score")
    s.add_argument("--cands", required=True)
    s.add_argument("--model", required=True)
    s.add_argument("--out", required=True)
    s.add_argument("--sets", nargs="*")
    s.add_argument("--onnx", help="score with onnxruntime on this ONNX file (from export)")
    s.add_argument("--max-len", type=int, default=256)
    s.add_argument("--threads", type=int, default=1)
    e = sub.add_parser("export")
    e.add_argument("--model", required=True)
    e.add_argument("--threads", type=int, default=1)
    r = sub.add_parser("report")
    r.add_argument("--cands", required=True)
    r.add_argument("--scores", required=True)
    r.add_argument("--train", nargs="*", default=[])
    r.add_argument("--test", nargs="+", required=True)
    r.add_argument("--w", type=float, default=1.0, help="blend weight when no train set is scored")
    r.add_argument("--threshold", type=float, default=0.0, help="abstention threshold when no train set is scored")
    args = ap.parse_args()
    {"build": build, "train": train, "export": export, "score": score, "report": report}[args.cmd](args)


if __name__ == "__main__":
    main()
