#!/usr/bin/env bash
# Smoke-test the oldest and newest supported Pythons (issue 13): a venv per version with
# the `proxy` extra, then `headroom --help`, `headroom compress` and a proxy answering
# /health. Venvs are cached under .venv-smoke/<version>/ and reinstalled only when
# pyproject.toml or the constraints change (the install is editable, so code changes
# need no reinstall).
#
#   scripts/smoke.sh                      # the versions below, found under ~/.pyenv
#   SMOKE_PYTHONS="/usr/bin/python3.10" scripts/smoke.sh
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$PWD

find_python() {  # newest pyenv patch release of a minor version
  ls -d "$HOME"/.pyenv/versions/"$1".*/bin/python 2>/dev/null | sort -V | tail -1
}

if [[ -n "${SMOKE_PYTHONS:-}" ]]; then
  read -r -a PYTHONS <<<"$SMOKE_PYTHONS"
else
  PYTHONS=()
  for minor in 3.10 3.13; do  # requires-python's floor, and the newest we support
    py=$(find_python "$minor")
    if [[ -z "$py" ]]; then
      if [[ -n "${CI:-}" ]]; then echo "smoke: no Python $minor under ~/.pyenv" >&2; exit 1; fi
      echo "smoke: skipping Python $minor (not installed)"; continue
    fi
    PYTHONS+=("$py")
  done
fi

sample=$(mktemp -d)
trap 'rm -rf "$sample"' EXIT
python3 - "$sample/body.json" <<'PY'
import json, sys
log = "\n".join(f"2026-11-22T04:00:{i % 60:02d} INFO worker-{i % 7} processed batch {i} in {i % 13} ms" for i in range(300))
body = {"model": "gpt-4o", "messages": [
    {"role": "user", "content": "what failed?"},
    {"role": "assistant", "content": None, "tool_calls": [
        {"id": "c1", "type": "function", "function": {"name": "read_logs", "arguments": "{}"}}]},
    {"role": "tool", "tool_call_id": "c1", "content": log + "\n2026-11-22T04:05:00 ERROR batch 301 failed"}]}
json.dump(body, open(sys.argv[1], "w"))
PY

for py in "${PYTHONS[@]}"; do
  ver=$("$py" -c 'import sys; print(f"{sys.version_info[0]}.{sys.version_info[1]}")')
  venv="$ROOT/.venv-smoke/$ver"
  if [[ ! -x "$venv/bin/python" ]]; then "$py" -m venv "$venv"; fi
  stamp="$venv/.installed"
  if [[ ! -f "$stamp" || pyproject.toml -nt "$stamp" || constraints/cpu.txt -nt "$stamp" ]]; then
    "$venv/bin/python" -m pip install -q --upgrade pip
    "$venv/bin/python" -m pip install -q -c constraints/cpu.txt -e ".[proxy]"
    touch "$stamp"
  fi
  hr="$venv/bin/headroom"
  echo "smoke [$ver]: headroom --help"
  "$hr" --help >/dev/null
  echo "smoke [$ver]: headroom compress"
  (cd "$sample" && "$hr" compress body.json --json -o out.json >/dev/null)
  "$venv/bin/python" - "$sample/out.json" <<'PY'
import json, sys
out = json.load(open(sys.argv[1]))
text = json.dumps(out)
assert "batch 301 failed" in text and "hash=" in text, "compress did not compress"
PY
  echo "smoke [$ver]: headroom proxy + /health"
  port=$("$venv/bin/python" -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
  (cd "$sample" && exec "$hr" proxy --port "$port" --no-metrics --ccr-backend memory --log-level warning) &
  proxy_pid=$!
  ok=""
  for _ in $(seq 1 100); do
    if "$venv/bin/python" -c "import urllib.request, json, sys; r = urllib.request.urlopen('http://127.0.0.1:$port/health', timeout=1); sys.exit(0 if json.load(r)['status'] == 'ok' else 1)" 2>/dev/null; then
      ok=1; break
    fi
    sleep 0.2
  done
  kill "$proxy_pid" 2>/dev/null || true
  wait "$proxy_pid" 2>/dev/null || true
  if [[ -z "$ok" ]]; then echo "smoke [$ver]: the proxy did not answer /health" >&2; exit 1; fi
  echo "smoke [$ver]: ok"
done
