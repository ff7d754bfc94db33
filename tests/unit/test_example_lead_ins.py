"""A paragraph ending in "e.g." (or "i.e.", "for example.") before a code block introduces that block as a ":" does
(`program_output.introduces`), and an answer shows the abbreviation whole ("... e.g. [1]:", not "... e.g [1]."); a
sentence is not cut after "Fig." ("... like "Fig. 1.1"." is one sentence). Jest's "You can use that in your
configuration to conditionally setup only the compilation needed for Jest, e.g." was quoted as "... for Jest, e.g
[1]." with the `babel.config.js` it means left out; Sphinx's numfig sentence was quoted as "... like "Fig [1]."."""

from __future__ import annotations

from ragls.answer.extractive import render_extractive
from ragls.answer.passages import units
from ragls.answer.sentences import joined_lines, sentence_spans

JEST = """# Using Babel

Jest will set `process.env.NODE_ENV` to `'test'` if it's not set to something else. You can use that in your
configuration to conditionally setup only the compilation needed for Jest, e.g.

```javascript title="babel.config.js"
module.exports = api => {
  const isTest = api.env('test');
  return {};
};
```

Babel is installed automatically.
"""

ORDINARY = """# Notes

The cache lives in the project folder.

```bash
ls .cache
```
"""


def test_a_paragraph_ending_in_e_g_carries_the_block_it_announces():
    found = units(JEST)
    eg = next(u for u in found if u.sentence.endswith("e.g."))
    assert "module.exports = api => {" in eg.attached
    assert eg.block_end > eg.end
    first = next(u for u in found if u.sentence.startswith("Jest will set"))
    assert not first.attached  # only the last sentence introduces it; the others hold it as the code after
    lines = render_extractive([(1, eg)]).split("\n")
    assert lines[2] == ("- You can use that in your configuration to conditionally setup only the compilation "
                        "needed for Jest, e.g. [1]:")
    assert lines[3] == "  ```javascript" and "  module.exports = api => {" in lines


def test_a_plain_sentence_before_a_block_does_not_carry_it():
    found = units(ORDINARY)
    plain = next(u for u in found if u.sentence.startswith("The cache lives"))
    assert not plain.attached and "ls .cache" in plain.code_after


def test_an_abbreviation_keeps_its_period_in_an_answer():
    from ragls.answer.passages import Unit

    lines = render_extractive([(2, Unit("Build tools, compilers, linkers, etc.")),
                               (3, Unit("Set it in the settings module, for example.", "```\nRATE = 5\n```"))])
    assert "- Build tools, compilers, linkers, etc. [2]" in lines.split("\n")
    assert "- Set it in the settings module, for example [3]:" in lines.split("\n")


def test_no_sentence_ends_after_fig():
    text = ('If you use this role, it will insert a reference to the figure with link text by its figure number '
            'like "Fig. 1.1". Numbers are only assigned with numfig.')
    assert [s for s, *_ in sentence_spans(*joined_lines([text], 0))] == [
        ('If you use this role, it will insert a reference to the figure with link text by its figure number like '
         '"Fig. 1.1".'), "Numbers are only assigned with numfig."]


def _sentences(text: str) -> list[str]:
    return [s for s, *_ in sentence_spans(*joined_lines([text], 0))]


def test_no_sentence_ends_after_a_spaced_e_g_or_i_e():
    # "e. g." / "i. e." were abbreviations to the answer's renderer and the example lead-in, not to the split
    assert _sentences("Pass a callable, e. g. MyLoader from the loaders module, to the constructor. It is called "
                      "once.") == ["Pass a callable, e. g. MyLoader from the loaders module, to the constructor.",
                                   "It is called once."]
    assert _sentences("Pick one mode, i. e. Strict or lax, before the first run.") == [
        "Pick one mode, i. e. Strict or lax, before the first run."]


def test_no_sentence_ends_after_a_lower_case_fig():
    assert _sentences("The pipeline is drawn in fig. 3 of the paper. It has two stages.") == [
        "The pipeline is drawn in fig. 3 of the paper.", "It has two stages."]


def test_every_abbreviation_the_split_knows_keeps_its_period_in_an_answer():
    # "Fig.", "Cf." and "Vs." ended no sentence to the split, yet the renderer moved their period past the marker
    from ragls.answer.passages import Unit

    lines = render_extractive([(1, Unit("The numbers follow the figure's caption, as in Fig.")),
                               (2, Unit("Both flags are described in the reference, Cf.")),
                               (3, Unit("Latency Vs."))]).split("\n")
    assert "- The numbers follow the figure's caption, as in Fig. [1]" in lines
    assert "- Both flags are described in the reference, Cf. [2]" in lines
    assert "- Latency Vs. [3]" in lines
