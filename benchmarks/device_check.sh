#!/usr/bin/env bash
# Issue 26's checks on a lent GPU machine, in one run of at most ~8 minutes:
#   (a) benchmarks/proxy_scaling.py for --workers 1,2,4,8,16 (req/s, /health p99, where
#       the load generator saturates);
#   (b) benchmarks/first_request.py on CUDA: `headroom proxy --llmlingua --llmlingua-device
#       cuda` with a tiny LLMLingua-2-shaped model built here; the 1st and 10th request's times.
# Everything goes under $OUT (summary.txt, *.json, *.txt). Run from the repository root
# with the venv `make setup-all` built:   OUT=/tmp/out bash benchmarks/device_check.sh
# Knobs (for a small local run): PY, SCALING_WORKERS, SCALING_DURATION, GEN_PROCS,
# FAKE_WORKERS, FIRST_REQUEST_DEVICE (cuda by default; "cpu" runs (b) on the CPU).
set -u
cd "$(dirname "$0")/.."
OUT=${OUT:-$(mktemp -d)}
mkdir -p "$OUT"
PY=${PY:-.venv/bin/python}
CORES=$(nproc)
SCALING_WORKERS=${SCALING_WORKERS:-1,2,4,8,16}
SCALING_DURATION=${SCALING_DURATION:-10}
GEN_PROCS=${GEN_PROCS:-$(( CORES / 4 > 0 ? CORES / 4 : 1 ))}
FAKE_WORKERS=${FAKE_WORKERS:-$(( CORES / 4 > 0 ? CORES / 4 : 1 ))}
export PYTHONPATH="$PWD${PYTHONPATH:+:$PYTHONPATH}" HF_HUB_OFFLINE=1 TRANSFORMERS_OFFLINE=1
SUMMARY="$OUT/summary.txt"
log() { echo "$*" | tee -a "$SUMMARY"; }

log "== device_check $(date -u +%FT%TZ) commit $(git rev-parse --short HEAD 2>/dev/null || echo '?')"
log "cores (nproc): $CORES; python: $($PY -c 'import sys; print(sys.version.split()[0])')"
CUDA=$($PY - <<'PY' 2>/dev/null
try:
    import torch
    ok = torch.cuda.is_available()
    print(f"{ok} torch {torch.__version__} {torch.cuda.get_device_name(0) if ok else '(no CUDA device)'}")
except Exception as exc:  # torch missing or broken
    print(f"False no torch ({type(exc).__name__}: {exc})")
PY
)
log "torch.cuda.is_available(): ${CUDA:-False (the check itself failed)}"
nvidia-smi --query-gpu=name,memory.total,memory.used --format=csv,noheader 2>/dev/null | sed 's/^/gpu: /' | tee -a "$SUMMARY"

log "== (a) proxy_scaling: workers $SCALING_WORKERS, ${SCALING_DURATION} s each, $GEN_PROCS generator procs, $FAKE_WORKERS fake procs"
timeout 330 "$PY" benchmarks/proxy_scaling.py --workers "$SCALING_WORKERS" --duration "$SCALING_DURATION" \
    --gen-procs "$GEN_PROCS" --fake-workers "$FAKE_WORKERS" --json "$OUT/proxy_scaling.json" \
    > "$OUT/proxy_scaling.txt" 2>&1
log "exit $?"; grep -E "^(usable|direct|workers)" "$OUT/proxy_scaling.txt" | tee -a "$SUMMARY"
tail -n 20 "$OUT/proxy_scaling.txt" > "$OUT/proxy_scaling.tail.txt"

DEVICE=${FIRST_REQUEST_DEVICE:-cuda}
if [ "$DEVICE" = cuda ] && [ "${CUDA%% *}" != True ]; then
    log "== (b) first request on CUDA: skipped (torch.cuda.is_available() is not True)"
else
    log "== (b) first request with LLMLingua-2 on $DEVICE (tiny model built here), 10 requests"
    timeout 150 "$PY" benchmarks/first_request.py --device "$DEVICE" --requests 10 \
        --json "$OUT/first_request_$DEVICE.json" > "$OUT/first_request_$DEVICE.txt" 2>&1
    log "exit $?"; grep -E "^(request|start-up)" "$OUT/first_request_$DEVICE.txt" | tee -a "$SUMMARY"
fi
log "== done $(date -u +%FT%TZ); files in $OUT"
