"""Comment lines that are no prose (answer.code_passages._NOT_PROSE) open no extractive passage: a licence header,
an encoding or editor modeline, a linter pragma, a to-do marker. A comment run with one of them is left out whole;
the same run without it is a passage with the code under it."""

import pytest
from ragls.answer.code_passages import code_passages

CODE = "retries = settings.get('retries', 3)"
PROSE = "# Read how many times a failed request is tried again."


def _chunk(*comments: str) -> str:
    return "\n".join([*comments, CODE, ""])


def test_a_prose_comment_is_a_passage_with_its_code():
    [unit] = code_passages(_chunk(PROSE))
    assert unit.sentence == "Read how many times a failed request is tried again:"
    assert CODE in unit.attached and (unit.line, unit.end) == (0, 1)


@pytest.mark.parametrize("line", [
    "# SPDX-License-Identifier: Apache-2.0",
    "# Copyright (c) 2024 The Authors",
    "# copyright 2019 someone",
    "# -*- coding: utf-8 -*-",
    "# coding=utf-8",
    "# vim: set ts=4 sw=4 et:",
    "# vi: ft=python",
    "# TODO make this configurable",
    "# FIXME the default is wrong",
    "# XXX remove after 2.0",
    "# noqa: E501",
    "# type: ignore[attr-defined]",
    "# pragma: no cover",
    "# pylint: disable=invalid-name",
    "# fmt: off",
    "// eslint-disable-next-line no-console",
    "// @ts-ignore",
    "# !important",
])
def test_a_comment_run_holding_no_prose_is_no_passage(line):
    assert code_passages(_chunk(PROSE, line)) == []
    assert code_passages(_chunk(line)) == []


@pytest.mark.parametrize("line", [
    "# Todos are kept in a list; each has a title.",  # "TODO" only as a whole word
    "# Copy the file, then read it back.",
    "# Visit the page once more.",
])
def test_a_prose_line_like_a_pragma_is_prose(line):
    [unit] = code_passages(_chunk(line))
    assert CODE in unit.attached
