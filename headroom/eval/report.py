"""Reports from a results document: results.json, report.md, report.html, PNG plots.

The markdown and HTML are built from the same table rows, so they always agree. The
HTML embeds its plots as data URIs: one file to attach to a release or a PR.
"""

from __future__ import annotations

import base64
import html
import json
from pathlib import Path
from typing import Any

RESULTS_FILE = "results.json"


def save_results(results: dict[str, Any], out_dir: str | Path) -> Path:
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    path = out / RESULTS_FILE
    path.write_text(json.dumps(results, indent=1, sort_keys=False))
    return path


def load_results(path: str | Path) -> dict[str, Any]:
    p = Path(path)
    if p.is_dir():
        p = p / RESULTS_FILE
    if not p.exists():
        raise FileNotFoundError(f"no {RESULTS_FILE} at {p} (run `headroom eval run --out DIR` first)")
    return json.loads(p.read_text())


def _pct(x: float) -> str:
    return f"{100 * x:.1f}%"


def _retention(s: dict[str, Any]) -> list[str]:
    """In view and recoverable only, as share and count; then lost facts."""
    return [f"{_pct(s['in_view_retention'])} ({s['kept']})", f"{_pct(s['recoverable_only'])} ({s['recoverable']})",
            str(s["lost"])]


# -- tables (rows of strings) ----------------------------------------------------------
Table = tuple[list[str], list[list[str]]]


def config_table(results: dict[str, Any]) -> Table:
    head = ["config", "status", "cases", "tokens before", "tokens after", "savings", "in view",
            "recoverable only", "lost", "median ms", "p95 ms", "never worse"]
    rows = []
    for c in results.get("configs", []):
        s = results.get("summary", {}).get(c["name"], {}).get("overall")
        if c["status"] != "ok" or not s:
            rows.append([c["name"], f"skipped: {c.get('reason') or 'no cases'}"] + [""] * (len(head) - 2))
            continue
        rows.append([c["name"], f"ok ({c['label']})" if c.get("label") else "ok", str(s["cases"]), f"{s['tokens_before']:,}", f"{s['tokens_after']:,}",
                     _pct(s["savings"]), *_retention(s), f"{s['latency_ms_median']:.1f}", f"{s['latency_ms_p95']:.1f}",
                     "yes" if s["never_worse"] else "NO"])
    return head, rows


def family_table(results: dict[str, Any], config: str) -> Table:
    head = ["family", "cases", "tokens before", "tokens after", "savings", "in view", "recoverable only", "lost",
            "median ms"]
    rows = []
    for fam, s in sorted(results["summary"][config]["families"].items()):
        rows.append([fam, str(s["cases"]), f"{s['tokens_before']:,}", f"{s['tokens_after']:,}", _pct(s["savings"]),
                     *_retention(s), f"{s['latency_ms_median']:.1f}"])
    return head, rows


def split_table(results: dict[str, Any], config: str) -> Table:
    """The real-output corpus, one line per split (held-out sources on their own line)."""
    head = ["corpus split", "cases", "tokens before", "tokens after", "savings", "in view", "recoverable only", "lost"]
    rows = [[k, str(s["cases"]), f"{s['tokens_before']:,}", f"{s['tokens_after']:,}", _pct(s["savings"]), *_retention(s)]
            for k, s in results["summary"][config].get("corpus_splits", {}).items()]
    return head, rows


def kind_table(results: dict[str, Any], config: str) -> Table:
    head = ["fact kind", "cases", "evidence", "in view", "recoverable only", "lost"]
    rows = [[k, str(s["cases"]), str(s["evidence"]), *_retention(s)]
            for k, s in results["summary"][config].get("probe_kinds", {}).items()]
    return head, rows


def transform_table(results: dict[str, Any], config: str) -> Table:
    head = ["transform", "compressed/changed", "kept", "skipped", "tokens saved", "total ms", "strategies"]
    rows = []
    for name, s in results["summary"][config]["transforms"].items():
        changed = sum(s.get(k, 0) for k in ("compressed", "moved", "shrunk", "dropped", "expanded"))
        via = ", ".join(f"{k[4:]} ×{int(v)}" for k, v in sorted(s.items()) if k.startswith("via "))
        rows.append([name, str(int(changed)), str(int(s.get("kept", 0))), str(int(s.get("skipped", 0))),
                     f"{int(s.get('tokens_saved', 0)):,}", f"{s.get('duration_ms', 0):.0f}", via])
    return head, rows


