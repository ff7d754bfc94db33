"""A project with its README translated beside it (README.md, README.id.md, README.pt-br.md, README.ja.md: Rich
has 16) answers an English question with English passages: the translations share the README's code, class names
and commands, so they rank among the sources, and their sentences were quoted in the answer ("Anda dapat
menentukan spinner yang hendak digunakan ..."). A folder written in one other language still answers from it.
Real stores (tantivy, LanceDB), the offline model, `RagWorkspace.ask` without an LLM."""

from __future__ import annotations

import pytest
from offline_index import extractive_workspace
from ragls.answer.cite import english_question, other_language

README = """# Quokka

## Status spinner

Quokka can show a spinner next to a status message while your program works:

```python
with console.status("Working...", spinner="dots"):
    do_work()
```

Run `python -m quokka.spinner` to see every spinner style you can pass as `spinner`.
"""

README_ID = """# Quokka

## Spinner status

Anda dapat menampilkan spinner di samping pesan status selama program Anda bekerja dengan `console.status`:

```python
with console.status("Working...", spinner="dots"):
    do_work()
```

Anda dapat menentukan spinner yang hendak digunakan dengan menspesifikannya di parameter `spinner`.
Jalankan `python -m quokka.spinner` untuk melihat semua gaya spinner.
"""

README_PT = """# Quokka

## Spinner de status

Você pode mostrar um spinner ao lado de uma mensagem de status enquanto o programa trabalha com `console.status`:

```python
with console.status("Working...", spinner="dots"):
    do_work()
```

Execute `python -m quokka.spinner` para ver todos os estilos de spinner que você pode passar como `spinner`.
"""

README_JA = """# Quokka

## ステータススピナー

プログラムの処理中、`console.status` でステータスメッセージの横にスピナーを表示できます。

```python
with console.status("Working...", spinner="dots"):
    do_work()
```

`python -m quokka.spinner` を実行すると、`spinner` に渡せるスピナーのスタイルがすべて表示されます。
"""


@pytest.fixture(scope="module")
def ws(tmp_path_factory):
    files = {"README.md": README, "README.id.md": README_ID, "README.pt-br.md": README_PT, "README.ja.md": README_JA}
    with extractive_workspace(tmp_path_factory.mktemp("translations"), files) as w:
        yield w


def test_english_question_is_answered_in_english(ws):
    answer = ws.ask("How do I show a spinner while my program works?").text
    assert "Quokka can show a spinner next to a status message while your program works" in answer, answer
    for foreign in ("Anda", "Você", "Jalankan", "Execute `python", "スピナー"):
        assert foreign not in answer, answer


def test_a_question_in_another_language_keeps_its_passages(ws):
    """The rule is for English questions only: an Indonesian question is answered from the Indonesian README."""
    answer = ws.ask("Menampilkan spinner di samping pesan status?").text
    assert "Anda dapat menampilkan spinner di samping pesan status" in answer, answer


def test_other_language_reads_words_outside_code():
    assert english_question("How do I install it?") and not english_question("pipx install nox")
    assert other_language("Anda dapat menentukan spinner yang hendak digunakan dengan menspesifikannya di parameter")
    assert other_language("`python -m quokka.spinner` を実行すると、スピナーのスタイルがすべて表示されます。")
    assert not other_language("Run `python -m quokka.spinner` to see every spinner style you can pass as `spinner`.")
    assert other_language("Para renderizar markdown, importe a classe `Markdown` e instancie com a string que contém "
                          "o código markdown")  # two English stop words ("a"), three Portuguese ones
    assert not other_language("`BarColumn` Displays the bar")
    assert not other_language("Fixed Text.expand_tabs assertion error")  # terse English: few stop words, no foreign
    assert not other_language("Flask (6) | 4 (para-02, -03, -07) | 2 (para-04, para-06)")  # "para" in an id
    assert not other_language("Built-in columns include percentage complete, file size, file speed, and time remaining.")
