"""Template keys, Drain-style clusters and the "what varies" summary."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from headroom.compressors.templates import WILDCARD, TemplateMiner, describe, key_of, keys_of, mine

# Lines in the shape redis-server 7 writes with `loglevel verbose` (pid:role, date, level mark).
REDIS = [
    "11850:M 23 Nov 2026 17:16:32.637 - Accepted 127.0.0.1:53560",
    "11850:M 23 Nov 2026 17:16:32.661 - Accepted 127.0.0.1:53616",
    "11850:M 23 Nov 2026 17:16:32.692 * Background saving started by pid 11911",
    "11911:C 23 Nov 2026 17:16:32.695 * DB saved on disk",
]


def test_key_masks_numbers_timestamps_ips_versions_and_ids() -> None:
    assert key_of(REDIS[0]) == key_of(REDIS[1]) == "# # Nov # # - Accepted #"
    assert key_of("req 5f2a9c1e took 45ms id=123e4567-e89b-12d3-a456-426614174000") == "req # took # id=#"
    assert key_of("Setting up libtirpc3:amd64 (1.3.3+ds-1) ...") == "Setting up libtirpc# (#) ..."
    # Words without digits stay: they are what tells events apart.
    assert key_of("connection closed") != key_of("connection opened")


def test_keys_of_matches_key_of_line_by_line() -> None:
    lines = REDIS + ["", "  indented 12", "no digits here"]
    assert keys_of(lines) == [key_of(t) for t in lines]
    assert keys_of([]) == []


def test_miner_clusters_keys_that_differ_in_one_word() -> None:
    keys = [key_of(f"client closed connection id={i} cmd={c}") for i, c in enumerate(["ping", "get", "set"])]
    keys.append(key_of("server shutting down now for maintenance"))
    _counts, miner = mine(keys)
    closed = miner.cluster_of(keys[0])
    assert miner.cluster_of(keys[1]) is closed and miner.cluster_of(keys[2]) is closed
    assert miner.cluster_of(keys[3]) is not closed
    assert closed.tokens[-1] == WILDCARD and closed.count == 3
    assert closed.template() == "client closed connection id=<*> <*>"


def test_miner_keeps_dissimilar_keys_of_equal_length_apart() -> None:
    m = TemplateMiner()
    a = m.add("alpha beta gamma delta")
    b = m.add("one two three four")
    assert a is not b and len(m.clusters) == 2


def test_miner_is_deterministic_and_first_seen_ordered() -> None:
    keys = [key_of(t) for t in REDIS * 3]
    assert [c.tokens for c in mine(keys)[1].clusters] == [c.tokens for c in mine(keys)[1].clusters]
    assert mine(keys)[1].clusters[0].keys[0] == key_of(REDIS[0])


def test_describe_reports_time_span_few_values_ranges_and_distinct_counts() -> None:
    rows = [f"10:0{i % 10}:1{i % 10} GET /api/item/{i} took {5 + i}ms cmd={'ping' if i % 4 else 'get'} user=u{i}"
            for i in range(40)]
    tokens = [WILDCARD, "GET", WILDCARD, "took", "#ms", WILDCARD, WILDCARD]
    text = describe(tokens, rows)
    assert text.startswith("10:00:10–10:09:19")
    assert "cmd=ping×30, cmd=get×10" in text
    assert "took 5–44ms" in text
    # "user=u<i>" sits at a position with no name: its distinct count could not be tied
    # to a place in the template, so it is left out.
    full = describe(tokens, rows, max_parts=10)
    assert full.endswith("GET: 40 distinct") and "values" not in full and full.count("distinct") == 1
    assert describe(["a", "b"], ["a b"]) == ""


def test_describe_counts_long_few_values_instead_of_listing_them() -> None:
    # pip -vv: four wheel URLs, each once; listing them would cost more than the lines.
    urls = [f"https://files.pythonhosted.org/packages/{h[:2]}/{h[2:4]}/{h * 3}/pkg{i}-1.0-py3-none-any.whl"
            for i, h in enumerate(["e044827b2a91", "d95ae7c31adb", "e53e741d8c82", "49df1fceb2f8"])]
    rows = [f"Added pkg{i}==1.0 from {u} to tracker" for i, u in enumerate(urls)]
    tokens = ["Added", WILDCARD, "from", WILDCARD, "to", "tracker"]
    text = describe(tokens, rows)
    assert "pkg0==1.0, pkg1==1.0" in text and "×" not in text  # short values listed; each once, so no counts
    assert "from: 4 distinct" in text and "pythonhosted" not in text
    assert len(text) < 120


def test_header_tokens_do_not_make_unlike_events_similar() -> None:
    # redis's header: "pid:role day Mon year time mark"; the month and the mark are on
    # nearly every line and say nothing about the event.
    lines = [f"2046:S 23 Nov 2026 17:28:{i:02d}.917 * {msg}" for i, msg in enumerate(
        ["Ready to accept connections", "Connecting to MASTER 127.0.0.1:55819", "Server initialized",
         "Reconnecting to MASTER 127.0.0.1:55819", "DB saved on disk", "Configuration loaded",
         "Removing the pid file.", "Running mode=standalone, port=59807.", "Loading RDB produced by version 7.0.15"])]
    keys = keys_of(lines)
    _counts, miner = mine(keys)
    ready, connecting, reconnecting = (miner.cluster_of(keys[i]) for i in (0, 1, 3))
    assert ready is not connecting
    assert connecting is not reconnecting  # Drain routes on the leading constant tokens
    plain = TemplateMiner()
    for k in keys:
        plain.add(k)
    assert plain.cluster_of(keys[0]) is plain.cluster_of(keys[1])  # what the header did


def _route_reference(children, tokens, depth, max_children):
    """The parse-tree route as first written (list path, _is_variable per token)."""
    from headroom.compressors.templates import WILDCARD, _is_variable

    path: list = [len(tokens)]
    for t in tokens:
        if len(path) > depth:
            break
        if _is_variable(t):
            continue
        node = (*path, t)
        if node not in children and children[tuple(path)] >= max_children:
            t = WILDCARD
        elif node not in children:
            children[tuple(path)] += 1
            children[node] = 0
        path.append(t)
    return tuple(path)


_route_token = st.sampled_from(["GET", "POST", "#", "<*>", "/a/b/c", '"x"', "ok", "fail", "x#", "(q)", "a", "b", "c"])


@settings(max_examples=200)
@given(st.lists(st.lists(_route_token, min_size=0, max_size=6), max_size=40), st.integers(1, 3))
def test_route_equals_the_first_written_route(keys, max_children) -> None:
    from collections import Counter

    from headroom.compressors import templates as T

    miner = T.TemplateMiner()
    reference: Counter = Counter()
    old = T._MAX_CHILDREN
    T._MAX_CHILDREN = max_children  # small, so full levels and the wildcard child occur
    try:
        for tokens in keys:
            assert miner._route(tokens) == _route_reference(reference, tokens, T._TREE_DEPTH, max_children)
    finally:
        T._MAX_CHILDREN = old
    assert miner._children == reference


def _wheel_link(digest: str, name: str = "attrs-21.4.0.tar.gz") -> str:
    """A pip -v "Found link" line: PyPI's content-addressed path (two two-character
    fan-out directories, then the rest of a hex digest)."""
    return (f"  Found link https://files.pythonhosted.org/packages/{digest[:2]}/{digest[2:4]}/{digest[4:]}/{name}"
            " (from https://pypi.org/simple/attrs/), version: 21.4.0")


def test_hash_fan_out_directories_do_not_split_a_template() -> None:
    # Digests whose fan-out directories happen to hold no digit ("fe/", "cd/ff/").
    digests = ["fe" + "f6" + "3dc91aadb0a6c29e80943ce8345664220762f0db34c047dd3722fd40a9b0",
               "cd" + "ff" + "9876543210abcdef0123456789abcdef0123456789abcdef0123456789ab",
               "a2" + "f6" + "97806e9f6fe4d2b6f04d947a9a4ac36b17d1f4bc48cbebfcd27d5c198d33",
               "23" + "be" + "d828354fa2dbdf216eaa7b7de0db692f12c234f7ef888cc14980ef40d1d2"]
    keys = {key_of(_wheel_link(d)) for d in digests}
    assert len(keys) == 1, keys
    assert keys_of([_wheel_link(d) for d in digests]) == [key_of(_wheel_link(d)) for d in digests]
    assert key_of("error: unable to open .git/objects/ab/cdef0123456789abcdef0123456789abcdef01") == \
        key_of("error: unable to open .git/objects/0c/def0123456789abcdef0123456789abcdef01")


def test_two_letter_words_outside_hash_paths_stay() -> None:
    # Only a segment directly before (a run of such segments and) a masked one folds.
    assert key_of("GET /de/products/7") != key_of("GET /fr/products/7")
    assert key_of("GET /api/be/items") != key_of("GET /api/ce/items")
    assert key_of("ab 12 done") != key_of("cd 12 done")


_hex = st.text("0123456789abcdef", min_size=40, max_size=64)


@settings(max_examples=200)
@given(_hex, _hex)
def test_content_addressed_paths_share_a_key(a: str, b: str) -> None:
    # Any two digests give one key (a digest of 13+ leading letters aside: 1 in 10^5).
    if any(len(x) - len(x.lstrip("abcdef")) > 12 for x in (a[4:], b[4:])):
        return
    assert key_of(_wheel_link(a)) == key_of(_wheel_link(b))
    assert keys_of([_wheel_link(a), _wheel_link(b)]) == [key_of(_wheel_link(a)), key_of(_wheel_link(b))]


_READABLE_HEX_FOLD = r"(?<![0-9A-Za-z])[a-fA-F]{1,12}#|(?<=/)[a-fA-F]{2}(?=/(?:[a-fA-F]{2}/)*[a-fA-F]{0,12}#)"


@settings(max_examples=300)
@given(st.text(st.sampled_from("ab/#fe9Z-x ."), max_size=40))
def test_hex_fold_equals_its_readable_form(text: str) -> None:
    import re

    from headroom.compressors.templates import _HEX_PREFIX

    assert _HEX_PREFIX.sub("#", text) == re.sub(_READABLE_HEX_FOLD, "#", text)


def test_display_reads_a_run_of_wildcards_as_one() -> None:
    from headroom.compressors.templates import display

    # A line header (date, time, pid, level) masked field by field.
    assert display(["#", "#", "#", "[#]", "LOG:", "duration:", "#", "ms"]) == "<*> [<*>] LOG: duration: <*> ms"
    assert display(["id=#", "#", "cmd=#"]) == "id=<*> <*> cmd=<*>"  # named positions stay apart
    assert display([]) == ""


def test_keys_of_parameters_only_share_one_cluster_and_events_stay_apart() -> None:
    """strace: when the header tokens (pid, time, and the call and flags most lines
    share) are masked, an open of another path is the same kind of line, not a one-off
    each; a call with words of its own stays an event of its own."""
    miner = TemplateMiner(header=frozenset({(2, "openat(AT_FDCWD,"), (4, "O_RDONLY|O_CLOEXEC)"), (5, "=")}))
    opens = [f'# # openat(AT_FDCWD, "/usr/lib/python3/mod{k}.py", O_RDONLY|O_CLOEXEC) = #' for k in "abcdef"]
    clusters = {miner.add(k).id for k in opens}
    assert len(clusters) == 1 and miner.clusters[0].count == len(opens)
    sock = miner.add("# # socket(AF_INET, SOCK_STREAM|SOCK_CLOEXEC, IPPROTO_IP) = #")
    assert sock.id not in clusters and sock.count == 1


def test_strace_one_offs_and_errors_in_view() -> None:
    """The real strace capture (dev): every one-off call and failed call stays in view."""
    import headroom
    from headroom import HeadroomConfig, Pipeline
    from headroom.ccr.store import CompressionStore
    from headroom.eval.corpus import load_cases
    from headroom.transforms.router import CompressionMemo
    from tests.eval.bench_scripts import load_bench

    bench = load_bench("real_corpus_bench")
    for c in [c for c in load_cases(sources=["strace_trace"]) if c.form == "text"]:
        pipeline = Pipeline(HeadroomConfig(), store=CompressionStore(max_entries=100))
        pipeline.memo = CompressionMemo(read_store=False)
        view = bench.tool_texts(headroom.compress(bench.case_messages(c), model="gpt-4o", pipeline=pipeline).messages)
        assert [f.text for f in c.facts if f.text not in view] == [], c.id
        assert len(view) < 0.25 * len(c.content), c.id
