"""A neural network's structure as PyTorch prints it: ``python inspect_model.py`` printing the
model (``print(model)``: the module tree, one ``(name): Layer(arguments)`` line a module, each
container's children indented under it; ~250 lines, ~9 kB) and ``python inspect_model.py
--params`` (one line a parameter tensor, ``name shape count``, as ``named_parameters()``
yields them; ~170 lines, ~5.5 kB), of a multi-head product model the capture's script builds:
a shared trunk and one head per category in a ``ModuleDict``.

Most heads are alike (Linear, ReLU, Dropout, Linear to a few outputs); in the middle, one head
uses GELU, one Tanh, one normalises with LayerNorm, one has far more outputs than any other,
one drops out at a rate no other head uses. Facts come from the capture's own record of the
heads it specified (the spec the script reads; asserted against ``named_modules()`` in the
same process), never from PyTorch's text; a fact is kept only where it stands once. Held out
(issue 33, twenty-third round): dev holds Python ASTs, bytecode, profiles and data profiles,
but no model's module tree.
"""

from __future__ import annotations

import json
import random
import sys
from pathlib import Path
from typing import Any

from ._asked import Ask, shell_cases

SOURCE = "module_tree"
WORDS = ("kettles", "tents", "leashes", "towels", "puzzles", "wipers", "rackets", "planters", "blenders", "binders",
         "lanterns", "collars", "mats", "kites", "mirrors", "helmets", "hoses", "staplers", "yarn", "glue",
         "candles", "ladders", "sieves", "tongs", "clamps", "easels", "goggles", "hammocks", "pumps", "quilts",
         "rakes", "saddles", "trowels", "vases", "whisks", "anvils", "buckets", "chisels", "drills", "flasks")
SCRIPT = """import json, sys
import torch
from torch import nn

spec = json.load(open("heads.json"))
ACT = {"relu": nn.ReLU, "gelu": nn.GELU, "tanh": nn.Tanh}


def head(h):
    layers = [nn.Linear(256, h["hidden"])]
    if h["norm"]:
        layers.append(nn.LayerNorm(h["hidden"]))
    layers += [ACT[h["act"]](), nn.Dropout(p=h["dropout"]), nn.Linear(h["hidden"], h["outputs"])]
    return nn.Sequential(*layers)


class ProductModel(nn.Module):
    def __init__(self):
        super().__init__()
        self.trunk = nn.Sequential(nn.Linear(512, 384), nn.ReLU(), nn.Linear(384, 256), nn.ReLU())
        self.heads = nn.ModuleDict({name: head(h) for name, h in spec.items()})


torch.manual_seed(0)
model = ProductModel()
# the record and the built model agree: every head's modules as specified
for name, h in spec.items():
    kinds = [type(m).__name__ for m in model.heads[name]]
    assert kinds.count("LayerNorm") == int(h["norm"]) and model.heads[name][-1].out_features == h["outputs"]
if "--params" in sys.argv:
    for name, p in model.named_parameters():
        print(name, tuple(p.shape), p.numel())
else:
    print(model)
"""


def plan(rnd: random.Random) -> tuple[dict[str, dict], dict[str, str]]:
    """Each head's spec, and which head is odd in which way."""
    names = rnd.sample(WORDS, len(WORDS))
    hidden = rnd.sample(range(40, 200), len(names))
    spec = {n: {"hidden": h, "norm": False, "act": "relu", "dropout": 0.1, "outputs": rnd.randint(2, 12)}
            for n, h in zip(names, hidden, strict=True)}
    middle = names[len(names) // 3: 2 * len(names) // 3]
    gelu, tanh, norm, wide, drop = rnd.sample(middle, 5)
    spec[gelu]["act"], spec[tanh]["act"], spec[norm]["norm"] = "gelu", "tanh", True
    spec[wide]["outputs"], spec[drop]["dropout"] = 977, 0.45
    return spec, {"gelu": gelu, "tanh": tanh, "norm": norm, "wide": wide, "drop": drop}


def _asks(spec: dict[str, dict], odd: dict[str, str], rnd: random.Random) -> list[Ask]:
    note = "the capture's record of the heads it specified (asserted against named_modules())"
    tree = ("tree",)
    asks = [Ask("gelu", "named", "named_item", (odd["gelu"],), note,
                ("Which head uses a GELU activation?", "What head has GELU instead of ReLU?"), only=tree),
            Ask("tanh", "named", "named_item", (odd["tanh"],), note,
                ("Which head uses Tanh?", "What head's activation is a hyperbolic tangent?"), only=tree),
            Ask("dropout", "named", "named_item", (odd["drop"],), note,
                ("Which head drops out at a higher rate than the others?",
                 "What head has the unusual dropout probability?"), only=tree),
            Ask("widest", "extreme", "extreme", (odd["wide"],), note,
                ("Which head has the most output features?", "What head predicts the largest number of outputs?"),
                only=tree),
            # the one LayerNorm's parameters are the only one-dimensional tensors of a head besides biases:
            # its weight is asked by name in the listing
            Ask("norm_param", "named", "named_item", (f"heads.{odd['norm']}.1.weight",), note,
                ("Which parameter is the weight of the LayerNorm?", "What is the LayerNorm weight tensor called?"),
                only=("params",))]
    plain = [n for n in spec if n not in odd.values()]
    for n in rnd.sample(plain, 6):
        h = spec[n]["hidden"]
        asks.append(Ask(f"hidden_{n}", "named", "named_item", (n,), note,
                        (f"Which head has a hidden layer of {h} units?", f"What head's first Linear has {h} outputs?"),
                        only=tree))
    for n in rnd.sample(plain, 6):
        h, o = spec[n]["hidden"], spec[n]["outputs"]
        asks.append(Ask(f"out_weight_{n}", "named", "named_item", (f"heads.{n}.3.weight",), note,
                        (f"Which parameter has shape ({o}, {h})?", f"What tensor is {o} by {h}?"),
                        only=("params",)))
    return asks


def build(work: Path) -> list[dict[str, Any]]:
    rnd = random.Random(2303)
    spec, odd = plan(rnd)
    (work / "heads.json").write_text(json.dumps(spec))
    (work / "inspect_model.py").write_text(SCRIPT)
    py = sys.executable
    commands = {"tree": f"{py} inspect_model.py", "params": f"{py} inspect_model.py --params"}
    env = {"PATH": "/usr/bin:/bin", "LC_ALL": "C", "PYTHONWARNINGS": "ignore", "OMP_NUM_THREADS": "1"}
    out = shell_cases(SOURCE, commands, _asks(spec, odd, rnd), cwd=work, env=env, least=12)
    for c in out:  # the agent typed ``python``, not this machine's interpreter path
        c["tool_arguments"]["command"] = c["tool_arguments"]["command"].replace(py, "python")
    return out
