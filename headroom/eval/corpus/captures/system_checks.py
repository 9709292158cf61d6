"""A Django project's system checks: ``django-admin check`` (``SystemCheckError`` and one
``label: (id) message`` line an issue, some with a ``HINT:`` line, grouped under ERRORS and
WARNINGS, among them every model's ``models.W042`` for an auto-created primary key, as a
project without ``DEFAULT_AUTO_FIELD`` has; ~80 lines, ~10 kB) and ``django-admin check --deploy`` (the same with the deployment checks'
``?: (security.W0..)`` warnings among them; ~90 lines, ~11 kB), of a project the capture writes: four apps of
six models each, with 21 flawed field declarations planted among sound ones
(a CharField without ``max_length``, a foreign key to a missing model, ``SET_NULL`` on a column
that cannot be null, a file field uploading to an absolute path...). Django 4.2 LTS runs from a
throwaway venv (PyPI at build time); the project sits in a fixed folder.

Facts come from the capture's own record of the flaws it planted (which field of which model)
and, for each, the check id Django's checks framework returns for that field, read through its
API (``django.core.checks.run_checks``: message objects, never the text; asserted: one message a
planted field, none on a sound one); a fact is kept only where it stands once. Each flaw kind is
planted once, on a field with a name of its own. Held out (issue 33, twenty-fifth round): dev
holds linters' and type checkers' diagnostics and a framework's migration state, but no
framework's check of a project's models and settings.
"""

from __future__ import annotations

import json
import random
import shutil
from pathlib import Path
from typing import Any

from ._asked import Ask, shell_cases
from ._run import pinned_tool, run

SOURCE = "system_checks"
DJANGO = "Django==4.2.17"
ROOT = Path("/tmp/fleet-portal")
APPS = ("billing", "dispatch", "garage", "roster")
MODELS = ("Invoice", "Ledger", "Tariff", "Voucher", "Route", "Depot", "Convoy", "Manifest", "Vehicle", "Tyre",
          "Inspection", "Workshop", "Driver", "Shift", "Licence", "Roster", "Payslip", "Permit", "Trailer",
          "Beacon", "Refuel", "Toll", "Receipt", "Quote")
FIELDS = ("memo", "amount", "issued", "payee", "reference", "channel", "weight", "origin", "plate", "mileage",
          "badge", "grade", "notes", "photo", "scan", "contract", "parent", "owner", "backup", "region", "colour",
          "serial", "ratio", "tags", "score", "level", "status", "label", "folder", "address", "stamp", "digest",
          "cover", "window", "quota", "bucket", "slot", "marker", "anchor", "course")
# one flaw of each kind, as its field declaration ({other}: another model of the same app)
FLAWS = (
    "models.CharField()",
    "models.CharField(max_length=-4)",
    "models.DecimalField(max_digits=9)",
    "models.DecimalField(decimal_places=2)",
    "models.FilePathField(path='/srv/drop', allow_files=False, allow_folders=False)",
    "models.FileField(upload_to='/srv/uploads')",
    "models.ImageField(upload_to='pictures')",
    "models.IntegerField(choices='abc')",
    "models.IntegerField(validators=[42])",
    "models.ForeignKey('{other}', on_delete=models.SET_NULL)",
    "models.ForeignKey('{other}', on_delete=models.SET_DEFAULT)",
    "models.ManyToManyField('{other}', null=True)",
    "models.ForeignKey('{other}', on_delete=models.CASCADE, unique=True, related_name='+')",
    "models.DateField(auto_now=True, auto_now_add=True)",
    "models.DateField(default=datetime.date.today())",
    "models.CharField(max_length=10, db_index='yes')",
    "models.BinaryField(default='text')",
    "models.GenericIPAddressField(blank=True)",
    "models.IntegerField(max_length=5)",
    "models.CharField(max_length=12, primary_key=True, null=True)",
)
SOUND = ("models.CharField(max_length=80)", "models.IntegerField(default=0)", "models.DateField(null=True)",
         "models.DecimalField(max_digits=9, decimal_places=2)", "models.BooleanField(default=False)",
         "models.TextField(blank=True)")
