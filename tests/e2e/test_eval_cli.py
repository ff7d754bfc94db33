"""`ragls eval` on a tiny gold file over a three-file folder (real index, real offline model): the printed
metrics are the ones computed by hand below; --json carries the same figures; --compare runs two settings."""

from __future__ import annotations

import json

import pytest
from clikit import ragls as run
from lspkit import server_env
from ragls.embedding.embed import offline_model_dir

SHARED_EMBEDDING_CACHE = True  # tests/conftest.py `_run_embedding_cache`: nothing here counts what the model embedded

pytestmark = pytest.mark.skipif(offline_model_dir() is None, reason="needs ragls[offline]")

DOCS = {
    "kettle.md": "# Kettle care\n\nHow often: descale the kettle with citric acid every month.\n"
                 "Rinse it twice afterwards.\n",
    "bicycle.md": "# Bicycle tyres\n\nThe right pressure for bicycle tyres is printed on the tyre wall.\n"
                  "Road tyres need more pressure than mountain tyres.\n",
    "garden.md": "# Garden\n\nWater the tomato seedlings every morning.\nTomato seedlings watering: "
                 "never in the midday sun.\n",
}
# k = 2. Each file is one chunk, so every ranking holds the three files; the topic words decide the first.
GOLD = [
    {"id": "q1", "kind": "a", "question": "How often should I descale the kettle with citric acid?",
     "gold": [{"path": "kettle.md", "lines": [3, 3]}]},                       # rank 1, span hit
    {"id": "q2", "kind": "a", "question": "What pressure should bicycle tyres have?", "gold": ["bicycle.md"]},
    {"id": "q3", "kind": "b", "question": "tomato seedlings watering",
     "gold": ["garden.md:3-4", "nowhere.md"]},                                # rank 1; recall 1/2
    {"id": "q4", "kind": "b", "question": "descale the kettle", "gold": ["nowhere.md"]},   # never found
    {"id": "q5", "kind": "unanswerable", "question": "What is the capital of Mongolia?", "gold": []},
]
# By hand (answerable q1-q4): Hit@1 = 3/4 (q1-q3 have their gold file first), Hit@2 = 3/4, SpanHit@2 = 2/2 (q1, q3 have lines), Recall@2 = (1 + 1 + 0.5 + 0)/4,
# MRR@10 = (1 + 1 + 1 + 0)/4. Abstention (ragls.toml below: today's keyword rule alone): only q5 has no BM25
# hit holding all its content words, so 1 of 1 unanswerable abstained and 0 of 4 answerable: precision 1, recall 1.
EXPECTED_ALL = {"n": 4, "unanswerable": 1, "Hit@1": 0.75, "Hit@2": 0.75, "SpanHit@2": 1.0, "Recall@2": 0.625, "MRR@10": 0.75,
                "abstained": 0.2}


@pytest.fixture(scope="module")
def setup(tmp_path_factory):
    root = tmp_path_factory.mktemp("eval")
    folder = root / "docs"
    folder.mkdir()
    for name, text in DOCS.items():
        (folder / name).write_text(text)
    (folder / "ragls.toml").write_text("[retrieval]\nmin_similarity = 0.99\nabstention_probability = 0\n")
    gold = root / "gold.jsonl"
    gold.write_text("".join(json.dumps(q) + "\n" for q in GOLD))
    return server_env(root / "cache"), folder, gold


def ragls(env, *args):
    return run(env, *args).stdout


def test_eval_prints_the_hand_computed_metrics(setup):
    env, folder, gold = setup
    lines = ragls(env, "eval", gold, folder, "--k", "2").splitlines()
    assert lines[0].startswith("5 questions from") and "k=2" in lines[0]
    assert lines[1].split() == ["kind", "n", "unans", "Hit@1", "Hit@2", "SpanHit@2", "Recall@2", "MRR@10", "abstained"]
    rows = {line.split()[0]: line.split()[1:] for line in lines[2:6]}
    assert rows["all"] == ["4", "1", "0.750", "0.750", "1.000", "0.625", "0.750", "0.200"]
    assert rows["a"] == ["2", "0", "1.000", "1.000", "1.000", "1.000", "1.000", "0.000"]
    assert rows["b"] == ["2", "0", "0.500", "0.500", "1.000", "0.250", "0.500", "0.000"]
    assert rows["unanswerable"] == ["0", "1", "-", "-", "-", "-", "-", "1.000"]
    assert lines[6].startswith("abstention: precision 1.000, recall 1.000 (1 of 1 unanswerable abstained; "
                               "0 of 4 answerable abstained, rate 0.000)")


def test_eval_json_has_the_same_figures_and_per_question_ranks(setup):
    env, folder, gold = setup
    res = json.loads(ragls(env, "eval", gold, folder, "--k", "2", "--json"))
    assert res["all"] == pytest.approx(EXPECTED_ALL)
    by_id = {r["id"]: r for r in res["results"]}
    assert [by_id[q]["first_rank"] for q in ("q1", "q2", "q3", "q4")] == [1, 1, 1, None]
    assert by_id["q3"]["gold_found"] == [True, False]
    assert by_id["q1"]["hits"][0] == "kettle.md:1-4"
    assert res["abstention"]["precision"] == 1.0 and res["abstention"]["recall"] == 1.0


def test_eval_compare_runs_both_settings(setup):
    env, folder, gold = setup
    out = ragls(env, "eval", gold, folder, "--k", "2", "--compare", "retrieval.top_k=5",
                "retrieval.min_similarity=-1")
    assert out.splitlines()[1] == "A = retrieval.top_k=5" and out.splitlines()[2] == "B = retrieval.min_similarity=-1"
    recall = [line.split() for line in out.splitlines() if line.startswith("abstention") and "recall" in line]
    # B: a floor of -1 answers every question, so nothing is abstained on: recall 1 -> 0.
    assert recall == [["abstention", "recall", "1.000", "0.000", "-1.000"]]


def test_eval_compare_refuses_an_unknown_setting(setup):
    """A misspelt setting on one side is an error naming it and the closest known one (exit 2), not a warning
    followed by a side reported as if the setting applied."""
    env, folder, gold = setup
    res = run(env, "eval", gold, folder, "--compare", "retrieval.top_k=3", "retrieval.top_kk=5", check=False)
    assert res.returncode == 2 and res.stdout == ""
    assert "unknown setting retrieval.top_kk (did you mean retrieval.top_k?)" in res.stderr
    from ragls.evaluation.evaluate import parse_setting_side

    assert parse_setting_side("rag_top_k=5,retrieval.top_k=4") == ("rag_top_k=5,retrieval.top_k=4",
                                                                   {"rag_top_k": 5, "retrieval": {"top_k": 4}})
