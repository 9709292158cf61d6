"""A network stack's protocol counters: net-tools' ``netstat -s`` (counters as sentences under
``Ip:``, ``Icmp:``, ``Tcp:``, ``Udp:``, ``TcpExt:`` … headings), and iproute2's ``nstat -asz``
(one ``Name value rate`` row per counter, zeros included) and ``nstat -asz --json``, in a
fresh network namespace (``unshare --net``) after traffic the capture makes there.

A veth pair joins the namespace to a second one, the other host, which runs a client: 61
HTTP requests the server here reads, 13 uploads it closes unread (reset), 307 metric
datagrams it reads and 173 to a port nobody listens on (most of the ICMP answers rate
limited); then this host opens 17 connections to the other's database port and tries 23
times a port closed there (refused). Facts come from the kernel's
``/proc/net/snmp`` and ``/proc/net/netstat`` read in the namespace by the capture (another
reader than the tools; read again after them, unchanged), never from the tools' text: the
answer is a counter's value. Held out (issue 33, eighth round): no dev source holds protocol
counters.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

from ._asked import Ask, Output, asked_cases
from ._run import run

SOURCE = "net_counters"
DRIVER = r'''
import json, os, socket, subprocess, sys, time
here = sys.argv[1]
def sh(*cmd, ns=None):
    pre = ["nsenter", f"--net=/proc/{ns}/ns/net"] if ns else []
    return subprocess.run(pre + list(cmd), check=True, capture_output=True, text=True).stdout
peer = subprocess.Popen(["unshare", "--net", "sleep", "300"])  # the other host's namespace
time.sleep(0.3)
sh("ip", "link", "set", "lo", "up")
sh("ip", "link", "add", "edge0", "type", "veth", "peer", "name", "uplink0")
sh("ip", "link", "set", "uplink0", "netns", str(peer.pid))
sh("ip", "addr", "add", "10.77.0.1/24", "dev", "edge0"); sh("ip", "link", "set", "edge0", "up")
for cmd in (["ip", "link", "set", "lo", "up"], ["ip", "addr", "add", "10.77.0.2/24", "dev", "uplink0"],
            ["ip", "link", "set", "uplink0", "up"]):
    sh(*cmd, ns=peer.pid)
time.sleep(1.0)
web = socket.socket(); web.bind(("10.77.0.1", 8080)); web.listen(128)
metrics = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
metrics.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 1 << 20); metrics.bind(("10.77.0.1", 8125))
remote = subprocess.Popen(["nsenter", f"--net=/proc/{peer.pid}/ns/net", sys.executable, "-S", "-c",
                           "import socket, time; s = socket.socket(); s.bind(('10.77.0.2', 5432)); s.listen(64);"
                           " print(flush=True); time.sleep(60)"], stdout=subprocess.PIPE)
remote.stdout.readline()
sh(sys.executable, "-S", f"{here}/client.py", ns=peer.pid)  # the other host talks to this one
for n in range(61 + 13):
    a, _ = web.accept()
    if n < 61:
        a.recv(4096)
    a.close()  # the last 13 unread: reset
for _ in range(307):
    metrics.recv(2048)
for _ in range(17):  # this host's own connections out, to the other host's database port
    socket.create_connection(("10.77.0.2", 5432), timeout=5).close()
for _ in range(23):  # and to a port closed there
    try:
        socket.create_connection(("10.77.0.2", 6379), timeout=5)
    except ConnectionRefusedError:
        pass
time.sleep(1.0)
def counters():
    out = {}
    for name in ("/proc/net/snmp", "/proc/net/netstat"):
        lines = open(name).read().splitlines()
        for head, values in zip(lines[::2], lines[1::2]):
            group, keys = head.split(":", 1)
            for k, v in zip(keys.split(), values.split(":", 1)[1].split()):
                out[group + k] = int(v)
    return out
before = counters()
env = {"PATH": "/usr/sbin:/usr/bin:/sbin:/bin", "LC_ALL": "C", "NSTAT_HISTORY": here + "/nstat.hist"}
outputs = {name: subprocess.run(cmd, env=env, capture_output=True, text=True, check=True).stdout
           for name, cmd in (("netstat_s", ["netstat", "-s"]), ("nstat", ["nstat", "-asz"]),
                             ("nstat_json", ["nstat", "-asz", "--json"]))}
print(json.dumps({"before": before, "after": counters(), "outputs": outputs}))
remote.kill(); peer.kill()
'''
CLIENT = r'''
import socket, time
for n in range(61):  # requests the server reads
    c = socket.create_connection(("10.77.0.1", 8080)); c.sendall(b"GET /item/%d HTTP/1.0\r\n\r\n" % n); c.close()
for _ in range(13):  # uploads the server closes unread
    c = socket.create_connection(("10.77.0.1", 8080)); c.sendall(b"POST /upload\r\n" * 40); c.close()
u = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
for n in range(307):
    u.sendto(b"orders.latency:%d|ms" % n, ("10.77.0.1", 8125))
for n in range(173):  # to a port nobody listens on
    u.sendto(b"legacy.metric:%d|c" % n, ("10.77.0.1", 8126)); time.sleep(0.001)
time.sleep(0.5)
'''
TEXT, ALL = ("netstat_s", "nstat"), ("netstat_s", "nstat", "nstat_json")
# counter: the outputs it is asked of, its wordings; asked only where its value stands once
ASKED = {
    "UdpNoPorts": (ALL, ("How many UDP datagrams arrived for a port with no listener?",
                         "How many packets went to unknown UDP ports?")),
    "UdpInDatagrams": (TEXT, ("How many UDP datagrams were delivered to applications?",
                              "How many UDP packets were received?")),
    "TcpAttemptFails": (ALL, ("How many TCP connection attempts failed?", "How many outgoing TCP connects failed?")),
    "TcpActiveOpens": (TEXT, ("How many TCP connections did this host open actively?",
                              "How many active connection openings were there?")),
    "TcpPassiveOpens": (("netstat_s",), ("How many TCP connections were accepted passively?",
                                         "How many passive TCP opens were there?")),
    "TcpExtTCPAbortOnClose": (TEXT, ("How many connections were reset because the application closed with unread data?",
                                     "How many TCP aborts on close were counted?")),
    "IcmpOutRateLimitHost": (ALL, ("How many ICMP messages did the per-host rate limit suppress?",
                                   "Were ICMP replies rate-limited? How many?")),
    "IpExtInOctets": (TEXT, ("How many bytes did IP receive in total?", "What's the total inbound IP octet count?")),
    "IpExtOutOctets": (("nstat_json",), ("How many bytes did IP send in total?", "What's the outbound IP octet count?")),
    "TcpRetransSegs": (TEXT, ("How many TCP segments were retransmitted?", "Any TCP retransmissions? How many?")),
    "TcpExtTW": (("netstat_s",), ("How many TCP sockets finished TIME-WAIT?", "How many time-wait sockets expired?")),
}


def build(work: Path) -> list[dict[str, Any]]:
    (work / "driver.py").write_text(DRIVER)
    (work / "client.py").write_text(CLIENT)
    got = json.loads(run(["unshare", "--net", sys.executable, "-S", str(work / "driver.py"), str(work)],
                         timeout=120).stdout)
    before, after = got["before"], got["after"]
    for name in ASKED:  # the tools read the same, settled counters
        assert before[name] == after[name], (name, before[name], after[name])
    assert before["UdpNoPorts"] == 173 and before["TcpAttemptFails"] >= 23, before
    asks = [Ask(name.lower(), "named", "named_item", (str(before[name]),),
                f"/proc/net/{'netstat' if name.startswith(('TcpExt', 'IpExt')) else 'snmp'} {name}", wordings, only)
            for name, (only, wordings) in ASKED.items()]
    commands = {"netstat_s": "netstat -s", "nstat": "nstat -asz", "nstat_json": "nstat -asz --json"}
    outputs = {k: Output({"command": commands[k]}, "json" if k == "nstat_json" else "text", v)
               for k, v in got["outputs"].items()}
    out = asked_cases(SOURCE, outputs, asks)
    assert len(out) >= 12, f"too few {SOURCE} cases: {len(out)}"
    return out
