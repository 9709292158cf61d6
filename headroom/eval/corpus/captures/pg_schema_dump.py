"""``pg_dump --schema-only`` of a PostgreSQL 15 database: the DDL a migration review or an
agent reads (``CREATE TABLE`` blocks, sequences, ``ALTER TABLE ... ADD CONSTRAINT``,
``ATTACH PARTITION ... FOR VALUES``, indexes, views, functions and triggers, each after a
``-- Name: ...; Type: ...`` comment). The database holds pgbench's own schema (``pgbench
-i --partitions=6 --foreign-keys``: range-partitioned accounts, foreign keys) beside a
small shop schema created by the capture (an enum, extensions' types, check and unique
constraints, GIN and partial indexes, a view, a materialized view, a trigger function),
dumped once with owners and once ``--no-owner --no-privileges``.

Facts come from the server's catalog (``pg_get_expr``, ``pg_get_constraintdef``,
``pg_get_indexdef``, ``pg_attribute`` under ``search_path = ''``, so names are qualified
the way pg_dump writes them), never from the dump: a partition's bounds, what a foreign
key references, a check constraint, a column's default, an index's definition, the table
with the most columns. A fact is kept only where its text occurs once in the dump. Held
out (issue 33, third round): no dev source holds SQL DDL.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from ..cases import fact, make_case
from ..facts import spread
from ..questions import choose
from ._pg_runs import BIN, capture
from ._run import run

SOURCE = "pg_schema_dump"
SHOP_DDL = (
    "CREATE EXTENSION citext; CREATE EXTENSION hstore",
    "CREATE TYPE order_status AS ENUM ('pending', 'paid', 'shipped', 'cancelled', 'refunded')",
    ("CREATE TABLE customers (id bigserial PRIMARY KEY, email citext NOT NULL UNIQUE, name text NOT NULL, "
     "country char(2) NOT NULL DEFAULT 'DE', attrs hstore, created_at timestamptz NOT NULL DEFAULT now(), "
     "credit_limit numeric(12,2) CHECK (credit_limit >= 0))"),
    ("CREATE TABLE products (sku text PRIMARY KEY CHECK (sku ~ '^[A-Z]{3}-[0-9]{4}$'), title text NOT NULL, "
     "price_cents integer NOT NULL CHECK (price_cents > 0), tags text[] NOT NULL DEFAULT '{}', "
     "weight_grams integer, discontinued boolean NOT NULL DEFAULT false, search tsvector)"),
    ("CREATE TABLE orders (id bigserial PRIMARY KEY, customer_id bigint NOT NULL REFERENCES customers(id) "
     "ON DELETE RESTRICT, status order_status NOT NULL DEFAULT 'pending', placed_at timestamptz NOT NULL "
     "DEFAULT now(), shipped_at timestamptz, total_cents bigint NOT NULL DEFAULT 0, currency char(3) NOT NULL "
     "DEFAULT 'EUR', note text, "
     "CHECK (shipped_at IS NULL OR shipped_at >= placed_at))"),
    ("CREATE TABLE order_lines (order_id bigint NOT NULL REFERENCES orders(id) ON DELETE CASCADE, "
     "line_no smallint NOT NULL, sku text NOT NULL REFERENCES products(sku) ON UPDATE CASCADE, "
     "quantity integer NOT NULL CHECK (quantity BETWEEN 1 AND 999), unit_cents integer NOT NULL, "
     "PRIMARY KEY (order_id, line_no))"),
    "CREATE INDEX products_tags_gin ON products USING gin (tags)",
    "CREATE INDEX products_search_idx ON products USING gin (search)",
    "CREATE INDEX orders_open_idx ON orders (placed_at) WHERE status IN ('pending', 'paid')",
    "CREATE INDEX orders_customer_placed_idx ON orders (customer_id, placed_at DESC)",
    "CREATE UNIQUE INDEX customers_lower_name_country ON customers (lower(name), country)",
    ("CREATE VIEW open_orders AS SELECT o.id, c.email, o.placed_at, o.total_cents FROM orders o "
     "JOIN customers c ON c.id = o.customer_id WHERE o.status IN ('pending', 'paid')"),
    ("CREATE MATERIALIZED VIEW sku_sales AS SELECT l.sku, sum(l.quantity) AS units, sum(l.quantity * l.unit_cents) "
     "AS cents FROM order_lines l GROUP BY l.sku"),
    ("CREATE FUNCTION order_total_refresh() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN "
     "UPDATE orders SET total_cents = (SELECT coalesce(sum(quantity * unit_cents), 0) FROM order_lines "
     "WHERE order_id = NEW.order_id) WHERE id = NEW.order_id; RETURN NEW; END $$"),
    ("CREATE TRIGGER order_lines_total AFTER INSERT OR UPDATE ON order_lines FOR EACH ROW "
     "EXECUTE FUNCTION order_total_refresh()"),
    "COMMENT ON TABLE orders IS 'one row per checkout; totals kept by order_lines_total'",
)
CATALOG_SQL = {  # name -> query giving (subject, definition) rows, under search_path = ''
    "partition": ("SELECT c.relname, pg_get_expr(c.relpartbound, c.oid) FROM pg_class c "
                  "WHERE c.relispartition ORDER BY c.relname"),
    "foreign_key": ("SELECT conrelid::regclass || '.' || (SELECT string_agg(attname, ',') FROM pg_attribute "
                    "WHERE attrelid = conrelid AND attnum = ANY (conkey)), pg_get_constraintdef(oid) "
                    "FROM pg_constraint WHERE contype = 'f' ORDER BY 1"),
    "check": ("SELECT conrelid::regclass || ' ' || conname, pg_get_constraintdef(oid) FROM pg_constraint "
              "WHERE contype = 'c' AND connamespace = 'public'::regnamespace ORDER BY 1"),
    "default": ("SELECT a.attrelid::regclass || '.' || a.attname, pg_get_expr(d.adbin, d.adrelid) FROM pg_attrdef d "
                "JOIN pg_attribute a ON a.attrelid = d.adrelid AND a.attnum = d.adnum ORDER BY 1"),
    "index": ("SELECT indexrelid::regclass, pg_get_indexdef(indexrelid) FROM pg_index i JOIN pg_class c "
              "ON c.oid = i.indrelid WHERE c.relnamespace = 'public'::regnamespace AND NOT i.indisprimary ORDER BY 1"),
    "columns": ("SELECT c.oid::regclass, count(*) FROM pg_attribute a JOIN pg_class c ON c.oid = a.attrelid "
                "WHERE c.relnamespace = 'public'::regnamespace AND c.relkind IN ('r', 'p') AND a.attnum > 0 "
                "AND NOT a.attisdropped GROUP BY c.oid ORDER BY 1"),
}
WORDINGS = {
    "partition": ("Which key range does the partition {s} hold?", "What are the bounds of partition {s}?"),
    "foreign_key": ("What does the column {s} reference?", "Which foreign key is declared on {s}?"),
    "check": ("What does the check constraint {s} require?", "What condition does the constraint {s} enforce?"),
    "default": ("What default does the column {s} get?", "Which default expression is set on {s}?"),
    "index": ("How is the index {s} defined?", "Which columns and method does the index {s} use?"),
}


def build(work: Path) -> list[dict[str, Any]]:
    got: dict[str, Any] = {}

    def workload(psql, conn: list[str]) -> None:
        pg = ["runuser", "-u", "postgres", "--"]
        run([*pg, str(BIN / "createdb"), *conn, "-U", "postgres", "shop"])
        run([*pg, str(BIN / "pgbench"), *conn, "-U", "postgres", "-i", "-s", "1", "--partitions=6",
             "--foreign-keys", "shop"])
        for sql in SHOP_DDL:
            res = psql(sql, db="shop")
            assert res.returncode == 0 and not res.stderr.strip(), (sql, res.stderr)
        for name, sql in CATALOG_SQL.items():
            res = run([*pg, str(BIN / "psql"), *conn, "-U", "postgres", "-d", "shop", "-X", "-AtF", "\t", "-q",
                       "-c", f"SET search_path = ''; {sql}"])
            got[name] = [ln.split("\t", 1) for ln in res.stdout.splitlines() if "\t" in ln]
        dump = [*pg, str(BIN / "pg_dump"), *conn, "-U", "postgres", "--schema-only"]
        got["dump"] = run([*dump, "shop"]).stdout
        got["dump_bare"] = run([*dump, "--no-owner", "--no-privileges", "shop"]).stdout

    capture(work / "pg", "", workload)
    out = []
    for half, (dump_name, command) in enumerate((("dump", "pg_dump --schema-only shop"),
                                                 ("dump_bare", "pg_dump --schema-only --no-owner --no-privileges shop"))):
        content = got[dump_name]
        args = {"command": command}
        for name, wordings in WORDINGS.items():
            rows = [(s, d) for s, d in got[name] if len(d) >= 8 and content.count(d) == 1]
            # Each dump is asked about every other object, so the two share no question.
            for subject, definition in spread(rows[half::2], 2):
                sid = f"{dump_name}_{name}_{subject.replace('.', '_').replace(' ', '_')}"
                q = choose(f"{SOURCE}/{sid}", wordings).format(s=subject)
                if definition in q:
                    continue
                out.append(make_case(SOURCE, sid, "text", "bash", args, "named", q, content,
                                     [fact(definition, "named_item", f"catalog: {name} of {subject}",
                                           basis="independent")]))
        widest = sorted(((int(n), t) for t, n in got["columns"]), reverse=True)
        if len(widest) > 1 and widest[0][0] > widest[1][0]:
            line = f"CREATE TABLE {widest[0][1] if '.' in widest[0][1] else 'public.' + widest[0][1]} ("
            if content.count(line) == 1:
                sid = f"{dump_name}_widest_table"
                out.append(make_case(SOURCE, sid, "text", "bash", args, "extreme",
                                     choose(f"{SOURCE}/{sid}", ("Which table in this schema has the most columns?",
                                                                "What is the widest table in the dump?")),
                                     content, [fact(line, "extreme", "catalog: pg_attribute column counts",
                                                    basis="independent")]))
    assert len(out) >= 10, f"too few pg_schema_dump cases: {len(out)}"
    return out