def lost_table(results: dict[str, Any], limit: int = 30) -> Table:
    head = ["config", "scenario", "format", "question", "lost evidence"]
    rows = [[c["config"], c["scenario"], c["format"], c["question"], ", ".join(c["lost_strings"]) or (c.get("error") or "")]
            for c in results.get("cases", []) if c["lost"] or c.get("error")]
    return head, rows[:limit] or [["(none)", "", "", "", ""]]


def llm_table(results: dict[str, Any]) -> Table:
    """Accuracy per arm, original first; deltas only mean something for a competent reader."""
    llm = results.get("llm", {})
    competent = llm.get("reader_competent", True)
    head = ["arm", "n", "exact", "contains", "token F1", "Δ contains vs original (95% CI)", "prompt tokens",
            "retrieve calls", "errors", "cost $"]
    rows = []
    for arm, s in llm.get("arms", {}).items():
        d = s.get("delta_contains")
        delta = "" if d is None else f"{100 * d['mean']:+.1f} pts [{100 * d['lo']:+.1f}, {100 * d['hi']:+.1f}]"
        if delta and not competent:
            delta += " (reader not competent)"
        rows.append([arm, str(s["n"]), _pct(s["exact"]), _pct(s["contains"]), f"{s['f1']:.3f}", delta,
                     f"{s['prompt_tokens']:,}", str(s.get("retrieve_calls", 0)), str(s.get("errors", 0)),
                     f"{s.get('cost_usd', 0.0):.4f}"])
    return head, rows


def reader_headline(results: dict[str, Any]) -> str:
    """The first thing a reader-backed report says: can this reader answer from the originals?"""
    llm = results["llm"]
    acc, floor = llm.get("original_accuracy", 0.0), llm.get("competence_floor", 0.7)
    verdict = ("competent: the deltas below measure compression" if llm.get("reader_competent")
               else f"reader not competent (below the {_pct(floor)} floor): the deltas below are not evidence about "
                    "compression and the gate ignores them")
    return f"Original-context accuracy of {llm.get('model', 'the reader')}: **{_pct(acc)}** — {verdict}."


def reader_gate_line(results: dict[str, Any]) -> str | None:
    """A report's first line when the reader failed its competence floor: the gate's
    ``min_reader_delta`` was then not applied, and nothing below should be read as if it were."""
    llm = results.get("llm")
    if not llm or llm.get("reader_competent"):
        return None
    return (f"READER NOT COMPETENT: original-context accuracy {_pct(llm.get('original_accuracy', 0.0))} < "
            f"{_pct(llm.get('competence_floor', 0.7))} floor, so the gate did not apply min_reader_delta.")


def skipped_table(results: dict[str, Any]) -> Table:
    """What was not judged: skipped configurations, corpus cases and facts the loader left out."""
    head = ["what", "why"]
    rows = [[f"configuration {c['name']}", f"skipped: {c.get('reason')}"]
            for c in results.get("configs", []) if c["status"] != "ok"]
    meta = results.get("meta", {})
    rows += [["corpus case " + r.split(":", 1)[0], "rejected: " + r.split(":", 1)[1].strip()]
             for r in meta.get("corpus_rejected_cases", [])]
    rows += [[f"facts of {cid}", "dropped, also outside the tool output: " + ", ".join(facts)]
             for cid, facts in meta.get("corpus_dropped_facts", {}).items()]
    return head, rows


def markdown(table: Table) -> str:
    head, rows = table
    lines = ["| " + " | ".join(head) + " |", "|" + "|".join("---" for _ in head) + "|"]
    lines += ["| " + " | ".join(c.replace("|", "\\|") for c in r) + " |" for r in rows]
    return "\n".join(lines)


def _html_table(table: Table) -> str:
    head, rows = table
    th = "".join(f"<th>{html.escape(h)}</th>" for h in head)
    body = "".join("<tr>" + "".join(f"<td>{html.escape(c)}</td>" for c in r) + "</tr>" for r in rows)
    return f"<table><thead><tr>{th}</tr></thead><tbody>{body}</tbody></table>"


