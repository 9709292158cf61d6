"""Network interfaces, addresses and routes as iproute2 prints them: ``ip -s -s link``,
``ip addr``, ``ip route show table all`` and their JSON forms (``ip -j -s link``, ``ip -j
addr``, ``ip -j route show table all``), inside a fresh network namespace (``unshare --net
--mount``) the capture fills: veth pairs to a peer namespace (``ip netns``) that carried
different amounts of UDP traffic, a veth with several addresses and a jumbo MTU whose peer is
down, a macvlan, a bridge with a port, an ifb device left down, static routes through different
gateways, blackhole/unreachable/prohibit routes and a second routing table. IPv6 is off so
no neighbour discovery moves the counters after they are read.

Facts come from other readings of the kernel's state, taken in the namespace right after
the outputs: psutil (``getifaddrs`` for addresses and MACs, ``/proc/net/dev`` for byte
counters, ``SIOCGIFMTU`` for MTUs) and ``/proc/net/route`` for gateways; never from ip's
output. A fact is kept only where its text occurs once in the output. Held out (issue 33,
third round): no dev source holds interface, address or route listings.
"""

from __future__ import annotations

import json
import socket
import struct
import sys
from pathlib import Path
from typing import Any

from ..cases import fact, make_case
from ..facts import spread
from ..questions import choose
from ._run import run

SOURCE = "ip_links"

DRIVER = r'''
import json, os, socket, subprocess, sys, time
import psutil

def ip(*args, check=True):
    return subprocess.run(["ip", *args], check=check, capture_output=True, text=True)

for key in ("all", "default"):
    with open(f"/proc/sys/net/ipv6/conf/{key}/disable_ipv6", "w") as fh:
        fh.write("1")
ip("link", "set", "lo", "up")
# The peer namespace's name lives on a tmpfs of this mount namespace, never the host's /run/netns.
os.makedirs("/run/netns", exist_ok=True)
subprocess.run(["mount", "-t", "tmpfs", "tmpfs", "/run/netns"], check=True)
ip("netns", "add", "peer")
ip("netns", "exec", "peer", "ip", "link", "set", "lo", "up")
pairs = [("veth-app", "10.20.30.1", "10.20.30.2", 24), ("veth-db", "10.20.40.1", "10.20.40.2", 24),
         ("veth-cache", "10.20.50.1", "10.20.50.2", 28), ("veth-backup", "192.168.77.1", "192.168.77.2", 30)]
for name, mine, theirs, plen in pairs:
    ip("link", "add", name, "type", "veth", "peer", "name", name + "-p")
    ip("link", "set", name + "-p", "netns", "peer")
    ip("addr", "add", f"{mine}/{plen}", "dev", name)
    ip("link", "set", name, "up")
    ip("netns", "exec", "peer", "ip", "addr", "add", f"{theirs}/{plen}", "dev", name + "-p")
    ip("netns", "exec", "peer", "ip", "link", "set", name + "-p", "up")
ip("link", "set", "veth-db", "mtu", "4000")
# (This kernel offers veth, bridge, macvlan and ifb devices, no dummy or VLAN links.)
ip("link", "add", "jumbo0", "type", "veth", "peer", "name", "jumbo0-p")  # its peer stays down: NO-CARRIER
ip("link", "set", "jumbo0", "mtu", "9000", "up")
for a in ("172.31.5.10/16", "172.31.200.7/16", "100.64.12.1/10"):
    ip("addr", "add", a, "dev", "jumbo0")
ip("link", "add", "link", "veth-db", "name", "mv-edge", "type", "macvlan", "mode", "bridge")
ip("addr", "add", "10.42.0.5/22", "dev", "mv-edge")
ip("link", "set", "mv-edge", "up")
ip("link", "add", "br-lab", "type", "bridge")
ip("link", "add", "lab-a", "type", "veth", "peer", "name", "lab-b")
ip("link", "set", "lab-a", "master", "br-lab")
ip("link", "set", "lab-a", "up")
ip("addr", "add", "10.99.0.1/24", "dev", "br-lab")
ip("link", "set", "br-lab", "up")
ip("link", "add", "spare0", "type", "ifb")
ip("addr", "add", "198.18.4.4/24", "dev", "spare0")
routes = [("172.16.0.0/12", "10.20.30.254", "veth-app"), ("10.128.0.0/9", "10.20.40.9", "veth-db"),
          ("203.0.113.0/24", "10.20.50.14", "veth-cache"), ("default", "10.20.30.2", "veth-app")]
for dst, via, dev in routes:
    ip("route", "add", dst, "via", via, "dev", dev, "onlink")
ip("route", "add", "192.0.2.0/24", "via", "192.168.77.2", "dev", "veth-backup", "metric", "300")
ip("route", "add", "blackhole", "198.51.100.0/24")
ip("route", "add", "unreachable", "100.100.0.0/16")
ip("route", "add", "prohibit", "10.66.6.0/24")
ip("route", "add", "10.250.0.0/16", "via", "10.20.40.77", "dev", "veth-db", "onlink", "table", "100")
ip("rule", "add", "from", "10.20.40.0/24", "lookup", "100")
# Traffic of different sizes to each peer (the peer answers with port unreachables).
for (name, mine, theirs, plen), count, size in zip(pairs, (900, 2500, 300, 60), (1000, 1400, 200, 600)):
    s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    s.bind((mine, 0))
    for _ in range(count):
        s.sendto(b"x" * size, (theirs, 9))
    s.close()
time.sleep(1.0)

def out(*args):
    return subprocess.run(["ip", *args], capture_output=True, text=True, check=True).stdout

outputs = {"link": out("-s", "-s", "link"), "addr": out("addr"), "route": out("route", "show", "table", "all"),
           "link_json": out("-j", "-s", "link"), "addr_json": out("-j", "addr"),
           "route_json": out("-j", "route", "show", "table", "all")}
counters = {n: {"rx": c.bytes_recv, "tx": c.bytes_sent} for n, c in psutil.net_io_counters(pernic=True).items()}
addrs = {n: [{"family": int(a.family), "address": a.address, "netmask": a.netmask} for a in v]
         for n, v in psutil.net_if_addrs().items()}
mtus = {n: s.mtu for n, s in psutil.net_if_stats().items()}
with open("/proc/net/route") as fh:
    proc_route = fh.read()
again = {n: {"rx": c.bytes_recv, "tx": c.bytes_sent} for n, c in psutil.net_io_counters(pernic=True).items()}
ip("netns", "del", "peer", check=False)
with open(sys.argv[1], "w") as fh:
    json.dump({"outputs": outputs, "counters": counters, "stable": counters == again, "addrs": addrs,
               "mtus": mtus, "proc_route": proc_route}, fh)
'''
COMMANDS = {"link": "ip -s -s link", "addr": "ip addr", "route": "ip route show table all",
            "link_json": "ip -j -s link", "addr_json": "ip -j addr", "route_json": "ip -j route show table all"}


