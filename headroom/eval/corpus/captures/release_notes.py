"""A release's notes drafted from news fragments by towncrier 24.8: ``towncrier build --draft``
into Markdown (``# Name version (date)``, then one ``### Section`` a change type with one
``- text (#issue)`` bullet a fragment; ~80 lines, ~6.5 kB) and the same draft into reStructuredText (titles
underlined, a blank line more between sections; ~90 lines, ~6.5 kB), of a project's ``changes/`` folder the
capture writes: about sixty fragments named ``<issue>.<type>.md`` over five change types
(features, bug fixes, documentation, deprecations and removals, and misc, which towncrier lists
by issue number only). towncrier runs from a throwaway venv (PyPI at build time); its progress
lines on stderr are part of the output read.

Facts come from the capture's own record of the fragments it wrote (each one's issue number,
type and text; checked by reading the folder back with pathlib), never from towncrier's text; a
fact is kept only where it stands once. Every fragment has an issue number of its own (four
digits, so none is a prefix of another) and a text with a subject word of its own; section names
are not words the texts use. Held out (issue 33, twenty-fifth round): dev holds commit logs,
notes and tags, but no release-notes draft assembled from fragments.
"""

from __future__ import annotations

import random
import shutil
from pathlib import Path
from typing import Any

from ._asked import Ask, shell_cases
from ._run import pinned_tool

SOURCE = "release_notes"
RELEASE = "towncrier==24.8.0"
ROOT = Path("/tmp/fleetctl-release")
TYPES = {"feature": "Features", "bugfix": "Bugfixes", "doc": "Improved Documentation",
         "removal": "Deprecations and Removals", "misc": "Misc"}
VERBS = {"feature": ("Add", "Support", "Allow", "Introduce"), "bugfix": ("Fix", "Repair", "Correct", "Stop"),
         "doc": ("Explain", "Describe", "Clarify", "Illustrate"), "removal": ("Drop", "Retire", "Remove", "Sunset"),
         "misc": ("Tidy",)}
SUBJECTS = ("tachograph", "odometer", "waybill", "manifest", "geofence", "telematics", "dashcam", "axle",
            "coupling", "pallet", "tailgate", "winch", "ballast", "chassis", "gearbox", "clutch", "radiator",
            "alternator", "ignition", "headlamp", "wiper", "mirror", "bumper", "trailer", "hitch", "tarpaulin",
            "ratchet", "lashing", "forklift", "loading-bay", "weighbridge", "toll-tag", "fuel-card", "depot-map",
            "route-plan", "shift-log", "driver-roster", "rest-timer", "speed-limiter", "tyre-gauge", "brake-pad",
            "oil-sensor", "coolant", "exhaust", "turbo", "injector", "spark-plug", "battery", "charger", "inverter",
            "sunroof", "cab-heater", "seat-belt", "airbag", "horn", "indicator", "reverse-camera", "parking-aid",
            "cruise-control", "lane-assist", "night-vision", "cargo-lock")
DETAILS = ("in the dispatch console", "when a vehicle goes offline", "for multi-depot fleets",
           "on the mobile app", "in exported reports", "during overnight sync", "for hired vehicles",
           "behind the fleetctl CLI", "in the REST API", "for archived journeys")
RESULTS = ("Operators no longer need to restart the gateway afterwards.", "Existing settings keep working unchanged.",
           "The old behaviour stays available behind a flag for one release.", "Reported by a customer on the support desk.",
           "Nightly jobs pick the change up without a redeploy.", "Dashboards show the new values after the next sync.")
ENV = {"PATH": "/usr/bin:/bin", "LC_ALL": "C.UTF-8"}
CONFIG = '[tool.towncrier]\nname = "Fleetctl"\ndirectory = "changes"\nfilename = "{filename}"\n'
COMMANDS = {"markdown": "towncrier build --draft --version 3.2.0 --date 2026-12-01 2>&1",
            "rst": "towncrier build --draft --config rst.toml --version 3.2.0 --date 2026-12-01 2>&1"}


def plan(rnd: random.Random) -> dict[str, Any]:
    """The capture's record: issue -> (type, text) of every fragment it writes."""
    kinds = ["feature"] * 18 + ["bugfix"] * 22 + ["doc"] * 8 + ["removal"] * 6 + ["misc"] * 6
    issues = rnd.sample(range(1000, 9999), len(kinds))
    subjects = rnd.sample(SUBJECTS, len(kinds))
    fragments = {}
    for issue, kind, subject in zip(issues, kinds, subjects, strict=True):
        text = f"{rnd.choice(VERBS[kind])} the {subject} handling {rnd.choice(DETAILS)}. {rnd.choice(RESULTS)}"
        fragments[issue] = (kind, text)
    return {"fragments": fragments}


def write(p: dict[str, Any], root: Path) -> None:
    (root / "changes").mkdir(parents=True)
    for issue, (kind, text) in p["fragments"].items():
        (root / "changes" / f"{issue}.{kind}.md").write_text(text + "\n")
    (root / "towncrier.toml").write_text(CONFIG.format(filename="CHANGES.md"))
    (root / "rst.toml").write_text(CONFIG.format(filename="CHANGES.rst"))


def read_back(root: Path) -> dict[int, tuple[str, str]]:
    """The fragments as the folder holds them, by their file names and contents."""
    out = {}
    for path in sorted((root / "changes").iterdir()):
        issue, kind, _ = path.name.split(".")
        out[int(issue)] = (kind, path.read_text().strip())
    return out


def _asks(p: dict[str, Any], rnd: random.Random) -> list[Ask]:
    note = "the capture's record of the fragments it wrote (issue, type, text), read back from the folder"
    frags = p["fragments"]
    asks = []
    texted = sorted(i for i, (k, _) in frags.items() if k != "misc")
    for issue in rnd.sample(texted, 9):
        text = frags[issue][1].split(". ")[0]
        asks.append(Ask(f"issue_{issue}", "named", "named_item", (f"#{issue}",), note,
                        (f"Which issue number goes with the change \"{text}\"?",
                         f"What issue is the note \"{text}\" filed under?")))
    for issue in rnd.sample([i for i in texted if frags[i][0] in ("doc", "removal")], 3):
        subject = frags[issue][1].split()[2]
        asks.append(Ask(f"section_{issue}", "named", "named_item", (TYPES[frags[issue][0]],), note,
                        (f"Under which section of the notes is the {subject} change listed?",
                         f"What heading does the note about {subject} fall under?")))
    return asks


def build(work: Path) -> list[dict[str, Any]]:
    rnd = random.Random(2503)
    p = plan(rnd)
    tool = pinned_tool(work, RELEASE, "towncrier")
    shutil.rmtree(ROOT, ignore_errors=True)
    ROOT.mkdir()
    try:
        write(p, ROOT)
        assert read_back(ROOT) == p["fragments"]
        env = {**ENV, "PATH": f"{tool.parent}:/usr/bin:/bin"}
        cases = shell_cases(SOURCE, COMMANDS, _asks(p, rnd), cwd=ROOT, env=env, least=12)
    finally:
        shutil.rmtree(ROOT, ignore_errors=True)
    return cases
