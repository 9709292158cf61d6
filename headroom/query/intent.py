"""Question intent: what kind of item a question asks for, robust to paraphrase.

Compressors use it to decide what stays in view: "anything unusual?" keeps one-off
events, "what was the final state?" keeps the tail, "which call was slowest?" keeps the
rows holding extreme values. No model: the question's words are lower-cased and reduced
to a crude lemma (plural, -ing, -ed, -est, -er, -ly endings cut), then matched against
keyword sets and short phrases per intent. A question may carry several intents.

Intents: ``one_off`` (rare, unusual, anomalies), ``last`` (latest, final state),
``first`` (earliest, initial), ``extreme`` (slowest, largest, max/min, top),
``change`` (what changed, differences, transitions), ``errors`` (failures, warnings,
problems). A named id is not an intent here: query anchors cover it.
"""

from __future__ import annotations

import re
from functools import lru_cache

_WORD = re.compile(r"[a-z][a-z'-]*")

# Single lemmas that signal an intent on their own.
_KEYWORDS: dict[str, frozenset[str]] = {
    "one_off": frozenset({
        "unusual", "unusually", "rare", "rarely", "one-off", "oneoff", "once", "odd", "oddity", "strange", "weird",
        "anomaly", "anomalous", "abnormal", "irregular", "unexpected", "outlier", "uncommon", "peculiar",
        "surprising", "surprise", "notable", "noteworthy", "standout", "atypical", "exceptional", "singular",
        "unique", "isolated", "sporadic", "infrequent", "special", "suspicious", "curious", "different",
        "distinct", "interesting", "novel",
    }),
    "last": frozenset({
        "last", "latest", "final", "finally", "recent", "recently", "newest", "end", "ending", "ended", "current",
        "currently", "now", "eventual", "eventually", "conclude", "conclusion", "finish", "tail", "closing",
        "afterward", "afterwards", "lastly", "concluding", "shutdown", "stop", "halt", "terminate", "exit",
    }),
    "first": frozenset({
        "first", "earliest", "initial", "initially", "begin", "beginning", "start", "startup", "boot",
        "oldest", "opening", "originally", "original", "onset", "kick", "launch",
    }),
    "extreme": frozenset({
        "slow", "fast", "quick", "long", "short", "large", "big", "small", "high", "low", "heavy", "light",
        "max", "maximum", "min", "minimum", "most", "least", "peak", "extreme", "top", "worst", "best",
        "longest", "shortest", "biggest", "largest", "smallest", "highest", "lowest", "slowest", "fastest",
        "greatest", "heaviest", "lightest", "costly", "expensive", "cheap", "busiest", "huge", "tiny",
        "record", "ceiling", "spike", "latency", "duration", "burst", "storm", "surge", "flood",
    }),
    "change": frozenset({
        "change", "changed", "differ", "difference", "different", "shift", "transition", "switch", "modify",
        "modification", "become", "turn", "flip", "evolve", "evolution", "move", "update", "diff", "before",
        "after", "compare", "comparison", "delta", "drift", "alter", "alteration", "transform",
    }),
    "errors": frozenset({
        "error", "fail", "failure", "failed", "fault", "crash", "exception", "problem", "issue", "wrong",
        "broken", "break", "bug", "warning", "warn", "fatal", "panic", "abort", "reject", "refuse", "denied",
        "deny", "timeout", "trouble", "incident", "alert", "critical", "severe", "go", "glitch",
    }),
}
# Phrases (on lemmas, space-joined) that carry an intent no single word does.
_PHRASES: dict[str, tuple[str, ...]] = {
    "one_off": ("out of the ordinary", "stand out", "only once", "one time", "happen once", "out of place",
                "not normal", "not usual", "not routine", "not typical", "not common", "off the beaten",
                "one of a kind", "single occurrence", "didn't repeat", "did not repeat", "never repeat",
                "just once", "not regular", "not expect", "unlike the rest", "unlike the other"),
    "last": ("at the end", "in the end", "end state", "where did it end", "where it end", "most recent",
             "how did it end", "ended up", "end up", "wind up", "wound up", "left in", "state now",
             "right now", "by the end", "what remain", "things stand", "thing stand", "where it stand",
             "left off", "leave off"),
    "first": ("at the start", "at the beginning", "to begin with", "kick off", "start up", "in the beginning",
              "very first", "how did it start", "what start"),
    "extreme": ("took the longest", "take the longest", "took longest", "most time", "least time",
                "the most", "the least", "how long", "how much time", "how big", "how large",
                "than usual", "than normal", "than average"),
    "change": ("what changed", "what change", "what's new", "what is different", "went from", "go from",
               "used to", "no longer", "any more", "anymore", "than before", "over time"),
    "errors": ("go wrong", "went wrong", "goes wrong", "not work", "didn't work", "doesn't work", "did not work",
               "does not work", "not succeed", "didn't succeed", "fall over", "fell over", "blow up",
               "blew up", "fall apart", "fell apart", "what broke", "time out", "timed out", "timing out",
               "times out"),
}
_LEMMA_EXCEPTIONS = {"was": "be", "were": "be", "is": "be", "are": "be", "went": "go", "gone": "go",
                     "took": "take", "taken": "take", "broke": "break", "broken": "broken", "ran": "run",
                     "became": "become", "fell": "fall", "blew": "blow", "did": "do", "does": "do",
                     "stood": "stand", "began": "begin", "begun": "begin", "biggest": "biggest",
                     "latest": "latest", "earliest": "earliest", "last": "last", "less": "less",
                     "happened": "happen", "happens": "happen", "status": "status", "process": "process",
                     "ended": "ended", "ending": "ending", "finally": "finally", "started": "start",
                     "starting": "start", "unusually": "unusually", "anomalies": "anomaly",
                     "oddities": "oddity", "irregularities": "irregular", "differences": "difference"}