def _hex_ip(h: str) -> str:
    return socket.inet_ntoa(struct.pack("<I", int(h, 16)))


def gateways(proc_route: str) -> dict[str, str]:
    """``destination/prefix`` -> gateway of each main-table route through a gateway, from
    ``/proc/net/route`` (little-endian hex addresses and masks)."""
    out = {}
    for line in proc_route.splitlines()[1:]:
        f = line.split()
        if len(f) < 8 or f[2] == "00000000":
            continue
        prefix = int(f[7], 16).bit_count()
        dst = _hex_ip(f[1])
        out["default" if prefix == 0 else f"{dst}/{prefix}"] = _hex_ip(f[2])
    return out


def _asked(doc: dict[str, Any]) -> list[tuple[str, set[str], str, tuple[str, ...], str, str, str]]:
    """(scenario, outputs it applies to, intent, wordings, fact text, kind, note)."""
    asked = []
    with_mac = [n for n, entries in sorted(doc["addrs"].items()) if n.startswith(("veth-", "jumbo0", "spare", "mv-"))
                and any(a["family"] == 17 and a["address"] != "00:00:00:00:00:00" for a in entries)]
    for name, entries in sorted(doc["addrs"].items()):
        mac = [a["address"] for a in entries if a["family"] == 17]  # AF_PACKET
        if name in spread(with_mac, 3):
            asked.append((f"mac_{name}", {"link", "addr", "link_json", "addr_json"}, "named",
                          (f"What is the hardware (MAC) address of {name}?", f"Which link-layer address does {name} have?"),
                          mac[0], "named_item", "psutil net_if_addrs: AF_PACKET address"))
        v4 = [a for a in entries if a["family"] == 2]
        if len(v4) >= 2:
            for a in v4[1:]:
                asked.append((f"addr_{name}_{a['address']}", {"addr", "addr_json"}, "named",
                              (f"Besides its first address, which IPv4 addresses does {name} carry?",
                               f"List the secondary IPv4 addresses on {name}."),
                              a["address"], "named_item", "psutil net_if_addrs: AF_INET addresses after the first"))
    for name, mtu in sorted(doc["mtus"].items()):
        if mtu not in (1500, 65536, 0) and name.startswith(("veth-", "jumbo0")):
            asked.append((f"mtu_{name}", {"link", "addr"}, "named",
                          (f"What MTU is configured on {name}?", f"How large a frame does {name} allow (its MTU)?"),
                          f"mtu {mtu}", "named_item", "psutil net_if_stats: mtu"))
    if doc["stable"]:
        for key, verb in (("rx", "received"), ("tx", "sent")):
            ranked = sorted(((c[key], n) for n, c in doc["counters"].items() if n != "lo"), reverse=True)
            if len(ranked) > 1 and ranked[0][0] > ranked[1][0]:
                asked.append((f"most_{key}", {"link", "link_json"}, "extreme",
                              (f"Which interface has {verb} the most bytes, and how many?",
                               f"Which link {verb} the most data so far (in bytes)?"),
                              str(ranked[0][0]), "extreme", (f"/proc/net/dev via psutil: largest bytes {verb} "
                                                             f"({ranked[0][1]}), read twice, unchanged")))
    for dst, via in sorted(gateways(doc["proc_route"]).items()):
        if dst == "default":
            continue
        asked.append((f"gateway_{dst}", {"route", "route_json"}, "named",
                      (f"Which next hop does traffic to {dst} go through?", f"What is the gateway for {dst}?"),
                      via, "named_item", "/proc/net/route: gateway of the main-table route"))
    return asked


def build(work: Path) -> list[dict[str, Any]]:
    (work / "driver.py").write_text(DRIVER)
    run(["unshare", "--net", "--mount", sys.executable, str(work / "driver.py"), str(work / "out.json")], timeout=120)
    doc = json.loads((work / "out.json").read_text())
    out = []
    for output, command in COMMANDS.items():
        content = doc["outputs"][output]
        form = "json" if output.endswith("_json") else "text"
        for sid, where, intent, wordings, text, kind, note in _asked(doc):
            if output not in where or content.count(text) != 1:
                continue
            scen = f"{output}_{sid}"
            out.append(make_case(SOURCE, scen, form, "bash", {"command": command}, intent,
                                 choose(f"{SOURCE}/{scen}", wordings), content,
                                 [fact(text, kind, note, basis="independent")]))
    assert len(out) >= 10, f"too few ip_links cases: {len(out)}"
    return out
