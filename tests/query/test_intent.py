"""Question intent: many wordings per intent, and questions that carry none."""

from __future__ import annotations

import pytest

from headroom.query.intent import intents_of, lemma

PARAPHRASES = {
    "one_off": [
        "Summarise the log: what unusual or one-off events does it contain?",
        "Anything out of the ordinary in there?",
        "Were there any anomalies?",
        "Which events only happened once?",
        "List the rare messages.",
        "What stands out in this output?",
        "Did anything strange or unexpected show up?",
        "Point out the oddities in the server log.",
        "Which lines are atypical compared with the rest?",
        "Is there something abnormal going on?",
        "Any irregularities worth a look?",
        "What's peculiar about this run?",
    ],
    "last": [
        "What was the final state?",
        "How did it end?",
        "What is the latest status of the job?",
        "Where did things end up?",
        "What happened most recently?",
        "What's the current state of the cluster?",
        "Tell me how the run wound up.",
        "What did it finally report?",
        "What was the last thing the server logged?",
        "What state was it in at the end?",
        "Where did things stand when the log stopped?",
        "Where did it leave off?",
    ],
    "first": [
        "What happened first?",
        "How did the server start up?",
        "What was the initial configuration?",
        "What did it log at the beginning?",
        "Which event came earliest?",
        "How did the run kick off?",
        "What was logged during boot?",
    ],
    "extreme": [
        "Which request was slowest?",
        "What took the longest?",
        "Which upload was the largest?",
        "What was the peak memory?",
        "Show the maximum latency.",
        "Which file is biggest?",
        "What is the smallest batch size?",
        "Which query was the most expensive?",
        "Which worker was the busiest?",
        "Which call had the highest duration?",
        "What were the top offenders by time spent?",
        "How long did the slowest step take?",
    ],
    "change": [
        "What changed between the two runs?",
        "How did the configuration shift over time?",
        "What is different now compared with before?",
        "When did the state transition to degraded?",
        "Which settings were modified?",
        "What was updated?",
        "Did the leader switch at some point?",
        "What went from healthy to failing?",
    ],
    "errors": [
        "Why did the build fail?",
        "What went wrong?",
        "Were there any errors?",
        "Which tests are failing?",
        "Did anything crash?",
        "List the problems in this output.",
        "Why didn't it work?",
        "Which requests were rejected?",
        "Any warnings I should know about?",
        "What broke?",
        "Did the upload time out?",
    ],
}


@pytest.mark.parametrize("intent, question", [(k, q) for k, qs in PARAPHRASES.items() for q in qs])
def test_paraphrases_carry_their_intent(intent: str, question: str) -> None:
    assert intent in intents_of(question), (question, intents_of(question))


@pytest.mark.parametrize("question", [
    "Show me the config file.",
    "Summarise the output.",
    "What does this module do?",
    "List the packages that were installed.",
    "",
    None,
])
def test_plain_questions_carry_no_steering_intent(question) -> None:
    assert not intents_of(question) & {"one_off", "last", "first", "extreme"}


def test_lemmas_fold_inflections() -> None:
    assert lemma("failures") == lemma("failure") == "failure"
    assert lemma("failing") == lemma("fail") == "fail"
    assert lemma("stopped") == "stop"
    assert lemma("anomalies") == "anomaly"


def test_intents_are_deterministic_and_combine() -> None:
    q = "Which was the slowest request, and did anything fail at the end?"
    assert intents_of(q) == intents_of(q) >= {"extreme", "errors", "last"}


def test_content_lemmas_keep_the_words_that_name_things() -> None:
    from headroom.query.intent import content_lemmas, names_content_word

    asked = content_lemmas("Which packages were upgraded, and from which version to which?")
    assert {"package", "upgrade", "version"} <= asked
    assert not asked & {"which", "were", "from"}
    assert names_content_word("upgrade", asked) and names_content_word("Upgrades", asked)
    assert not names_content_word("status", asked)
    assert content_lemmas("What happened in the log?") == frozenset()


@pytest.mark.parametrize("question, intent", [
    ("What is the latest-published version, by publish time?", "last"),
    ("Which was the slowest-running job?", "extreme"),
    ("Show the earliest-created record.", "first"),
    ("Any one-off errors?", "errors"),
])
def test_hyphenated_compounds_carry_their_parts_intents(question: str, intent: str) -> None:
    assert intent in intents_of(question)
