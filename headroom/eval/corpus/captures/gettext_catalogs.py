"""gettext catalogues: GNU gettext's ``msgunfmt`` (a compiled ``.mo`` catalogue decompiled
back to PO text: header, then ``msgid``/``msgstr`` pairs sorted by key, plural forms as
``msgstr[0]``/``msgstr[1]``, ``msgctxt`` where a message has a context) of two catalogues
the capture writes and compiles with ``msgfmt`` (~260 messages each), and ``msgfmt
--statistics`` over the PO files of 34 locales (one line per file: translated, fuzzy and
untranslated counts).

The messages are alike (a shop daemon's status and error strings, "translated" word by word
from a small glossary) except for a few: one word that reads two ways in two contexts, plural
messages, one translation far longer than the rest; among the locales, one fully translated,
one with far the most fuzzy entries, one with far the most untranslated. Facts come from
Python's ``gettext.GNUTranslations`` reading the compiled ``.mo`` files (another reader) and
the capture's record of the PO files it wrote, never from the tools' text: the answer is a
translation, a message id, or a PO file's path. Held out (issue 33, ninth round): no dev
source holds message catalogues.
"""

from __future__ import annotations

import gettext
import random
from pathlib import Path
from typing import Any

from ._asked import Ask, Output, asked_cases
from ._run import run

SOURCE = "gettext_catalogs"
ENV = {"PATH": "/usr/bin:/bin", "LC_ALL": "C.UTF-8", "TZ": "UTC"}
HEADER = ('msgid ""\nmsgstr ""\n"Project-Id-Version: shopd 3.8\\n"\n"Language: {lang}\\n"\n'
          '"Last-Translator: {who}\\n"\n"Content-Type: text/plain; charset=UTF-8\\n"\n'
          '"Plural-Forms: nplurals=2; plural=(n != 1);\\n"\n\n')
NOUNS = {"order": ("Bestellung", "commande"), "cart": ("Warenkorb", "panier"), "coupon": ("Gutschein", "bon"),
         "invoice": ("Rechnung", "facture"), "refund": ("Erstattung", "remboursement"),
         "parcel": ("Paket", "colis"), "payment": ("Zahlung", "paiement"), "address": ("Adresse", "adresse"),
         "stock level": ("Lagerbestand", "niveau de stock"), "review": ("Bewertung", "avis"),
         "shipment": ("Sendung", "envoi"), "voucher": ("Beleg", "justificatif"), "customer": ("Kunde", "client")}
PHRASES = {"The {n} %s could not be saved": ("{N} %s konnte nicht gespeichert werden",
                                              "{N} %s n'a pas pu être enregistré"),
           "The {n} was updated": ("{N} wurde aktualisiert", "{N} a été mis à jour"),
           "Delete this {n}?": ("{N} löschen?", "Supprimer {N} ?"),
           "No {n} found for %s": ("Kein {N} für %s gefunden", "Aucun {N} trouvé pour %s"),
           "The {n} is locked by %s": ("{N} ist durch %s gesperrt", "{N} est verrouillé par %s"),
           "Export {n} list": ("{N}liste exportieren", "Exporter la liste {N}"),
           "The {n} expired on %s": ("{N} ist am %s abgelaufen", "{N} a expiré le %s"),
           "Sync {n} %d of %d": ("{N} %d von %d synchronisieren", "Synchroniser {N} %d sur %d"),
           "Retry the {n}": ("{N} erneut versuchen", "Réessayer {N}"),
           "The {n} is pending review": ("{N} wartet auf Prüfung", "{N} en attente de vérification"),
           "Archive old {n} records": ("Alte {N}datensätze archivieren", "Archiver les anciens {N}"),
           "Copy {n} reference": ("{N}referenz kopieren", "Copier la référence {N}"),
           "The {n} total changed": ("Die {N}summe hat sich geändert", "Le total {N} a changé"),
           "Merge duplicate {n} entries": ("Doppelte {N}einträge zusammenführen", "Fusionner les {N} en double"),
           "The {n} limit was reached": ("Das {N}limit wurde erreicht", "La limite {N} est atteinte"),
           "Print {n} label": ("{N}etikett drucken", "Imprimer l'étiquette {N}"),
           "Assign {n} to %s": ("{N} %s zuweisen", "Attribuer {N} à %s"),
           "The {n} was restored": ("{N} wurde wiederhergestellt", "{N} a été restauré"),
           "Hide {n} details": ("{N}details ausblenden", "Masquer les détails {N}"),
           "Pin {n} to the dashboard": ("{N} an das Dashboard heften", "Épingler {N} au tableau de bord")}
