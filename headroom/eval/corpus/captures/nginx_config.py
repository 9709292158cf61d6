"""A web server's whole configuration as it assembled it: ``nginx -T`` (it tests the
configuration, then prints every file it read, each under a ``# configuration file <path>:``
header, includes in the order it followed them; ~850 lines), of a configuration tree the
capture writes for a shop's front proxy: ``nginx.conf`` including ``conf.d/*.conf`` (the
upstream pools, rate-limit zones) and ``sites/*.conf`` (~45 virtual hosts, one file each),
under a prefix given as ``./`` so no temporary path is printed.

Most sites are alike (a listen port, a name, two or three locations proxied to a pool of three
or four backends on loopback ports); a few in the middle differ in one way each: a large upload
limit, a long read timeout, a rate limit with a burst of its own, a permanent redirect, a backend
marked ``backup``, a backend drained with ``down``. Facts come from the capture's own record of
the files it wrote (which site has what, in which file), never from nginx's text; a fact is kept
only where it stands once. Held out (issue 33, eighteenth round): dev holds single config files
printed by ``cat`` and ssh's resolved options for one host (``ssh -G``), but no server's
configuration assembled over its include files.
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ._asked import Ask, shell_cases

SOURCE = "nginx_config"
COMMANDS = {"dump": "nginx -T -p ./ -c conf/nginx.conf -e stderr 2>/dev/null"}
TEAMS = ("orders", "billing", "catalog", "search", "media", "stock", "mailer", "ledger", "pricing")
PARTS = ("api", "admin", "assets", "hooks", "feeds")
MAIN = """worker_processes 1;
pid logs/nginx.pid;
events {
    worker_connections 256;
}
http {
    include conf.d/*.conf;
    include sites/*.conf;
}
"""


@dataclass
class Site:
    name: str
    port: int
    pool: str
    backends: list[str] = field(default_factory=list)
    extra: str = ""  # the odd directive inside ``location /``, if any


@dataclass
class Tree:
    """The capture's record: the sites in file order, and the odd ones by what is odd."""

    sites: list[Site] = field(default_factory=list)
    odd: dict[str, Site] = field(default_factory=dict)
    backup: str = ""  # the backend marked backup
    drained: str = ""  # the backend marked down


ODD = {"upload": "client_max_body_size 750m;", "timeout": "proxy_read_timeout 417s;",
       "burst": "limit_req zone=per_ip burst=83 nodelay;", "redirect": "return 301 https://legacy-shop.example$request_uri;"}


def plan(rnd: random.Random) -> Tree:
    tree, port, backend = Tree(), 8100, 9100
    names = [f"{p}.{t}.shop.test" for t in TEAMS for p in PARTS]
    for name in rnd.sample(names, 45):
        backend_count = rnd.randint(3, 4)
        site = Site(name, port, name.replace(".shop.test", "").replace(".", "_") + "_pool",
                    [f"127.0.0.1:{backend + k}" for k in range(backend_count)])
        tree.sites.append(site)
        port, backend = port + 1, backend + backend_count
    middle = tree.sites[len(tree.sites) // 3:len(tree.sites) * 2 // 3]
    picked = rnd.sample(middle, len(ODD) + 2)
    for what, site in zip(ODD, picked, strict=False):
        site.extra, tree.odd[what] = ODD[what], site
    tree.backup, tree.drained = picked[-2].backends[-1], picked[-1].backends[1]
    return tree


def _site_file(site: Site, tree: Tree) -> str:
    def flag(b: str) -> str:
        return " backup" if b == tree.backup else " down" if b == tree.drained else ""

    servers = "".join(f"    server {b}{flag(b)};\n" for b in site.backends)
    extra = f"        {site.extra}\n" if site.extra else ""
    return (f"upstream {site.pool} {{\n{servers}    keepalive 8;\n}}\n"
            f"server {{\n    listen {site.port};\n    server_name {site.name};\n"
            f"    location / {{\n{extra}        proxy_pass http://{site.pool};\n    }}\n"
            f"    location /healthz {{\n        return 200;\n    }}\n}}\n")


def write_tree(root: Path, tree: Tree) -> None:
    for d in ("conf/conf.d", "conf/sites", "logs"):
        (root / d).mkdir(parents=True)
    (root / "conf" / "nginx.conf").write_text(MAIN)
    (root / "conf" / "conf.d" / "limits.conf").write_text(
        "limit_req_zone $binary_remote_addr zone=per_ip:10m rate=20r/s;\nproxy_http_version 1.1;\n")
    for n, site in enumerate(tree.sites):
        (root / "conf" / "sites" / f"{n:02d}-{site.name.split('.shop')[0]}.conf").write_text(_site_file(site, tree))


def site_file(tree: Tree, site: Site) -> str:
    return f"./conf/sites/{tree.sites.index(site):02d}-{site.name.split('.shop')[0]}.conf"


def _asks(tree: Tree) -> list[Ask]:
    note = "the capture's record of the configuration files it wrote"
    wordings = {"upload": ("Which host accepts uploads up to 750m?", "What server allows 750 MB request bodies?"),
                "timeout": ("Which site waits 417 seconds on its upstream?", "Where's proxy_read_timeout 417s set?"),
                "burst": ("Which host has the rate limit with burst 83?", "Which server_name uses limit_req burst 83?"),
                "redirect": ("Which host permanently redirects to legacy-shop.example?",
                             "What site sends a 301 to the legacy shop?")}
    asks = [Ask(f"host_{what}", "named", "named_item", (site.name,), note, wordings[what])
            for what, site in tree.odd.items()]
    asks += [Ask(f"file_{what}", "named", "named_item", (site_file(tree, site),), note,
                 (f"Which config file defines {site.name}?", f"What file is the {site.name} server block in?"))
             for what, site in tree.odd.items()]
    asks += [Ask(f"port_{what}", "named", "named_item", (str(site.port),), note,
                 (f"What port does {site.name} listen on?", f"Listen port for {site.name}?"))
             for what, site in tree.odd.items()]
    asks.append(Ask("backup", "named", "named_item", (tree.backup,), note,
                    ("Which backend is only a backup?", "Find the upstream server marked backup: address?")))
    asks.append(Ask("drained", "named", "named_item", (tree.drained,), note,
                    ("Which backend is marked down?", "What upstream server was taken out with 'down'?")))
    for what in ("backup", "drained"):  # the pool's name stands twice (upstream, proxy_pass): ask the host
        addr = getattr(tree, what)
        site = next(s for s in tree.sites if addr in s.backends)
        asks.append(Ask(f"host_{what}", "named", "named_item", (site.name,), note,
                        (f"Which host is served by the pool that has {addr}?",
                         f"{addr} backs which site?")))
    return asks


def build(work: Path) -> list[dict[str, Any]]:
    tree = plan(random.Random(1806))
    write_tree(work, tree)
    return shell_cases(SOURCE, COMMANDS, _asks(tree), cwd=work, env={"PATH": "/usr/sbin:/usr/bin:/bin"})
