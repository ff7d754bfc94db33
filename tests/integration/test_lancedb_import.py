"""`import lancedb` without lance-namespace's REST client (stores/vectors.import_lancedb): a fresh process opens a real
LanceDB table, writes and searches it without running that package's `__init__` (its nine REST API modules, ~1.2
CPU-s of every server and CLI process that opens vectors), and a later read of one of the package's own names still
gets the complete package: the real classes, the API modules imported then. The models it re-exports are built on
first use (pydantic's `defer_build`), not at import. On Python < 3.12 the `overrides`
package's decorator is a marker while lancedb imports (`_override_as_marker`), and its own again afterwards."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

SERVER = Path(__file__).resolve().parents[2] / "server"

SCRIPT = """
import json, sys
import numpy as np
from ragls.core.ir import Chunk, LineSpan
from ragls.index.windows import Window
from ragls.stores.vectors import LANCE_REST_CLIENT, VectorStore

store = VectorStore(sys.argv[1], 4)
vecs = np.eye(4, dtype=np.float32)[:3]
chunks = {f"c{i}": Chunk(id=f"c{i}", path=f"f{i}.md", text="x", span=LineSpan(0, 0, 0, 1), text_hash=f"h{i}")
          for i in range(3)}
windows = [Window(chunk_id=f"c{i}", index=0, count=1, start_line=0, end_line=0, text="x") for i in range(3)]
store.add(chunks, windows, vecs, [f"h{i}" for i in range(3)])
found = [cid for cid, _ in store.search(np.array([0, 1, 0.1, 0], dtype=np.float32), 2)]
api_before = sorted(m for m in sys.modules if m.startswith(LANCE_REST_CLIENT + ".api"))
import pydantic
from lance_namespace import ListTablesResponse
from lance_namespace_urllib3_client.models import DescribeTableResponse
built_before = DescribeTableResponse.__pydantic_complete__  # a model the local table above never used
listed = ListTablesResponse(tables=["b", "a"], page_token="p2").model_dump_json()  # built now, on first use
described = DescribeTableResponse.model_validate({"version": 3, "location": "/x"}).model_dump(exclude_none=True)
try:
    ListTablesResponse(tables="not a list")
    rejected = False
except pydantic.ValidationError:
    rejected = True
config_dict = f"{pydantic.ConfigDict.__module__}.{pydantic.ConfigDict.__name__}"
client = sys.modules[LANCE_REST_CLIENT]
from lance_namespace_urllib3_client import TableApi  # a name of the package itself: its __init__ runs now
overrides = sys.modules.get("overrides")
import lancedb.db
print(json.dumps({
    "override_after": overrides and f"{overrides.override.__module__}.{overrides.override.__name__}",
    "marked": getattr(lancedb.db.LanceDBConnection.open_table, "__override__", None),
    "found": found, "api_before": api_before, "models_before": LANCE_REST_CLIENT + ".models" in sys.modules,
    "api_after": LANCE_REST_CLIENT + ".api.table_api" in sys.modules,
    "table_api": f"{TableApi.__module__}.{TableApi.__name__}",
    "api_client": f"{client.ApiClient.__module__}.{client.ApiClient.__name__}", "version": client.__version__,
    "same_module": sys.modules[LANCE_REST_CLIENT] is client,
    "built_before": built_before, "listed": json.loads(listed), "described": described, "rejected": rejected,
    "config_dict": config_dict,
}))
"""


def test_vectors_open_without_the_rest_client_which_still_loads_when_read(tmp_path):
    proc = subprocess.run([sys.executable, "-c", SCRIPT, str(tmp_path / "vectors")], capture_output=True, text=True,
                          env=dict(os.environ, PYTHONPATH=str(SERVER)),
                          timeout=300, check=False)
    assert proc.returncode == 0, proc.stderr
    got = json.loads(proc.stdout)
    assert got["found"] == ["c1", "c2"]  # the real table answers: nearest first
    assert got["api_before"] == []  # lancedb imported and used, the REST API modules never imported
    assert got["models_before"] is True  # the models lance_namespace re-exports did import
    assert got["api_after"] is True
    assert got["table_api"] == "lance_namespace_urllib3_client.api.table_api.TableApi"
    assert got["api_client"] == "lance_namespace_urllib3_client.api_client.ApiClient"
    assert got["version"] and got["same_module"] is True
    # The models lance_namespace re-exports were created with `defer_build` (`_rest_models_built_on_first_use`): not
    # built at import, built at their first use, validating as before; pydantic's own ConfigDict is back.
    assert got["built_before"] is False
    assert got["listed"] == {"context": None, "tables": ["b", "a"], "page_token": "p2"}
    assert got["described"] == {"version": 3, "location": "/x"}
    assert got["rejected"] is True
    assert got["config_dict"] == "pydantic.config.ConfigDict"
    # On Python < 3.12 the `overrides` package's check was a marker while lancedb imported (as `typing.override` is
    # on 3.12+): the methods carry the mark, and the package's own decorator is back afterwards.
    assert got["marked"] is True
    if sys.version_info < (3, 12):
        assert got["override_after"] == "overrides.overrides.override"
