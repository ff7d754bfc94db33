"""The `ragls` command line (a front: parse the arguments, call one operation, print the result).

`app` builds the parser and runs serve, mcp, http, index, query, ask and rebuild; `ops` the commands beyond them
(status, prune, doctor, estimate, models, eval, graph, commit-msg); `rags` and `trust` the `ragls rag …` and
`ragls trust …` sub-commands; `background` the warm server behind `ragls serve --background`; `common` what they
share (a workspace opened in-process or a request to a running server); `first_answer` the first answer on a fresh
index; `llm_lines` the terminal lines for LLM-assisted retrieval. `ragls.cli.main` is the console script."""

from ragls.cli.app import main

__all__ = ["main"]
