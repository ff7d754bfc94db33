"""The ranking metrics live in the package (`ragls.evaluation.metrics`, shared with `ragls eval`); re-exported here for
the benchmarks that import `ir_metrics` from bench/."""

from ragls.evaluation.metrics import (  # noqa: F401
    METRICS,
    average_precision_at,
    evaluate,
    ndcg_at,
    recall_at,
    reciprocal_rank_at,
)