SETTINGS = """SECRET_KEY = "insecure-fleet-portal"
DEBUG = True
ALLOWED_HOSTS = []
INSTALLED_APPS = {apps!r}
DATABASES = {{"default": {{"ENGINE": "django.db.backends.sqlite3", "NAME": "portal.sqlite3"}}}}
USE_TZ = True
"""
# Django's checks read through its API: each message's id and the label of the field it is on
READER = """import json, django
django.setup()
from django.core.checks import run_checks
out = [[m.id, "field" if hasattr(m.obj, "model") else "other",
        f"{m.obj.model._meta.label}.{m.obj.name}" if hasattr(m.obj, "model") else str(m.obj)]
       for m in run_checks(include_deployment_checks=True)]
print(json.dumps(out))
"""
ENV = {"PATH": "/usr/bin:/bin", "LC_ALL": "C.UTF-8", "PYTHONPATH": str(ROOT), "DJANGO_SETTINGS_MODULE": "portal"}


def plan(rnd: random.Random) -> dict[str, Any]:
    """The capture's record: each app's models and their fields, and which field holds which flaw."""
    models = rnd.sample(MODELS, len(MODELS))
    apps = {a: models[6 * k:6 * k + 6] for k, a in enumerate(APPS)}
    fields: dict[str, dict[str, str]] = {}
    for app, names in apps.items():
        for m in names:
            fields[f"{app}.{m}"] = {f: rnd.choice(SOUND) for f in rnd.sample(FIELDS, 4)}
    owners = list(fields)
    flawed = {}  # "app.Model.field" -> declaration
    for flaw, owner in zip(FLAWS, rnd.sample(owners, len(FLAWS)), strict=True):
        app, model = owner.split(".")
        name = next(f for f in rnd.sample(FIELDS, len(FIELDS)) if f not in fields[owner])
        other = rnd.choice([m for m in apps[app] if m != model])
        fields[owner][name] = flaw.format(other=other)
        flawed[f"{owner}.{name}"] = fields[owner][name]
    return {"apps": apps, "fields": fields, "flawed": flawed}


def write(p: dict[str, Any], root: Path) -> None:
    (root / "portal.py").write_text(SETTINGS.format(apps=list(APPS)))
    for app, names in p["apps"].items():
        (root / app).mkdir(parents=True)
        (root / app / "__init__.py").write_text("")
        body = ["import datetime  # noqa: F401", "", "from django.db import models", ""]
        for m in names:
            body += ["", f"class {m}(models.Model):"]
            body += [f"    {f} = {decl}" for f, decl in p["fields"][f"{app}.{m}"].items()]
        (root / app / "models.py").write_text("\n".join(body) + "\n")


def _asks(p: dict[str, Any], found: dict[str, str], rnd: random.Random) -> list[Ask]:
    note = ("the capture's record of the flaw it planted on that field; the check id from Django's checks "
            "framework read through its API (run_checks), not its text")
    asks = []
    for label in rnd.sample(sorted(p["flawed"]), 8):
        asks.append(Ask(f"id_{label.replace('.', '_')}", "named", "named_item", (found[label],), note,
                        (f"Which system check does the field {label} fail?",
                         f"What check id does Django report for {label}?")))
    for label in rnd.sample(sorted(p["flawed"]), 3):
        app, model, _ = label.split(".")
        asks.append(Ask(f"field_{found[label].replace('.', '_')}", "named", "named_item", (label,), note,
                        (f"Which field of {app}.{model} fails check {found[label]}?",
                         f"In the {model} model, what field does {found[label]} flag?")))
    return asks


def build(work: Path) -> list[dict[str, Any]]:
    rnd = random.Random(2502)
    p = plan(rnd)
    admin = pinned_tool(work, DJANGO, "django-admin")
    shutil.rmtree(ROOT, ignore_errors=True)
    ROOT.mkdir()
    try:
        write(p, ROOT)
        messages = json.loads(run([str(admin.parent / "python"), "-c", READER], cwd=ROOT, env=ENV).stdout)
        on_fields = [(i, label) for i, kind, label in messages if kind == "field"]
        found = {label: i for i, label in on_fields}
        assert len(found) == len(on_fields) and set(found) == set(p["flawed"]), (on_fields, p["flawed"])
        env = {**ENV, "PATH": f"{admin.parent}:/usr/bin:/bin"}
        # the checks exit 1 on errors and write to stderr; both are the output an agent reads
        commands = {"check": "django-admin check 2>&1; true", "deploy": "django-admin check --deploy 2>&1; true"}
        cases = shell_cases(SOURCE, commands, _asks(p, found, rnd), cwd=ROOT, env=env, least=12)
    finally:
        shutil.rmtree(ROOT, ignore_errors=True)
    return cases
