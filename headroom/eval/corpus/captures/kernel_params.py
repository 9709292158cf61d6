"""Kernel parameters as procps ``sysctl`` dumps them: ``sysctl -a`` (every ``key = value`` the
kernel exposes, ~2,000 lines with per-interface ``net.ipv4.conf.*``, ``net.ipv6.conf.*``
and ``neigh.*`` blocks) and ``sysctl net.ipv4`` (that subtree alone), in a fresh network
namespace (``unshare --net``) where the capture made eight veth interfaces and tuned it.

The capture sets, by writing ``/proc/sys`` files: TCP keep-alive and FIN timeouts, the
listen backlog, the default TTL, the local port range, the TCP receive buffer sizes, IPv4
forwarding on one interface only, loose reverse-path filtering on another, a neighbour
stale time on a third, and a jumbo MTU on a fourth (``ip link``). Facts come from the
kernel's ``/proc/sys`` files read back by the capture (another reader than ``sysctl``),
checked against its record of what it set, and from ``uname`` for the release, never from
``sysctl``'s text: the answer is a value, or the full key of the one interface's setting
that differs. Held out (issue 33, eighth round): no dev source holds kernel parameter
dumps.
"""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path
from typing import Any

from ._asked import Ask, Output, asked_cases
from ._run import run

SOURCE = "kernel_params"
PAIRS = (("lan0", "lan0-peer"), ("lan1", "lan1-peer"), ("wan0", "wan0-peer"), ("stor0", "stor0-peer"))
SETTINGS = {  # /proc/sys path (dots as sysctl writes it): value written
    "net.ipv4.tcp_keepalive_time": "1313",
    "net.ipv4.tcp_fin_timeout": "47",
    "net.core.somaxconn": "3071",
    "net.ipv4.ip_default_ttl": "113",
    "net.ipv4.ip_local_port_range": "20000\t29999",
    "net.ipv4.tcp_rmem": "4096\t87380\t7340032",
    "net.ipv4.conf.wan0.forwarding": "1",
    "net.ipv4.conf.lan1.rp_filter": "2",
    "net.ipv4.neigh.stor0.gc_stale_time": "4111",
}
JUMBO = ("lan0-peer", 7168)
DRIVER = r'''
import json, os, subprocess, sys
settings, pairs, jumbo = json.loads(sys.argv[1])
def sh(*cmd):
    subprocess.run(cmd, check=True, capture_output=True)
sh("ip", "link", "set", "lo", "up")
for a, b in pairs:
    sh("ip", "link", "add", a, "type", "veth", "peer", "name", b)
    sh("ip", "link", "set", a, "up"); sh("ip", "link", "set", b, "up")
sh("ip", "link", "set", jumbo[0], "mtu", str(jumbo[1]))
for key, value in settings.items():
    with open("/proc/sys/" + key.replace(".", "/"), "w") as f:
        f.write(value)
state = {}
for top, _, names in os.walk("/proc/sys/net"):
    for name in names:
        path = os.path.join(top, name)
        try:
            with open(path) as f:
                state[path[len("/proc/sys/"):].replace("/", ".")] = f.read().strip()
        except OSError:
            pass  # write-only or refused entries, which sysctl skips too
env = {"PATH": "/usr/sbin:/usr/bin:/sbin:/bin", "LC_ALL": "C"}
outputs = {name: subprocess.run(cmd, env=env, capture_output=True, text=True).stdout
           for name, cmd in (("sysctl_a", ["sysctl", "-a"]), ("sysctl_net_ipv4", ["sysctl", "net.ipv4"]))}
print(json.dumps({"state": state, "outputs": outputs}))
'''


def only_key(state: dict[str, str], pattern: tuple[str, str], value: str) -> str:
    """The one per-interface key ``prefix.<iface>.suffix`` (interfaces, not all/default) with ``value``."""
    prefix, suffix = pattern
    hits = [k for k, v in state.items() if k.startswith(prefix) and k.endswith(suffix)
            and k.split(".")[-2] not in ("all", "default") and v == value]
    assert len(hits) == 1, hits
    return hits[0]


