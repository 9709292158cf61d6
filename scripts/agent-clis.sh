#!/usr/bin/env bash
# Install the pinned coding-agent CLIs the real-agent tests run (tests/agents/) into
# .agent-clis/ (git-ignored). Skipped when both are already there at these versions.
set -euo pipefail
cd "$(dirname "$0")/.."
CLAUDE_CODE=2.1.328
CODEX=0.169.0
prefix=.agent-clis
have() {  # package version
  local pj="$prefix/node_modules/$1/package.json"
  [ -f "$pj" ] && grep -q "\"version\": \"$2\"" "$pj"
}
if have @anthropic-ai/claude-code "$CLAUDE_CODE" && have @openai/codex "$CODEX"; then
  exit 0
fi
if ! command -v npm >/dev/null 2>&1; then
  echo "agent-clis: npm not found; install Node.js (>= 20) to run the real-agent tests" >&2
  exit 1
fi
echo "agent-clis: installing @anthropic-ai/claude-code@$CLAUDE_CODE @openai/codex@$CODEX into $prefix"
npm install --prefix "$prefix" --no-audit --no-fund --loglevel=error \
  "@anthropic-ai/claude-code@$CLAUDE_CODE" "@openai/codex@$CODEX"
