"""git's layered configuration with where each value came from: ``git config --list
--show-origin --show-scope`` (scope, ``file:<path>``, ``key=value``; ~420 lines) and ``git
config --get-regexp --show-origin`` of the branch and remote settings, in a repository the
capture sets up with a system file, a global file, the repository's own ``.git/config``, a team
file it includes and a file included only for work trees under one folder (``includeIf
gitdir:``). The same keys are set in more than one layer, as they are on a developer's machine.

Facts come from the capture's record of the files it wrote (the value the last layer gives a key
set twice, an alias, the upstream of a named branch, the push URL of a named remote, the email
the conditional include sets, the system file's CA bundle), never from git's text; a fact is
kept only where it stands once in its output. Held out (issue 33, fourteenth round): dev holds
resolved client configurations and configuration files, but no layered listing that names
the file and scope of every value.
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ._asked import Ask, shell_cases
from ._run import run

SOURCE = "git_config_origins"
AREAS = ("pricing", "checkout", "search", "billing", "catalog", "shipping", "auth", "reports", "cart", "tax",
         "stock", "returns", "ledger", "invoices", "coupons", "wishlist")
REMOTES = ("origin", "upstream", "mirror", "staging", "backup", "review", "release", "archive")
COMMANDS = {
    "list": "git config --list --show-origin --show-scope",
    "branches": "git config --get-regexp --show-origin '^(branch|remote)\\.'",
}


@dataclass
class Layers:
    """What the capture wrote into each file, and what the asked keys end up as."""

    files: dict[str, list[tuple[str, str, str]]] = field(default_factory=dict)  # path -> (section, key, value)
    record: dict[str, str] = field(default_factory=dict)
    upstreams: dict[str, str] = field(default_factory=dict)  # branch -> merge ref
    push_urls: dict[str, str] = field(default_factory=dict)  # remote -> push URL

    def put(self, path: str, section: str, key: str, value: str) -> None:
        self.files.setdefault(path, []).append((section, key, value))


def write_layers(rnd: random.Random) -> Layers:
    lay = Layers()
    n = iter(rnd.sample(range(1000, 9999), 400))
    lay.put("system.gitconfig", "http", "sslCAInfo", f"/etc/pki/shop/ca-{next(n)}.pem")
    lay.record["ca"] = lay.files["system.gitconfig"][0][2]
    lay.put("system.gitconfig", "core", "autocrlf", "input")
    for area in AREAS[:10]:  # the global file: aliases and a few defaults
        lay.put("home.gitconfig", "alias", f"{area[:3]}log", f"log --oneline --grep={area}-{next(n)}")
    lay.put("home.gitconfig", "core", "editor", f"vim -u ~/.vimrc-{next(n)}")
    lay.put("home.gitconfig", "pull", "rebase", "false")
    lay.put("home.gitconfig", "merge", "conflictstyle", "diff3")
    lay.put("home.gitconfig", "fetch", "parallel", str(next(n)))
    lay.record["alias_cat"] = lay.files["home.gitconfig"][4][2]
    for remote in REMOTES:
        url = f"https://git.shop.example/{remote}/shop-{next(n)}.git"
        lay.put(".git/config", f'remote "{remote}"', "url", url)
        lay.push_urls[remote] = f"ssh://git@push-{next(n)}.shop.example/{remote}/shop.git"
        lay.put(".git/config", f'remote "{remote}"', "pushurl", lay.push_urls[remote])
        lay.put(".git/config", f'remote "{remote}"', "fetch", f"+refs/heads/*:refs/remotes/{remote}/*")
    # The includes sit between the remotes and the branches, as a hand-kept file grows: what
    # they set comes in the middle of the listing, and nothing after them sets it again.
    lay.put(".git/config", "include", "path", "../conf/team.gitconfig")
    lay.put(".git/config", 'includeIf "gitdir:repo/"', "path", "../conf/work.gitconfig")
    for number in range(1, 141):
        branch = f"feature/{rnd.choice(AREAS)}-{number}"
        lay.upstreams[branch] = f"refs/heads/{branch.split('/')[1]}-{next(n)}"
        lay.put(".git/config", f'branch "{branch}"', "remote", rnd.choice(REMOTES))
        lay.put(".git/config", f'branch "{branch}"', "merge", lay.upstreams[branch])
    # The team file: shop-wide settings, some of which the repository's own file sets again.
    for area in AREAS:
        lay.put("conf/team.gitconfig", f'shop "{area}"', "owner", f"{area}-team-{next(n)}")
        lay.put("conf/team.gitconfig", f'shop "{area}"', "reviewers", str(rnd.randint(1, 4)))
    lay.put("conf/team.gitconfig", "core", "editor", f"nano --rcfile=team-{next(n)}")
    lay.put("conf/team.gitconfig", "fetch", "parallel", str(next(n)))
    lay.record["editor_wins"] = lay.files["conf/team.gitconfig"][-2][2]
    lay.record["parallel_wins"] = lay.files["conf/team.gitconfig"][-1][2]
    lay.put("conf/work.gitconfig", "user", "email", f"dev-{next(n)}@shop.example")
    lay.record["email"] = lay.files["conf/work.gitconfig"][0][2]
    return lay


def write_files(work: Path, lay: Layers) -> Path:
    repo = work / "repo"
    run(["git", "init", "-q", str(repo)], env={"PATH": "/usr/bin:/bin", "HOME": "/nonexistent"})
    (repo / "conf").mkdir()
    for path, rows in lay.files.items():
        target = work / path if path.endswith(("system.gitconfig", "home.gitconfig")) else repo / path
        mode = "a" if path == ".git/config" else "w"
        with target.open(mode) as fh:
            section = None
            for sec, key, value in rows:
                if sec != section:
                    fh.write(f"[{sec}]\n")
                    section = sec
                fh.write(f"\t{key} = {value}\n")
    return repo


def _asks(lay: Layers, rnd: random.Random) -> list[Ask]:
    note = "the capture's record of the configuration files it wrote"
    asks = [
        Ask("ca", "named", "named_item", (lay.record["ca"],), note,
            ("Which CA bundle does the system-wide git config use?", "What sslCAInfo is set system-wide?"),
            ("list",)),
        Ask("alias", "named", "named_item", (lay.record["alias_cat"],), note,
            ("What does the catlog alias run?", "What command is behind git catlog?"), ("list",)),
        Ask("editor", "last", "named_item", (lay.record["editor_wins"],), note + " (the last layer wins)",
            ("core.editor is set in more than one file; which value applies in this repo?",
             "Which editor will git actually launch here?"), ("list",)),
        Ask("parallel", "last", "named_item", (lay.record["parallel_wins"],), note + " (the last layer wins)",
            ("fetch.parallel is configured twice; what's the effective value?",), ("list",)),
        Ask("email", "named", "named_item", (lay.record["email"],), note,
            ("Which commit email does this repository pick up from the conditional include?",
             "What user.email applies in this work tree?"), ("list",)),
    ]
    branches = list(lay.upstreams)
    for n, branch in enumerate(rnd.sample(branches[40:110], 6)):
        asks.append(Ask(f"upstream_{branch.rsplit('-', 1)[1]}", "named", "named_item", (lay.upstreams[branch],),
                        note, (f"Which upstream ref does {branch} merge from?",
                               f"What's the merge ref configured for {branch}?"), (tuple(COMMANDS)[n % 2],)))
    for n, remote in enumerate(REMOTES[2:6]):
        asks.append(Ask(f"pushurl_{remote}", "named", "named_item", (lay.push_urls[remote],), note,
                        (f"Where do pushes to the {remote} remote go?", f"What's the push URL of {remote}?"),
                        (tuple(COMMANDS)[n % 2],)))
    return asks


def build(work: Path) -> list[dict[str, Any]]:
    rnd = random.Random(1402)
    lay = write_layers(rnd)
    repo = write_files(work, lay)
    env = {"PATH": "/usr/bin:/bin", "LC_ALL": "C", "HOME": "/nonexistent", "GIT_CONFIG_GLOBAL": "../home.gitconfig",
           "GIT_CONFIG_SYSTEM": "../system.gitconfig"}
    return shell_cases(SOURCE, COMMANDS, _asks(lay, rnd), cwd=repo, env=env)
