"""Compound names a question spells out word by word (issue 33, tenth session).

``nstat``'s ``TcpActiveOpens``, sysctl's ``tcp_keepalive_time``: the question says the
words ("how many TCP connections were opened actively"), never the name.
"""

from __future__ import annotations

import random

from hypothesis import given, settings
from hypothesis import strategies as st

from headroom.query.names import name_parts, named_by_parts, question_words

_WORDS = ("ip", "tcp", "udp", "icmp", "in", "out", "ext", "segs", "errors", "resets", "drops", "octets",
          "receives", "delivers", "requests", "discards", "reasm", "frag", "timeouts", "retrans", "probes",
          "listen", "overflows", "pruned", "collapsed", "sack", "dsack", "backlog", "window", "zero", "memory")


def _camel(words) -> str:
    return "".join(w.upper() if len(w) <= 3 else w.capitalize() for w in words)


def test_parts_at_case_changes_digits_and_punctuation():
    assert name_parts("TcpActiveOpens") == ("tcp", "active", "opens")
    assert name_parts("TcpExtTCPSackFailures") == ("tcp", "ext", "tcp", "sack", "failures")
    assert name_parts("Udp6InDatagrams") == ("udp", "in", "datagrams")
    assert name_parts("net.ipv4.tcp_keepalive_time") == ("net", "ipv", "tcp", "keepalive", "time")


def test_hyphenated_question_words_are_joined_and_split():
    words = question_words("How long before TCP sends keep-alive probes to a per-host peer?")
    assert {"keepalive", "keep", "alive", "host"} <= words


def test_the_name_saying_most_of_the_question_wins():
    names = ["TcpActiveOpens", "TcpPassiveOpens", "TcpAttemptFails", "TcpExtTCPFastOpenActiveFail", "UdpNoPorts",
             "Udp6NoPorts", "IpInUnknownProtos", "TcpExtBusyPollRxPackets"]
    pick = lambda q: [names[i] for i in named_by_parts(names, q)]
    assert pick("How many TCP connections did this host open actively?") == ["TcpActiveOpens"]
    assert pick("How many outgoing TCP connects failed?") == ["TcpAttemptFails"]
    assert pick("How many packets went to unknown UDP ports?") == ["UdpNoPorts", "Udp6NoPorts"]


def test_one_word_names_nothing_and_many_ties_name_nothing():
    names = [_camel(("tcp", w)) for w in _WORDS]
    assert named_by_parts(names, "anything about tcp?") == []  # one word: a search hit, no name
    many = [f"Tcp{k}Errors" for k in "ABCDEFGHIJ"]
    assert named_by_parts(many, "how many tcp errors?") == []  # ten alike: none in particular


@settings(max_examples=60, deadline=None)
@given(st.integers(0, 10_000), st.integers(20, 200))
def test_the_asked_name_is_found_wherever_it_sits_and_whatever_else_is_there(seed, n):
    rng = random.Random(seed)
    names = sorted({_camel(rng.sample(_WORDS, rng.randint(2, 4))) for _ in range(n)})
    asked = ("retrans", "probes", "overflows")
    target = _camel(asked)
    names = [x for x in names if not set(name_parts(x)) >= {"retrans", "probes"}]
    names.insert(rng.randrange(len(names) + 1), target)
    rng.shuffle(names)
    got = [names[i] for i in named_by_parts(names, "How many retrans probes overflows were counted?")]
    assert got == [target]
    # The order of the names changes nothing.
    again = names[::-1]
    assert [again[i] for i in named_by_parts(again, "How many retrans probes overflows were counted?")] == [target]


def test_nouns_said_in_passing_are_parts_of_names_too():
    names = ["nr_inactive_anon", "nr_inactive_file", "nr_active_anon", "nr_active_file", "nr_dirty"]
    assert [names[i] for i in named_by_parts(names, "How many pages are on the inactive file list?")] \
        == ["nr_inactive_file"]
