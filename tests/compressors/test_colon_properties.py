"""``key:value`` dumps (``redis-cli INFO``) read as properties (issue 34 speed, issue 33 shape).

Read as plain text, redis INFO went through section planning (a detection per section) and
the prose extractor: 13 ms where the output's token count takes 0.8. As properties its
lines are selected by key, in a third of that; the extremes of its ``key=value`` numbers
(``cmdstat_zadd:calls=161,usec=167447``) and a numbered thing cut short ("database 5" is
``db5``) stay in view as before.
"""

from __future__ import annotations

import random

import pytest

from headroom.compressors.structured import detect_format, sample_lines

from .tool_rounds import tool_round


def _info(rng: random.Random, busiest: str, slowest: str) -> str:
    out = ["# Server", "redis_version:7.0.15", "redis_mode:standalone", "os:Linux 6.1.0 x86_64", "arch_bits:64",
           f"process_id:{rng.randrange(1000, 60000)}", "tcp_port:6379", f"uptime_in_seconds:{rng.randrange(10, 9999)}",
           "hz:10", "executable:/usr/bin/redis-server", "config_file:", "", "# Memory"]
    out += [f"used_memory_{k}:{rng.randrange(1000, 10**8)}" for k in ("rss", "peak", "overhead", "startup", "dataset",
                                                                     "lua", "scripts", "functions")]
    out += ["", "# Stats"] + [f"total_{k}:{rng.randrange(0, 10**6)}" for k in ("connections_received",
                                                                             "commands_processed", "net_input_bytes",
                                                                             "net_output_bytes", "error_replies")]
    out += ["", "# Commandstats"]
    for cmd in ("get", "set", "del", "zadd", "zrange", "hset", "hget", "lpush", "rpop", "expire", "incr", "info"):
        calls = 5000 if cmd == busiest else rng.randrange(10, 900)
        usec = 900_000 if cmd == slowest else rng.randrange(100, 90_000)
        out.append(f"cmdstat_{cmd}:calls={calls},usec={usec},usec_per_call={usec / calls:.2f},rejected_calls=0,"
                   f"failed_calls=0")
    out += ["", "# Keyspace"] + [f"db{k}:keys={rng.randrange(10, 900)},expires={rng.randrange(0, 90)},avg_ttl=0"
                                 for k in (0, 2, 5, 9)]
    return "\n".join(out) + "\n"


def test_colon_dumps_read_as_properties_and_logs_and_yaml_do_not():
    text = _info(random.Random(0), "get", "zadd")
    assert detect_format(text, sample_lines(text)) == "properties"
    log = "\n".join(f"INFO:root:request {k} served in {k * 3} ms" for k in range(30))
    assert detect_format(log, sample_lines(log)) != "properties"
    yaml = "\n".join(f"key{k}: value {k}" for k in range(30))
    assert detect_format(yaml, sample_lines(yaml)) == "yaml"


@pytest.mark.parametrize("seed", range(3))
def test_extremes_and_a_numbered_thing_cut_short_stay(seed):
    rng = random.Random(seed)
    busiest, slowest = rng.sample(["set", "del", "hset", "hget", "lpush", "rpop", "incr"], 2)
    text = _info(rng, busiest, slowest)
    got = tool_round("redis-cli INFO", text, "Where did the server spend most of its command time?")
    assert f"cmdstat_{slowest}:" in got
    got = tool_round("redis-cli INFO", text, "Which command was called the most times?")
    assert f"cmdstat_{busiest}:" in got
    got = tool_round("redis-cli INFO", text, "How many keys does logical database 5 hold?")
    assert "\ndb5:keys=" in got