def largest_mtu(state: dict[str, str]) -> str:
    """The IPv6 MTU key of the interface (loopback aside) with the largest MTU."""
    mtus = {k: int(v) for k, v in state.items() if k.startswith("net.ipv6.conf.") and k.endswith(".mtu")
            and k != "net.ipv6.conf.lo.mtu"}
    first, second = sorted(mtus, key=mtus.get, reverse=True)[:2]
    assert mtus[first] > mtus[second], mtus
    return first


def _asks(state: dict[str, str]) -> list[Ask]:
    def value(key: str, part: int = 0) -> tuple[str, ...]:
        return (state[key].split()[part],)

    named = [("keepalive", value("net.ipv4.tcp_keepalive_time"),
              ("How long before TCP sends keep-alive probes?", "What's the TCP keepalive time set to?")),
             ("fin_timeout", value("net.ipv4.tcp_fin_timeout"),
              ("What's the FIN timeout for TCP?", "How long do orphaned connections stay in FIN-WAIT-2?")),
             ("default_ttl", value("net.ipv4.ip_default_ttl"),
              ("What TTL do outgoing IPv4 packets get by default?", "What's the default IP TTL here?")),
             ("port_range_top", value("net.ipv4.ip_local_port_range", 1),
              ("What's the highest local port for outgoing connections?", "Where does the ephemeral port range end?")),
             ("rmem_max", value("net.ipv4.tcp_rmem", 2),
              ("What's the maximum TCP receive buffer?", "How large may a TCP receive buffer grow?")),
             ("stale_time", value("net.ipv4.neigh.stor0.gc_stale_time"),
              ("What's the neighbour stale time on the storage interface stor0?",
               "How long before stor0's neighbour entries go stale?"))]
    asks = [Ask(name, "named", "named_item", answers, "/proc/sys read back, as the capture set it", wordings)
            for name, answers, wordings in named]
    asks += [
        Ask("somaxconn", "named", "named_item", value("net.core.somaxconn"), "/proc/sys/net/core/somaxconn",
            ("What's the maximum listen backlog?", "What is somaxconn set to?"), ("sysctl_a",)),
        Ask("forwarding", "named", "named_item", (only_key(state, ("net.ipv4.conf.", ".forwarding"), "1"),),
            "/proc/sys: the one interface with forwarding 1",
            ("Which interface has IPv4 forwarding switched on?", "Is forwarding enabled anywhere? On which interface?")),
        Ask("loose_rp_filter", "named", "named_item", (only_key(state, ("net.ipv4.conf.", ".rp_filter"), "2"),),
            "/proc/sys: the one interface with rp_filter 2",
            ("Which interface does loose reverse-path filtering?", "Where is rp_filter set to loose mode?")),
        Ask("jumbo_mtu", "extreme", "extreme", (largest_mtu(state),), "/proc/sys/net/ipv6/conf/*/mtu, the largest",
            ("Apart from loopback, which interface has the largest MTU?", "Is any interface set up for jumbo frames?"),
            ("sysctl_a",)),
        Ask("release", "named", "named_item", (os.uname().release,), "os.uname().release",
            ("Which kernel release is this?", "What kernel version is the machine running?"), ("sysctl_a",)),
    ]
    return asks


def build(work: Path) -> list[dict[str, Any]]:
    (work / "driver.py").write_text(DRIVER)
    arg = json.dumps([SETTINGS, PAIRS, JUMBO])
    got = json.loads(run(["unshare", "--net", sys.executable, "-S", str(work / "driver.py"), arg], timeout=120).stdout)
    state = got["state"]
    for key, value in SETTINGS.items():  # the reader and the record agree
        assert state[key].split() == value.split(), (key, state[key])
    outputs = {name: Output({"command": name.replace("_net_ipv4", " net.ipv4").replace("_a", " -a")}, "text", text)
               for name, text in got["outputs"].items()}
    out = asked_cases(SOURCE, outputs, _asks(state))
    assert len(out) >= 12, f"too few {SOURCE} cases: {len(out)}"
    return out
