"""A sharded key-value cluster's topology as redis 7.0 reports it: ``CLUSTER NODES`` (one line a
node: id, ``ip:port@bus,hostname``, flags, master, ping and pong times, epoch, link state, then
the node's slot ranges; ~24 lines, ~5.5 kB) and ``redis-cli --no-raw CLUSTER SHARDS`` (per shard
its slot ranges as pairs of integers, then each node's id, port, ip, endpoint, hostname, role,
replication offset and health, nested and indented level by level; ~990 lines, ~25 kB), of
a throwaway loopback cluster the capture starts and wires itself: 24 masters, each announcing a
hostname of its own, the 16384 hash slots cut into ~290 ranges of random sizes and handed out
at random (``CLUSTER ADDSLOTSRANGE``), then introduced to each other (``CLUSTER MEET``).

In the middle of the hand-out, one master is given no slots, and one master is shut down once
the cluster has formed, so the others flag it ``fail``. Facts come from the capture's own record
of which ranges it gave which node and which node it stopped, with ``CLUSTER MYID`` asked of each
node for the ids (another reader of the same state), never from the cluster's replies; a fact is
kept only where it stands once (a node's id and hostname stand once in each reply; a slot number
may stand in another range's bounds, so ranges are only asked about, never answered). Held out
(issue 33, twenty-first round): dev holds a single server's replies (INFO, CLIENT LIST, SLOWLOG,
ACL, streams), but no cluster's topology.
"""

from __future__ import annotations

import random
import subprocess
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ._asked import Ask, Output, asked_cases
from ._run import free_port, run, wait_for

SOURCE = "redis_cluster"
HOSTS = tuple(f"kv-{w}" for w in (
    "amber", "birch", "cedar", "delta", "ember", "fjord", "gale", "harbor", "iris", "juniper", "kestrel", "lumen",
    "maple", "nectar", "onyx", "pine", "quartz", "raven", "sable", "tundra", "umber", "vale", "willow", "yarrow"))
SLOTS = 16384


@dataclass
class Layout:
    """The capture's record: each host's slot ranges (inclusive), the empty master, the stopped one."""

    ranges: dict[str, list[tuple[int, int]]] = field(default_factory=dict)
    empty: str = ""
    stopped: str = ""


def plan(rnd: random.Random, n_ranges: int = 290) -> Layout:
    cuts = sorted(rnd.sample(range(1, SLOTS), n_ranges - 1))
    bounds = list(zip([0, *cuts], [c - 1 for c in cuts] + [SLOTS - 1], strict=True))
    middle = list(HOSTS[8:16])
    rnd.shuffle(middle)
    lay = Layout(empty=middle[0], stopped=middle[1])
    holders = [h for h in HOSTS if h != lay.empty]
    lay.ranges = {h: [] for h in HOSTS}
    for i, r in enumerate(bounds):
        # every holder gets at least one range, the rest go at random
        lay.ranges[holders[i] if i < len(holders) else rnd.choice(holders)].append(r)
    return lay


def _cli(port: int, *args: str, **kw) -> subprocess.CompletedProcess:
    return run(["redis-cli", "-p", str(port), *args], **kw)


