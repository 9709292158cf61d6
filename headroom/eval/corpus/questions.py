"""Question wordings per intent: several paraphrases, one picked per case by a hash of its
id, so the corpus never rewards a compressor for matching one phrasing."""

from __future__ import annotations

import hashlib

PARAPHRASES: dict[str, tuple[str, ...]] = {
    "one_off": (
        "Summarise the {what}: what unusual or one-off events does it contain?",
        "Anything out of the ordinary in this {what}? List the events that only happened once.",
        "Which rare events show up in the {what}, apart from the routine noise?",
        "Go through the {what} and tell me every event that is not part of the repeating pattern.",
        "What stands out in the {what}? I care about the things that happened a single time.",
    ),
    "errors": (
        "Did anything go wrong? List every error and warning in the {what}.",
        "What failed according to the {what}? Give me the errors and warnings.",
        "Which problems does the {what} report (errors, warnings, failures)?",
        "Scan the {what} for failures and warnings and quote them.",
    ),
    "last": (
        "What was the final state at the end of the {what}?",
        "How did it end? Tell me the last thing the {what} reports.",
        "Where did things stand when the {what} stopped?",
    ),
    "first": (
        "How did it start? What is the first thing the {what} reports?",
        "What happened at the very beginning of the {what}?",
    ),
    "change": (
        "What changed, according to the {what}?",
        "Summarise the changes shown in the {what}.",
    ),
    "summary": (
        "Give me a short summary of the {what} and its notable entries.",
        "What does the {what} tell us? Mention anything notable.",
    ),
}


def choose(case_id: str, wordings: tuple[str, ...]) -> str:
    """One of a source's own wordings (named lookups, extremes), chosen by the case id."""
    return wordings[int(hashlib.sha256(case_id.encode()).hexdigest(), 16) % len(wordings)]


def pick(intent: str, case_id: str, what: str) -> str:
    """One paraphrase for ``intent``, chosen by the case id so rebuilding gives the same wording."""
    return choose(case_id, PARAPHRASES[intent]).format(what=what)


def all_wordings(intent: str, question: str) -> tuple[str, ...]:
    """Every paraphrase of ``intent`` about the subject ``question`` names ("the redis
    log"), the case's own wording among them; () when ``question`` is not one of the
    shared paraphrases (a source's own named-lookup or extreme wordings)."""
    for wording in PARAPHRASES.get(intent, ()):
        head, _, tail = wording.partition("{what}")
        if len(question) > len(head) + len(tail) and question.startswith(head) and question.endswith(tail):
            what = question[len(head): len(question) - len(tail)]
            return tuple(w.format(what=what) for w in PARAPHRASES[intent])
    return ()
