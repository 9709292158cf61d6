"""A project's database migration state as Django reports it: ``django-admin showmigrations``
(per app its label, then one ``[X]`` or ``[ ]`` line a migration in the app's order; ~250 lines,
~6 kB) and ``django-admin showmigrations --plan`` (the whole plan in the order Django would run
it, one ``[X]  app.migration`` line each; ~240 lines, ~8 kB), of a shop project the capture
writes: twelve apps (beside three of Django's own), each with its own chain of migrations (a model created, then fields added),
some depending on another app's migrations, over a SQLite database the capture migrates app by
app to targets of its own. Django 4.2 LTS runs from a throwaway venv (PyPI at build time).

Most apps are migrated to their last migration; in the middle, five stop part-way, one has
nothing applied and one has far more migrations than any other. Facts come from another reader
of the same state, never from Django's text: the ``django_migrations`` table read with
``sqlite3`` for what is applied, and the capture's own record of the migrations it wrote; a fact
is kept only where it stands once (an app's label stands once only in the plain form). Held out
(issue 33, twenty-second round): dev holds database schemas, dumps and backup tables of contents,
but no migration framework's applied/pending state.
"""

from __future__ import annotations

import random
import sqlite3
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ._asked import Ask, shell_cases
from ._run import pinned_tool, run

SOURCE = "django_migrations"
DJANGO = "Django==4.2.17"
APPS = ("catalog", "pricing", "inventory", "carts", "checkout", "payments", "invoicing", "shipping", "returns",
        "loyalty", "reviews", "reporting")
VERBS = ("add", "alter", "backfill", "drop", "index", "rename", "split", "widen", "tighten", "seed", "merge", "track")
NOUNS = ("sku", "currency", "warehouse", "voucher", "carrier", "parcel", "tariff", "margin", "rebate", "ledger",
         "coupon", "bundle", "barcode", "region", "locale", "supplier", "batch", "quota", "invoice", "refund",
         "slot", "badge", "rating", "digest")
# Django's own apps, migrated in full first, as any project has them
CONTRIB = ("django.contrib.contenttypes", "django.contrib.auth", "django.contrib.sessions")
LONGEST = 48  # migrations of the one app with far more than any other (others 12-20)


@dataclass
class Project:
    """The capture's record: each app's migrations in order, their cross-app dependencies, the targets."""

    migrations: dict[str, list[str]] = field(default_factory=dict)
    depends: dict[tuple[str, str], tuple[str, str]] = field(default_factory=dict)  # (app, name) -> (app, name)
    targets: dict[str, str] = field(default_factory=dict)  # app -> target ("zero" for none applied)
    partial: list[str] = field(default_factory=list)  # apps stopped part-way
    untouched: str = ""
    longest: str = ""


def plan(rnd: random.Random) -> Project:
    pr = Project()
    words = iter(rnd.sample([f"{v}_{n}" for v in VERBS for n in NOUNS], len(VERBS) * len(NOUNS)))
    middle = list(APPS[3:9])
    pr.longest = rnd.choice(middle)
    for app in APPS:
        count = LONGEST if app == pr.longest else rnd.randint(12, 20)
        pr.migrations[app] = ["0001_initial"] + [f"{n:04d}_{next(words)}" for n in range(2, count + 1)]
    for i, app in enumerate(APPS[1:], start=1):
        # a few migrations wait on an earlier app's (never a later one's: the graph stays acyclic)
        for name in rnd.sample(pr.migrations[app][1:], 2):
            other = APPS[rnd.randrange(i)]
            pr.depends[(app, name)] = (other, rnd.choice(pr.migrations[other][:4]))
    # the odd apps: no other app depends on them past their first four migrations, so a target holds
    odd = rnd.sample([a for a in middle if a != pr.longest], 5) + [pr.longest]
    pr.partial = odd[:5]
    pr.untouched = APPS[-1]  # no app depends on the last, so nothing pulls its migrations in
    for app in APPS:
        names = pr.migrations[app]
        pr.targets[app] = names[-1]
        if app in pr.partial:
            pr.targets[app] = names[rnd.randint(4, len(names) - 3)]
    pr.targets[pr.untouched] = "zero"
    return pr