# msgunfmt sorts entries by context and id: the asked ones start upper-case so they fall among the rest.
PLURALS = {("One parcel is on its way", "%d parcels are on their way"):
           (("%d Paket ist unterwegs", "%d Pakete sind unterwegs"), ("%d colis est en route", "%d colis sont en route")),
           ("%d coupon expires today", "%d coupons expire today"):
           (("%d Gutschein läuft heute ab", "%d Gutscheine laufen heute ab"),
            ("%d bon expire aujourd'hui", "%d bons expirent aujourd'hui"))}
CONTEXTS = {("Shop status", "Open"): ("Geöffnet", "Ouvert"), ("File menu", "Open"): ("Öffnen", "Ouvrir")}
LONG = ("Payment pending", (("Die Zahlung wurde vom Zahlungsdienstleister angenommen, aber noch nicht "
                             "bestätigt; bitte warten Sie, bevor Sie die Bestellung erneut absenden"),
                            ("Le paiement a été accepté par le prestataire mais pas encore confirmé ; veuillez "
                             "patienter avant de renvoyer la commande")))
LANGS = {"de": (0, "Jonas Keller <jonas@l10n.example>"), "fr": (1, "Camille Roux <camille@l10n.example>")}
LOCALES = ("af", "ar", "bg", "ca", "cs", "da", "de", "el", "es", "et", "eu", "fa", "fi", "fr", "gl", "he", "hr",
           "hu", "id", "it", "ja", "ko", "lt", "lv", "nb", "nl", "pl", "pt_BR", "ro", "ru", "sk", "sv", "tr", "uk")
NAMED = {"parcel_updated": "The parcel was updated", "invoice_locked": "The invoice is locked by %s"}
ODD_LOCALES = {"complete": "po/hu.po", "fuzziest": "po/id.po", "sparsest": "po/fa.po"}


def _quoted(text: str) -> str:
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"') + '"'


def messages(lang: int) -> dict[tuple[str | None, str], str | tuple[str, str]]:
    """(context, msgid) -> translation (a pair for plural messages), in one language."""
    out: dict[tuple[str | None, str], str | tuple[str, str]] = {}
    for noun, names in NOUNS.items():
        for en, tr in PHRASES.items():
            out[(None, en.format(n=noun))] = tr[lang].format(N=names[lang])
    for (one, many), tr in PLURALS.items():
        out[(None, one + "\0" + many)] = tr[lang]
    for key, tr in CONTEXTS.items():
        out[key] = tr[lang]
    out[(None, LONG[0])] = LONG[1][lang]
    return out


def write_po(path: Path, lang: str, who: str, entries, fuzzy: set[str] = frozenset(), blank: set[str] = frozenset()):
    parts = [HEADER.format(lang=lang, who=who)]
    for (ctx, msgid), tr in entries.items():
        flag = "#, fuzzy\n" if msgid in fuzzy else ""
        head = f"msgctxt {_quoted(ctx)}\n" if ctx else ""
        if "\0" in msgid:
            one, many = msgid.split("\0")
            forms = ("", "") if msgid in blank else tr
            parts.append(f"{flag}{head}msgid {_quoted(one)}\nmsgid_plural {_quoted(many)}\n"
                         f"msgstr[0] {_quoted(forms[0])}\nmsgstr[1] {_quoted(forms[1])}\n\n")
        else:
            parts.append(f"{flag}{head}msgid {_quoted(msgid)}\nmsgstr {_quoted('' if msgid in blank else tr)}\n\n")
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("".join(parts), encoding="utf-8")


def catalogue_roles(mo: Path) -> dict[str, Any]:
    """What ``gettext`` reads from a compiled catalogue."""
    with mo.open("rb") as fh:
        cat = gettext.GNUTranslations(fh)
    longest = max((m for m in messages(0) if m[0] is None and "\0" not in m[1]), key=lambda m: len(cat.gettext(m[1])))
    return {**{key: cat.gettext(msgid) for key, msgid in NAMED.items()}, "longest": longest[1],
            "status_open": cat.pgettext("Shop status", "Open"), "menu_open": cat.pgettext("File menu", "Open"),
            "many_parcels": cat.ngettext("One parcel is on its way", "%d parcels are on their way", 5),
            "translator": cat.info()["last-translator"]}