def _sections(results: dict[str, Any]) -> list[tuple[str, Table]]:
    out: list[tuple[str, Table]] = []
    if results.get("llm"):  # a reader-backed run leads with the reader's accuracy
        out.append((f"Reader accuracy — {results['llm'].get('model', '')}", llm_table(results)))
    if results.get("configs"):
        out.append(("Configurations", config_table(results)))
        if skipped_table(results)[1]:
            out.append(("Not judged", skipped_table(results)))
        for name in results.get("summary", {}):
            out.append((f"Per family — {name}", family_table(results, name)))
            if results["summary"][name].get("corpus_splits"):
                out.append((f"Real-output corpus per split — {name}", split_table(results, name)))
            out.append((f"Per fact kind — {name}", kind_table(results, name)))
            out.append((f"Per transform — {name}", transform_table(results, name)))
        out.append(("Lost evidence (first 30)", lost_table(results)))
    return out


def _meta_line(results: dict[str, Any]) -> str:
    m = results.get("meta", {})
    return (f"headroom {m.get('headroom_version', '?')}, Python {m.get('python', '?')}, device {m.get('device', '?')}, "
            f"{m.get('scenarios', '?')} scenarios × formats {', '.join(m.get('formats', []))}, "
            f"started {m.get('started', '?')}, compression took {m.get('duration_s', '?')} s"
            + (f", the reader {llm['duration_s']} s" if isinstance(llm := results.get("llm"), dict)
               and "duration_s" in llm else ""))


def render_markdown(results: dict[str, Any], plots: list[Path] | None = None) -> str:
    first = reader_gate_line(results)
    parts = [*([first, ""] if first else []), "# headroom eval report", "", _meta_line(results), ""]
    if results.get("llm"):
        parts += [reader_headline(results), ""]
    for title, table in _sections(results):
        parts += [f"## {title}", "", markdown(table), ""]
    for p in plots or []:
        parts += [f"![{p.stem}]({p.name})", ""]
    return "\n".join(parts)


_CSS = ("body{font-family:system-ui,sans-serif;margin:2em;color:#222}table{border-collapse:collapse;margin:1em 0}"
        "td,th{border:1px solid #ccc;padding:4px 8px;text-align:right}td:first-child,th:first-child{text-align:left}"
        "th{background:#f3f3f3}img{max-width:900px;display:block;margin:1em 0}")


def render_html(results: dict[str, Any], plots: list[Path] | None = None) -> str:
    head = (f"<!DOCTYPE html><html><head><meta charset='utf-8'><title>headroom eval report</title><style>{_CSS}</style>"
            "</head><body><h1>headroom eval report</h1>")
    first = reader_gate_line(results)
    parts = [head, *([f"<p><strong>{html.escape(first)}</strong></p>"] if first else []),
             f"<p>{html.escape(_meta_line(results))}</p>"]
    if results.get("llm"):
        parts.append(f"<p>{html.escape(reader_headline(results)).replace('**', '')}</p>")
    for title, table in _sections(results):
        parts.append(f"<h2>{html.escape(title)}</h2>{_html_table(table)}")
    for p in plots or []:
        data = base64.b64encode(p.read_bytes()).decode()
        parts.append(f"<h2>{html.escape(p.stem)}</h2><img alt='{html.escape(p.stem)}' src='data:image/png;base64,{data}'>")
    parts.append("</body></html>")
    return "\n".join(parts)


def write_reports(results: dict[str, Any], out_dir: str | Path, *, plots: bool = True) -> dict[str, Path]:
    """Write report.md, report.html and (when matplotlib is installed) the PNG plots."""
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    written: dict[str, Path] = {}
    pngs: list[Path] = []
    if plots and results.get("summary"):
        from .plots import plot_all

        pngs = plot_all(results, out)
        written.update({p.stem: p for p in pngs})
    md = out / "report.md"
    md.write_text(render_markdown(results, pngs))
    page = out / "report.html"
    page.write_text(render_html(results, pngs))
    written.update(markdown=md, html=page)
    return written
