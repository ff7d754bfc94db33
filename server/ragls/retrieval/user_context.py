"""The user's own things in a question, as its grammar marks them (issue 27, abstention's name test,
`names.question_names` and `names.name_terms`): the words that only describe a thing of theirs
(`without_user_context`: "for my JavaScript project") and the arguments of a call they wrote (`callees`:
"expect(parseConfig(bad)).toThrow"). Docs answer for the product, not for the user's project or values, so a name
there that no chunk holds says nothing about whether the docs answer. Measured in bench/history/session-66.md,
"Abstention: the user's own things"."""

from __future__ import annotations

import re

from ragls.core.analysis import STOPWORDS

# The user's own things as the question's grammar marks them (`without_user_context`): a name that only describes a
# thing of theirs (between my/our/your/their, or in an aside a/an/the, and the lower-case noun) where the phrase
# tells what the asked thing is for ("to get Task for my JavaScript project?"), where the user stands (opening a
# sentence up to a comma: "Behind our TLS-terminating proxy, ...") or an aside of `ASIDE_MIN_WORDS` words or more
# ("Alt+F (Option+F on a Mac keyboard)"). Elsewhere such a phrase names what is asked ("of my Kubernetes cluster?",
# "from my .netrc file?": near misses), as do the possessed noun ("my Redis") and an aside's own names ("(for example
# with Stryker)"). bench/history/session-66.md, "Abstention: the user's own things"
_OWNER = r"(?:[Mm]y|[Oo]ur|[Yy]our|[Tt]heir)"
_DESCRIBED = r"\s+(?P<mods>(?:[^\s,;:?!()\"“”]+\s+){1,3}?)(?P<head>[a-z]+)"
_FOR_OWN = re.compile(rf"\b[Ff]or\s+{_OWNER}{_DESCRIBED}(?=[\s,;:?!.)]|$)")
_FRONTED_OWN = re.compile(rf"(?:^|(?<=[.?!]\s))\s*[A-Z][a-z]*\s+{_OWNER}{_DESCRIBED}(?=,)")
# ... and what that thing of theirs has, in an opening phrase of place: "On my laptop with an AMD iGPU plus an NVIDIA
# card, kitty takes two seconds to open a window. Any way to speed that up?" (kitty's kitty-p04 was refused for
# "iGPU": bench/history/session-69.md, "Abstention: the user's hardware and a host's labels"). What it has is a noun
# phrase of at most WITH_MAX_WORDS words and no subject pronoun: "In my project with Django I want Celery to retry
# tasks, how?" is a clause, whose names are asked ("with [^,]+" blanked it to the comma, every name of the question)
WITH_MAX_WORDS = 8  # kitty-p04's "an AMD iGPU plus an NVIDIA card" has 7
_WITH_WORD = r"(?!(?:I|[Ww]e|[Yy]ou|[Tt]hey|[Ii]t|[Hh]e|[Ss]he|[Tt]here)\b)[^\s,;:?!.()]+"
_FRONTED_WITH = re.compile(rf"(?:^|(?<=[.?!]\s))\s*(?:On|In|Inside|Within|Behind|Under|At|From)\s+{_OWNER}\s+(?:[^\s,;:?!()\"“”]+\s+){{0,3}}?"
                           rf"(?P<head>[a-z]+)\s+with\s+(?P<mods>(?:{_WITH_WORD}\s+){{0,{WITH_MAX_WORDS - 1}}}{_WITH_WORD})(?=,)")
_IN_ASIDE = re.compile(rf"\b(?:{_OWNER}|[Aa]n?|[Tt]he){_DESCRIBED}(?=[\s,;:?!.)]|$)")
_ASIDE = re.compile(r"\(([^()]*)\)")
ASIDE_MIN_WORDS = 3  # an aside this long tells; a shorter one ("(NTLM)", "(e.g. Redis)") glosses what is asked


def without_user_context(prose: str) -> str:
    """`prose` with the words that describe the user's own things blanked out (`_FOR_OWN`, `_FRONTED_OWN`, what
    their thing has in that opening phrase (`_FRONTED_WITH`), and `_IN_ASIDE` inside a long `_ASIDE`): "... Task for
    my JavaScript project?" -> "... Task for my            project?". Not when the noun is a stop word, nor
    (but for `_FRONTED_WITH`'s "with" phrase) a describing word ("for my app and Redis" keeps Redis)."""
    def blank(m: re.Match) -> str:
        if m.group("head") in STOPWORDS:
            return m.group(0)
        a, b = m.start("mods") - m.start(), m.end("mods") - m.start()
        return m.group(0)[:a] + " " * (b - a) + m.group(0)[b:]

    def described(m: re.Match) -> str:
        return m.group(0) if any(w.lower() in STOPWORDS for w in m.group("mods").split()) else blank(m)

    def aside(m: re.Match) -> str:
        return _IN_ASIDE.sub(described, m.group(0)) if len(m.group(1).split()) >= ASIDE_MIN_WORDS else m.group(0)
    prose = _FRONTED_WITH.sub(blank, _ASIDE.sub(aside, prose))
    return _FRONTED_OWN.sub(described, _FOR_OWN.sub(described, prose))


def callees(name: str) -> str:
    """`name` without its calls' arguments, nested or cut by the word's end: "expect(parseConfig(bad)).toThrow" ->
    "expect().toThrow", "client.get('/users" -> "client.get"."""
    out, depth = [], 0
    for c in name:
        if c == "(":
            depth += 1
        if depth == 0 or (c in "()" and depth == 1):
            out.append(c)
        if c == ")" and depth:
            depth -= 1
    bare = "".join(out)
    return bare[:bare.rindex("(")] if depth else bare
