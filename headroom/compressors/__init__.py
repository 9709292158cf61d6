"""Per-content compressors: pure ``CompressInput -> Compressed | None`` functions of one
tool output (JSON, logs, search hits, diffs, code, HTML, prose, LLMLingua-2). The
ContentRouter (``headroom.transforms.router``) picks one per block and owns CCR, markers,
the memo, deadlines and "never worse"."""
