import threading

import pytest
from ragls.answer.cache import CACHE_SIZE, AnswerCache
from ragls.core.lru import LRU
from ragls.retrieval.llm_steps import CACHE_ENTRIES, TransformCache


def test_least_recently_used_goes_first():
    lru: LRU[str] = LRU(2)
    lru.put("a", "1")
    lru.put("b", "2")
    assert lru.get("a") == "1"  # a use: b is now the oldest
    lru.put("c", "3")
    assert (lru.get("a"), lru.get("b"), lru.get("c")) == ("1", None, "3")
    assert len(lru) == 2
    lru.clear()
    assert len(lru) == 0 and lru.get("a") is None


def test_a_weighed_lru_holds_at_most_its_weight():
    """With `weigh`, the bound is the total weight (index/titles.py bounds files' heading paths so): the least
    recently used go first until the rest fit; a value heavier than the whole cache is not stored."""
    lru: LRU[str] = LRU(10, weigh=len)
    lru.put("a", "aaaa")
    lru.put("b", "bbbb")
    lru.put("c", "cccc")
    assert (lru.get("a"), lru.get("b"), lru.get("c")) == (None, "bbbb", "cccc")
    lru.put("b", "b" * 11)
    assert lru.get("b") is None and lru.get("c") == "cccc" and len(lru) == 1


def test_threads_share_it():
    lru: LRU[int] = LRU(100)

    def fill(base: int) -> None:
        for i in range(500):
            lru.put(base + i, i)
            lru.get(base + i // 2)

    threads = [threading.Thread(target=fill, args=(k * 1000,)) for k in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert len(lru) == 100


@pytest.mark.parametrize(("memo", "size"), [(AnswerCache, CACHE_SIZE), (TransformCache, CACHE_ENTRIES)])
def test_the_memos_hold_at_most_their_sizes(memo, size):
    cache = memo()
    for i in range(size + 1):
        cache.put(i, f"v{i}")
    assert len(cache) == size
    assert cache.get(0) is None and cache.get(1) == "v1" and cache.get(size) == f"v{size}"  # the oldest went
