"""Opt-in pytest plugin: CPU-seconds per test, for measuring test cost on a shared machine where wall time is noise.

    PYTHONPATH=tests python -m pytest -p cpu_durations --cpu-durations=20 [--cpu-json=FILE] tests/...

Each phase's report (setup, call, teardown) carries the getrusage(SELF) + getrusage(CHILDREN) user+system seconds
spent since the previous phase ended (`user_properties` "cpu_s", so it also works across xdist workers); the summary
lists the N most expensive tests and the total. CHILDREN counts only descendants that have been waited for: a server
kept by a module fixture counts in the test whose teardown stops it.
"""

from __future__ import annotations

import json
import resource

import pytest


def _cpu() -> float:
    s = resource.getrusage(resource.RUSAGE_SELF)
    c = resource.getrusage(resource.RUSAGE_CHILDREN)
    return s.ru_utime + s.ru_stime + c.ru_utime + c.ru_stime


_mark = [0.0]
_costs: dict[str, float] = {}
_walls: dict[str, float] = {}


def pytest_addoption(parser):
    parser.addoption("--cpu-durations", type=int, default=20, help="show the N tests that used most CPU-seconds")
    parser.addoption("--cpu-json", default=None, help="write {nodeid: [cpu_s, wall_s]} for every test to this file")


def pytest_runtest_logstart(nodeid, location):
    _mark[0] = _cpu()


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item, call):
    outcome = yield
    now = _cpu()
    outcome.get_result().user_properties.append(("cpu_s", now - _mark[0]))
    _mark[0] = now


def pytest_runtest_logreport(report):
    for key, value in report.user_properties:
        if key == "cpu_s":
            _costs[report.nodeid] = _costs.get(report.nodeid, 0.0) + value
    _walls[report.nodeid] = _walls.get(report.nodeid, 0.0) + report.duration


def pytest_terminal_summary(terminalreporter, config):
    n = config.getoption("--cpu-durations")
    tr = terminalreporter
    tr.write_sep("=", f"CPU-seconds (self + waited-for children) and wall seconds, {n} most CPU")
    for nodeid, cost in sorted(_costs.items(), key=lambda kv: -kv[1])[:n]:
        tr.write_line(f"{cost:8.2f} cpu {_walls.get(nodeid, 0):8.2f} wall  {nodeid}")
    tr.write_line(f"{sum(_costs.values()):8.2f} cpu {sum(_walls.values()):8.2f} wall  total over {len(_costs)} tests")
    path = config.getoption("--cpu-json")
    if path:
        with open(path, "w", encoding="utf-8") as f:
            json.dump({k: [round(v, 3), round(_walls.get(k, 0), 3)] for k, v in _costs.items()}, f, indent=0)