def migration_text(pr: Project, app: str, k: int) -> str:
    names = pr.migrations[app]
    deps = [(app, names[k - 1])] if k else []
    if (app, names[k]) in pr.depends:
        deps.append(pr.depends[(app, names[k])])
    model = f"{app.capitalize()}Record"
    if k == 0:
        op = (f'migrations.CreateModel(name="{model}", fields=[("id", models.BigAutoField(primary_key=True)), '
              f'("code", models.CharField(max_length=40))])')
    else:
        op = f'migrations.AddField("{model.lower()}", "f{k}", models.IntegerField(default=0))'
    return ("from django.db import migrations, models\n\n\n"
            "class Migration(migrations.Migration):\n"
            f"    initial = {k == 0}\n"
            f"    dependencies = {deps!r}\n"
            f"    operations = [{op}]\n")


def applied(db: Path) -> dict[str, list[str]]:
    """What the ``django_migrations`` table holds, app by app, in the order applied."""
    with sqlite3.connect(db) as conn:
        rows = conn.execute("SELECT app, name FROM django_migrations ORDER BY id").fetchall()
    out: dict[str, list[str]] = {}
    for app, name in rows:
        out.setdefault(app, []).append(name)
    return out


def _asks(pr: Project, done: dict[str, list[str]]) -> list[Ask]:
    note = "the django_migrations table read with sqlite3; the capture's record of the migrations it wrote"
    asks = [Ask("untouched", "named", "named_item", (pr.untouched,), note,
                ("Which app has no migrations applied at all?", "What app hasn't been migrated yet?"), ("list",)),
            Ask("longest", "extreme", "extreme", (pr.longest,), note,
                ("Which app has the most migrations?", "What app carries the longest migration history?"),
                ("list",))]
    for app in pr.partial:
        mine = [n for n in pr.migrations[app] if n in done.get(app, [])]
        last = mine[-1]
        pending = pr.migrations[app][len(mine)]

        def qualified(name: str, app: str = app):
            return lambda output: (name,) if output == "list" else (f"{app}.{name}",)

        asks += [Ask(f"last_{app}", "named", "named_item", qualified(last), note,
                     (f"What is the last applied migration of the {app} app?",
                      f"How far has {app} been migrated?")),
                 Ask(f"next_{app}", "named", "named_item", qualified(pending), note,
                     (f"Which {app} migration is the next one to apply?",
                      f"What's the first unapplied migration in {app}?"))]
    return asks


SETTINGS = """SECRET_KEY = "capture-only"
INSTALLED_APPS = {apps!r}
DATABASES = {{"default": {{"ENGINE": "django.db.backends.sqlite3", "NAME": "shop.sqlite3"}}}}
DEFAULT_AUTO_FIELD = "django.db.models.BigAutoField"
USE_TZ = True
"""


def build(work: Path) -> list[dict[str, Any]]:
    rnd = random.Random(2202)
    pr = plan(rnd)
    admin = pinned_tool(work / "tool", DJANGO, "django-admin")
    src = work / "src"
    (src / "shop").mkdir(parents=True)
    (src / "shop" / "__init__.py").write_text("")
    (src / "shop" / "settings.py").write_text(SETTINGS.format(apps=[*CONTRIB, *APPS]))
    for app in APPS:
        mig = src / app / "migrations"
        mig.mkdir(parents=True)
        (src / app / "__init__.py").write_text("")
        (mig / "__init__.py").write_text("")
        for k, name in enumerate(pr.migrations[app]):
            (mig / f"{name}.py").write_text(migration_text(pr, app, k))
    env = {"PATH": f"{admin.parent}:/usr/bin:/bin", "LC_ALL": "C.UTF-8", "PYTHONPATH": str(src),
           "DJANGO_SETTINGS_MODULE": "shop.settings"}
    for app in ("contenttypes", "auth", "sessions"):
        run([str(admin), "migrate", app], cwd=src, env=env)
    for app in APPS:  # app by app, each to its own target (dependencies pull in what they need)
        if pr.targets[app] != "zero":
            run([str(admin), "migrate", app, pr.targets[app]], cwd=src, env=env)
    done = applied(src / "shop.sqlite3")
    assert pr.untouched not in done and all(done[a][-1] != pr.migrations[a][-1] for a in pr.partial)
    commands = {"list": "django-admin showmigrations", "plan": "django-admin showmigrations --plan"}
    return shell_cases(SOURCE, commands, _asks(pr, done), cwd=src, env=env)