def build(work: Path) -> list[dict[str, Any]]:
    rnd = random.Random(2104)
    lay = plan(rnd)
    ports = {h: free_port() for h in HOSTS}
    # a bus port of its own, not port + 10000 (which may be past 65535 or taken)
    buses = {h: free_port() for h in HOSTS}
    procs = {}
    try:
        for h in HOSTS:
            d = work / h
            d.mkdir()
            procs[h] = subprocess.Popen(
                ["redis-server", "--port", str(ports[h]), "--cluster-port", str(buses[h]), "--bind", "127.0.0.1",
                 "--cluster-enabled", "yes", "--cluster-config-file", str(d / "nodes.conf"),
                 "--cluster-node-timeout", "1000", "--cluster-require-full-coverage", "no",
                 "--cluster-announce-hostname", h, "--save", "", "--appendonly", "no", "--dir", str(d)],
                stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        for h in HOSTS:
            wait_for(lambda h=h: _cli(ports[h], "PING", check=False).stdout.strip() == "PONG")
        ids = {h: _cli(ports[h], "CLUSTER", "MYID").stdout.strip() for h in HOSTS}
        for h, rs in lay.ranges.items():
            if rs:
                _cli(ports[h], "CLUSTER", "ADDSLOTSRANGE", *(str(x) for r in rs for x in r))
        first = HOSTS[0]
        for h in HOSTS[1:]:
            _cli(ports[first], "CLUSTER", "MEET", "127.0.0.1", str(ports[h]), str(buses[h]))
        # formed: the first node knows every other and every slot is served
        wait_for(lambda: _cli(ports[first], "CLUSTER", "INFO").stdout.count("cluster_slots_assigned:16384") == 1
                 and f"cluster_known_nodes:{len(HOSTS)}" in _cli(ports[first], "CLUSTER", "INFO").stdout,
                 timeout=60)
        _cli(ports[lay.stopped], "SHUTDOWN", "NOSAVE", check=False)
        procs.pop(lay.stopped).wait(timeout=20)
        # the others agree it failed (a majority of masters must report it)
        wait_for(lambda: ",fail " in _cli(ports[first], "CLUSTER", "NODES").stdout, timeout=60)
        time.sleep(1.0)
        outputs = {
            "nodes": Output({"command": f"redis-cli -p {ports[first]} CLUSTER NODES"}, "text",
                            _cli(ports[first], "CLUSTER", "NODES").stdout),
            "shards": Output({"command": f"redis-cli -p {ports[first]} --no-raw CLUSTER SHARDS"}, "text",
                             _cli(ports[first], "--no-raw", "CLUSTER", "SHARDS").stdout),
        }
    finally:
        for h, p in procs.items():
            _cli(ports[h], "SHUTDOWN", "NOSAVE", check=False)
            p.wait(timeout=20)
    cases = asked_cases(SOURCE, outputs, _asks(lay, ids, rnd))
    assert len(cases) >= 12, f"too few {SOURCE} cases: {len(cases)}"
    return cases


def _asks(lay: Layout, ids: dict[str, str], rnd: random.Random) -> list[Ask]:
    note = "the capture's record of the slot ranges it gave each node"
    asks = []
    owner = sorted((r, h) for h, rs in lay.ranges.items() for r in rs)
    middle = owner[len(owner) // 4: 3 * len(owner) // 4]
    for (lo, hi), h in rnd.sample([m for m in middle if m[0][0] < m[0][1]], 6):
        asks.append(Ask(f"slots_{lo}", "named", "named_item", (h,), note,
                        (f"Which host serves hash slots {lo} to {hi}?", f"Who owns slot range {lo}-{hi}?")))
    id_note = "CLUSTER MYID asked of each node"
    for h in rnd.sample([h for h in HOSTS[6:18] if h not in (lay.empty, lay.stopped)], 4):
        asks.append(Ask(f"id_{h}", "named", "named_item", (ids[h],), id_note,
                        (f"What is the node id of {h}?", f"Which cluster node id does {h} have?")))
    stop = "the capture's record of the node it shut down"
    asks += [
        Ask("failed_host", "named", "extreme", (lay.stopped,), stop,
            ("Which node is marked as failed?", "What host has the fail flag?")),
        Ask("failed_id", "named", "extreme", (ids[lay.stopped],), f"{stop}; CLUSTER MYID for its id",
            ("What is the id of the node that failed?", "Node id of the master that went down?")),
        Ask("empty", "named", "extreme", (lay.empty,), "the capture's record of the slots it handed out",
            ("Which master holds no slots?", "What node has no hash slots assigned?")),
    ]
    return asks