def lemma(word: str) -> str:
    """A crude, deterministic lemma: enough to fold "failures"/"failing"/"failed" (cached
    for words up to _MAX_WORD characters: field values and template tokens repeat)."""
    return _lemma_cached(word) if len(word) <= _MAX_WORD else _lemma(word)


def _lemma(word: str) -> str:
    """A crude, deterministic lemma: enough to fold "failures"/"failing"/"failed"."""
    w = word.strip("'-")
    if w in _LEMMA_EXCEPTIONS:
        return _LEMMA_EXCEPTIONS[w]
    for suffix, repl in (("ies", "y"), ("ied", "y"), ("ing", ""), ("ed", ""), ("es", ""), ("s", "")):
        if suffix == "es" and not w.endswith(("sses", "xes", "zes", "ches", "shes")):
            continue  # "failures" -> "failure", but "boxes" -> "box"
        if len(w) > len(suffix) + 2 and w.endswith(suffix) and not w.endswith("ss"):
            base = w[: len(w) - len(suffix)] + repl
            # "stopped" -> "stop", "running" -> "run"
            if len(base) > 3 and base[-1] == base[-2] and base[-1] not in "ls":
                base = base[:-1]
            return base
    return w


def _forms(word: str) -> frozenset[str]:
    return _forms_cached(word) if len(word) <= _MAX_WORD else _forms_uncached(word)


def _forms_uncached(word: str) -> frozenset[str]:
    """The word and every base it might have: "updated" -> update/updat, "modified" ->
    modify. Matching any form against the keyword sets is more forgiving than one lemma."""
    w = word.strip("'-")
    out = {w, lemma(w)}
    for suffix, repl in (("ied", "y"), ("ies", "y"), ("ed", ""), ("d", ""), ("es", ""), ("s", ""),
                         ("ing", ""), ("ing", "e"), ("er", ""), ("est", ""), ("ly", "")):
        if len(w) > len(suffix) + 2 and w.endswith(suffix):
            base = w[: len(w) - len(suffix)] + repl
            out.add(base)
            if len(base) > 3 and base[-1] == base[-2]:
                out.add(base[:-1])
    return frozenset(out)


# Short words only, so hostile questions or values cannot fill the caches with long keys.
_MAX_WORD = 48
_lemma_cached = lru_cache(maxsize=8192)(_lemma)
_forms_cached = lru_cache(maxsize=8192)(_forms_uncached)


