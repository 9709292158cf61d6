"""Socket tables: ``ss -tuanp``, ``ss -tanpie`` (timers, uid, inode, socket memory) and
``netstat -tuanpe`` of a fresh network and PID namespace (``unshare --net --pid --fork
--mount-proc``, loopback up) where named services listen on TCP and UDP, IPv4 and IPv6, a
load generator holds ~70 connections, a cache that never reads lets its receive queues
fill to different depths, and closed connections linger in ``TIME-WAIT``.

Facts come from another reading of the kernel's tables: psutil's ``net_connections``
(``/proc/net/tcp*``/``udp*`` matched to ``/proc/<pid>/fd``) for which process and
descriptor holds a socket, and the ``rx_queue`` column of ``/proc/net/tcp`` for queue
depths; ss asks netlink, netstat reads ``/proc`` its own way. A fact is kept only where
its text occurs once in the output. Held out (issue 33): no dev source holds a socket
listing.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

from ..cases import fact, make_case
from ..questions import choose
from ._run import run

SOURCE = "socket_table"

DRIVER = r'''
import json, os, socket, subprocess, sys, time
import psutil

subprocess.run(["ip", "link", "set", "lo", "up"], check=True)
work, service = sys.argv[1], sys.argv[2]
py = sys.executable
procs = []
def start(*args):
    procs.append(subprocess.Popen([py, service, *args], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL))

start("api-gw", "tcp", "0.0.0.0", "8080", "read")
start("api-gw-tls", "tcp6", "::", "8443", "read")
start("metrics", "tcp", "127.0.0.1", "9100", "read")
start("statsd", "udp", "127.0.0.1", "8125", "read")
start("dns-stub", "udp", "127.0.0.53", "53", "read")
start("cache", "tcp", "127.0.0.1", "6380", "hold")
start("admin", "tcp6", "::1", "9000", "read")
start("grpc-internal", "tcp", "127.0.0.1", "50051", "read")
time.sleep(1.5)
start("loadgen", "client")
time.sleep(4)

def out(cmd):
    return subprocess.run(cmd, capture_output=True, text=True, env={**os.environ, "LC_ALL": "C"}).stdout

tables = {"ss": out(["ss", "-tuanp"]), "ss_ext": out(["ss", "-tanpie"]), "netstat": out(["netstat", "-tuanpe"])}
conns = []
for c in psutil.net_connections(kind="inet"):
    conns.append({"fd": c.fd, "pid": c.pid, "type": int(c.type), "status": c.status,
                  "laddr": list(c.laddr) if c.laddr else None, "raddr": list(c.raddr) if c.raddr else None,
                  "name": psutil.Process(c.pid).name() if c.pid else None})
queues = []  # /proc/net/tcp: local, remote, rx_queue
for table in ("/proc/net/tcp", "/proc/net/tcp6"):
    for line in open(table).read().splitlines()[1:]:
        f = line.split()
        tx, rx = (int(x, 16) for x in f[4].split(":"))
        queues.append({"local": f[1], "remote": f[2], "rx": rx, "tx": tx, "inode": f[9]})
json.dump({"tables": tables, "conns": conns, "queues": queues}, open(os.path.join(work, "out.json"), "w"))
for p in procs:
    p.kill()
'''

SERVICE = r'''
import random, socket, sys, threading, time
name = sys.argv[1]
with open("/proc/self/comm", "w") as fh:
    fh.write(name[:15])
if sys.argv[2] == "client":
    rng = random.Random(33)
    keep = []
    for k in range(40):  # requests to the gateway, some closed at once (TIME-WAIT on this side)
        s = socket.create_connection(("127.0.0.1", 8080))
        s.sendall(b"GET / HTTP/1.1\r\n\r\n")
        if k % 4 == 0:
            s.close()
        else:
            keep.append(s)
    for port, host in ((8443, "::1"), (9000, "::1"), (9100, "127.0.0.1"), (50051, "127.0.0.1")):
        for _ in range(rng.randint(2, 6)):
            keep.append(socket.create_connection((host, port)))
    for k in range(12):  # the cache never reads: each connection's receive queue holds what was sent
        s = socket.create_connection(("127.0.0.1", 6380))
        s.sendall(b"x" * rng.randint(1000, 60000))
        keep.append(s)
    u = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    u.connect(("127.0.0.1", 8125))
    u.send(b"requests:1|c")
    keep.append(u)
    time.sleep(600)
fam = socket.AF_INET6 if sys.argv[2] == "tcp6" else socket.AF_INET
kind = socket.SOCK_DGRAM if sys.argv[2] == "udp" else socket.SOCK_STREAM
srv = socket.socket(fam, kind)
srv.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
srv.bind((sys.argv[3], int(sys.argv[4])))
if kind == socket.SOCK_DGRAM:
    while True:
        srv.recv(65536)
srv.listen(128)
held = []
def serve(c):
    while c.recv(65536):
        pass
    c.close()
while True:
    c, _ = srv.accept()
    if sys.argv[5] == "hold":
        held.append(c)
    else:
        threading.Thread(target=serve, args=(c,), daemon=True).start()
'''

TABLES = {"ss": "ss -tuanp", "ss_ext": "ss -tanpie", "netstat": "netstat -tuanpe"}
LISTENERS = (("8080", "tcp", "api gateway"), ("9100", "tcp", "metrics endpoint"), ("8125", "udp", "statsd"),
             ("50051", "tcp", "internal gRPC"), ("9000", "tcp", "admin"))


def _hex_port(addr: str) -> int:
    return int(addr.rsplit(":", 1)[1], 16)


def build(work: Path) -> list[dict[str, Any]]:
    (work / "driver.py").write_text(DRIVER)
    (work / "service.py").write_text(SERVICE)
    run(["unshare", "--net", "--pid", "--fork", "--mount-proc", sys.executable, str(work / "driver.py"), str(work),
         str(work / "service.py")], timeout=120)
    doc = json.loads((work / "out.json").read_text())
    conns = doc["conns"]
    asked = []  # (sid, intent, wordings, {table: fact text}, kind, note)
    for port, proto, what in LISTENERS:
        found = [c for c in conns if c["laddr"] and str(c["laddr"][1]) == port and c["pid"]
                 and (c["status"] == "LISTEN" or proto == "udp")]
        if len(found) != 1:
            continue
        c = found[0]
        t = f"pid={c['pid']},fd={c['fd']})"  # ")" ends ss's users:((...)): fd=3 is no fd=30
        asked.append((f"listener_{port}", "named",
                      (f"Which process owns the {proto.upper()} socket on port {port}?",
                       f"What is serving the {what} on port {port}: which process and file descriptor?"),
                      {"ss": t, "ss_ext": t}, "named_item", f"psutil net_connections: pid and fd bound to {port}"))
    # The cache's connection with the deepest receive queue (rx_queue of /proc/net/tcp).
    held = sorted((q for q in doc["queues"] if _hex_port(q["local"]) == 6380 and q["rx"]), key=lambda q: -q["rx"])
    if len(held) > 1 and held[0]["rx"] > held[1]["rx"]:
        top = held[0]
        peer_port = _hex_port(top["remote"])
        owner = [c for c in conns if c["laddr"] and c["laddr"][1] == 6380 and c["raddr"]
                 and c["raddr"][1] == peer_port]
        facts = {"netstat": f" {top['rx']} "}
        if len(owner) == 1:
            t = f"pid={owner[0]['pid']},fd={owner[0]['fd']})"
            facts.update(ss=t, ss_ext=t)
        asked.append(("deepest_queue", "extreme",
                      ("Which connection has the most received data that nobody has read yet?",
                       "Where is the largest receive backlog among these sockets?"),
                      facts, "extreme", f"/proc/net/tcp: the largest rx_queue ({top['rx']} bytes) on port 6380"))
    out = []
    for table, command in TABLES.items():
        text = doc["tables"][table]
        for sid, intent, wordings, facts, kind, note in asked:
            t = facts.get(table)
            if t is None or text.count(t) != 1:
                continue
            t = t.strip()
            if text.count(t) != 1:
                continue
            scen = f"{table}_{sid}"
            out.append(make_case(SOURCE, scen, "text", "bash", {"command": command}, intent,
                                 choose(f"{SOURCE}/{scen}", wordings), text, [fact(t, kind, note, basis="independent")]))
    assert len(out) >= 8, f"too few socket table cases: {len(out)}"
    return out
