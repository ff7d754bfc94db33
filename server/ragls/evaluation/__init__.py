"""Retrieval quality: `ragls eval` against a gold file of questions (`evaluate`), and the ranking metrics with
trec_eval's definitions that it and the benchmarks share (`metrics`)."""
