"""Extractive answers over Sphinx configuration references (`.. confval::` with `:type:` and `:default:` options, as
Sphinx 7.4's std domain and pytest's reference write them), with the real offline model and a real index
(answer/rest.py `directive_options`)."""

from __future__ import annotations

from offline_index import extractive_workspace, file_lines, line_of

CONFIG = """Configuration options
=====================

.. confval:: cache_dir
   :type: ``str``
   :default: ``".sprocket_cache"``

   Sets the directory where the cache of finished jobs is stored.
   The directory may be relative or absolute.

.. confval:: console_style
   :type: ``"classic" | "progress" | "count"``
   :default: ``"progress"``

   Sets the console output style while jobs run.

.. confval:: worker_count
   :type: ``int``

   How many workers run jobs at the same time.
"""


def test_an_objects_default_option_is_read_as_a_sentence_naming_it(tmp_path):
    """A `:default:` option under `.. confval::` is what Sphinx shows under the option's name ("Default:
    ".sprocket_cache""): it reads "The default of `cache_dir` is `".sprocket_cache"`." at its own line. Before, every
    option line was blanked as a directive setting and a question for the default found only the description,
    which never states it (pytest's reference gives 44 options' defaults so)."""
    with extractive_workspace(tmp_path, {"config.rst": CONFIG}) as ws:
        answer = ws.ask("What is the default value of the cache_dir option?")
        assert 'The default of `cache_dir` is `".sprocket_cache"`' in answer.text, answer.text
        n = next(int(line.rsplit("[", 1)[1].split("]")[0]) for line in answer.text.splitlines()
                 if "The default of `cache_dir`" in line)
        hit = next(h for k, h in answer.sources if k == n)
        spans = [file_lines(s) for s in (hit.focus, *hit.more_focus)]
        assert any(a <= line_of(CONFIG, ':default: ``".sprocket_cache"``') <= b for a, b in spans), spans
        # the description below it still reads with the option's name, and an option without a default states none
        answer = ws.ask("What does the worker_count option set?")
        assert "`worker_count`: How many workers run jobs at the same time" in answer.text, answer.text
        assert "The default of `worker_count`" not in answer.text and ":type:" not in answer.text, answer.text
