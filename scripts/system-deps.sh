#!/usr/bin/env bash
# Install the Debian packages the tests need, only when they are missing.
set -euo pipefail
need=()
command -v redis-server >/dev/null 2>&1 || need+=(redis-server)
# nginx in front of three proxies (tests/deploy/test_replicas_nginx.py); Debian puts it in /usr/sbin.
command -v nginx >/dev/null 2>&1 || [ -x /usr/sbin/nginx ] || need+=(nginx-light)
command -v chromium >/dev/null 2>&1 || need+=(chromium)
# The sqlite3 shell: its -column, -line and -html outputs in tests/compressors.
command -v sqlite3 >/dev/null 2>&1 || need+=(sqlite3)
# Real Rust and Go source files for the code compressor's language tests
# (tests/compressors/test_code_languages.py reads /usr/share/cargo and /usr/share/gocode).
for pkg in librust-memchr-dev golang-github-pkg-errors-dev; do
  dpkg -s "$pkg" >/dev/null 2>&1 || need+=("$pkg")
done
if [ ${#need[@]} -eq 0 ]; then
  exit 0
fi
if [ "$(id -u)" != "0" ] && ! command -v sudo >/dev/null 2>&1; then
  echo "system-deps: missing ${need[*]}; install them (apt-get install ${need[*]}) or run as root" >&2
  exit 1
fi
SUDO=""; [ "$(id -u)" != "0" ] && SUDO="sudo"
echo "system-deps: installing ${need[*]}"
$SUDO apt-get update -qq
DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends "${need[@]}" >/dev/null
