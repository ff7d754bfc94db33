"""`ragls http`: the live index over HTTP for services and dashboards, on Starlette and uvicorn (`api`). Absolute
imports (`import http`) name the standard library's package, never this one."""