# "didn't work", "does not even start", "couldn't connect": a negated verb of success.
_NEGATED_SUCCESS = re.compile(
    r"\b(?:didn't|did not|doesn't|does not|don't|do not|won't|wouldn't|couldn't|could not|can't|cannot|never|not)"
    r"(?:\s+\w+){0,2}\s+(?:work|succeed|start|finish|complete|run|pass|load|connect|respond|boot)\w*"
)


def _words(question: str) -> list[str]:
    """The question's words, with each part of a hyphenated compound as a word too:
    "latest-published" asks for recency, "slowest-running" for an extreme."""
    words = _WORD.findall(question.lower().replace("’", "'"))
    return words + [p for w in words if "-" in w.strip("-") for p in w.split("-") if p]


@lru_cache(maxsize=1024)
def intents_of(question: str | None) -> frozenset[str]:
    """The intents a question carries (empty for no question or none recognised)."""
    if not question:
        return frozenset()
    words = _words(question)
    lemmas = [lemma(w) for w in words]
    found: set[str] = set()
    vocab = set().union(*(_forms(w) for w in words)) if words else set()
    for intent, keys in _KEYWORDS.items():
        if vocab & keys:
            found.add(intent)
    joined_words = " " + " ".join(words) + " "
    joined_lemmas = " " + " ".join(lemmas) + " "
    for intent, phrases in _PHRASES.items():
        for ph in phrases:
            if f" {ph} " in joined_words or f" {ph} " in joined_lemmas:
                found.add(intent)
                break
    if _NEGATED_SUCCESS.search(question.lower().replace("’", "'")):
        found.add("errors")
    # Superlative adjectives ("-est") ask for an extreme ("hottest", "busiest node").
    if any(w.endswith("est") and len(w) > 5 and w not in _NOT_SUPERLATIVE for w in words):
        found.add("extreme")
    return frozenset(found)


# Words ending in -est that are not superlatives.
_NOT_SUPERLATIVE = frozenset({"request", "requests", "interest", "interested", "interesting", "latest",
                              "earliest", "test", "tests", "suggest", "manifest", "harvest", "honest",
                              "digest", "ingest", "forest", "invest", "protest", "contest", "arrest",
                              "modest", "guest", "quest", "rest", "chest", "west", "nest", "best", "biggest"})


# Words of a question that name no content: function words and the vocabulary of asking
# about a tool output ("log", "line", "happen", "show").
_NOT_CONTENT_TEXT = """
a an the and or but if then than so of in on at to for from by with without about into onto over under
is are was were be been being am do does did done have has had having can could would should will shall may
might must not no nor any all some each every this that these those there here it its they them their what
which who whom whose when where why how i me my we us our you your he she his her one ones also just only
very more most less least much many few please tell show give list find quote say said get got see look
log logs line lines output outputs event events entry entries happen happened thing things anything something
everything nothing stuff part parts item items record records message messages summary summarise summarize
describe explain report state status run runs file files time times kind kinds sort type way ever still
care want need know like out up down off again once twice single whole overall after before during while
"""
_NOT_CONTENT = frozenset(_NOT_CONTENT_TEXT.split())


@lru_cache(maxsize=1024)
def content_lemmas(question: str | None) -> frozenset[str]:
    """The question's content words (3+ letters, not function or asking words), each with
    its possible base forms, for matching against template tokens and field values:
    "Which packages were upgraded?" -> {packages, package, upgraded, upgrade, …}."""
    if not question:
        return frozenset()
    out: set[str] = set()
    for w in _WORD.findall(question.lower().replace("’", "'")):
        w = w.strip("'-")
        if len(w) < 3 or w in _NOT_CONTENT or lemma(w) in _NOT_CONTENT:
            continue
        out |= {f for f in _forms(w) if len(f) >= 3}
    return frozenset(out)


def names_content_word(token: str, lemmas: frozenset[str]) -> bool:
    """Whether a template token (or a field value) is one of the question's content
    words, in any inflection."""
    t = token.lower().strip(".,:;()[]'\"")
    if len(t) > _MAX_WORD:
        return t in lemmas  # no question word is this long; and the caches keep short keys only
    return len(t) >= 3 and (t in lemmas or lemma(t) in lemmas or bool(_forms(t) & lemmas))