def write_locales(root: Path) -> dict[str, Any]:
    """34 PO files with a seeded share of fuzzy and empty entries; the record of each."""
    rnd = random.Random(95)
    entries = messages(0)
    ids = [m for _, m in entries]
    record = {}
    for loc in LOCALES:
        path = f"po/{loc}.po"
        n_fuzzy, n_blank = rnd.randint(1, 12), rnd.randint(1, 25)
        n_fuzzy = {ODD_LOCALES["complete"]: 0, ODD_LOCALES["fuzziest"]: 61}.get(path, n_fuzzy)
        n_blank = {ODD_LOCALES["complete"]: 0, ODD_LOCALES["sparsest"]: 140}.get(path, n_blank)
        chosen = rnd.sample(ids, n_fuzzy + n_blank)
        write_po(root / path, loc, "shopd l10n team", entries, set(chosen[:n_fuzzy]), set(chosen[n_fuzzy:]))
        record[path] = (n_fuzzy, n_blank)
    return record


def _asks(cats: dict[str, dict[str, Any]], record: dict[str, tuple[int, int]]) -> list[Ask]:
    names = {"de": "German", "fr": "French"}

    def in_lang(key: str):
        return lambda output: (cats[output][key],) if output in cats else ()

    asks = []
    for out, lang in names.items():
        asks += [
            Ask("status_open", "named", "named_item", in_lang("status_open"), "gettext: pgettext('Shop status')",
                (f"What's the {lang} for 'Open' when it means the shop is open?",
                 f"How is the shop-status 'Open' translated into {lang}?"), (out,)),
            Ask("menu_open", "named", "named_item", in_lang("menu_open"), "gettext: pgettext('File menu')",
                (f"How is 'Open' in the file menu translated into {lang}?", f"{lang} for the menu item 'Open'?"),
                (out,)),
            Ask("plural", "named", "named_item", in_lang("many_parcels"), "gettext: ngettext(..., 5)",
                (f"What does the {lang} catalogue say for several parcels on their way?",
                 f"What's the {lang} plural form of the parcels-on-their-way message?"), (out,)),
            *(Ask(f"named_{key}", "named", "named_item", in_lang(key), "gettext: gettext(msgid)",
                  (f"What's the {lang} translation of '{msgid}'?", f"How does the {lang} catalogue render '{msgid}'?"),
                  (out,)) for key, msgid in NAMED.items()),
            Ask("longest", "extreme", "extreme", in_lang("longest"), "gettext: the msgid with the longest translation",
                ("Which message has by far the longest translation?", "Which msgid's translation is the longest?"),
                (out,)),
        ]
    fuzzy = max(record, key=lambda p: record[p][0])
    sparse = max(record, key=lambda p: record[p][1])
    complete = [p for p, (f, b) in record.items() if f == b == 0]
    asks += [
        Ask("most_fuzzy", "extreme", "extreme", (fuzzy,), "the capture's record: the most fuzzy entries",
            ("Which locale has the most fuzzy translations?", "Which catalogue needs the most fuzzy review?"),
            ("statistics",)),
        Ask("most_untranslated", "extreme", "extreme", (sparse,), "the capture's record: the most empty entries",
            ("Which locale is missing the most translations?", "Which .po file is least translated?"),
            ("statistics",)),
        Ask("complete", "named", "named_item", tuple(complete), "the capture's record: no fuzzy or empty entries",
            ("Is any locale fully translated? Which?", "Which catalogue has nothing fuzzy or untranslated?"),
            ("statistics",)),
    ]
    return asks


def build(work: Path) -> list[dict[str, Any]]:
    cats, outputs = {}, {}
    for code, (lang, who) in LANGS.items():
        po, mo = work / f"{code}.po", work / code / "LC_MESSAGES" / "shopd.mo"
        write_po(po, code, who, messages(lang))
        mo.parent.mkdir(parents=True)
        run(["msgfmt", "-c", "-o", str(mo), str(po)], env=ENV)
        cats[code] = catalogue_roles(mo)
        assert cats[code]["translator"] == who and cats[code]["status_open"] != cats[code]["menu_open"]
        command = f"msgunfmt {code}/LC_MESSAGES/shopd.mo"
        outputs[code] = Output({"command": command}, "text", run(["msgunfmt", str(mo.relative_to(work))],
                                                                   cwd=work, env=ENV).stdout)
    record = write_locales(work)
    assert ODD_LOCALES == {
        "complete": next(p for p, r in record.items() if r == (0, 0)),
        "fuzziest": max(record, key=lambda p: record[p][0]), "sparsest": max(record, key=lambda p: record[p][1])}
    loop = "for po in po/*.po; do printf '%s: ' \"$po\"; msgfmt --statistics -o /dev/null \"$po\"; done 2>&1"
    stats = run(["bash", "-c", loop], cwd=work, env=ENV).stdout
    outputs["statistics"] = Output({"command": loop}, "text", stats)
    out = asked_cases(SOURCE, outputs, _asks(cats, record))
    assert len(out) >= 12, f"too few {SOURCE} cases: {len(out)}"
    return out
