#!/usr/bin/env bash
# Makes sure nghttp2's h2load is installed: every HTTP benchmark (npm run bench) drives its load
# with it, from a process of its own (docs/benchmarks.md). Debian's package is nghttp2-client.
set -euo pipefail

if command -v "${BENCH_H2LOAD:-h2load}" >/dev/null 2>&1; then
  exit 0
fi
echo "h2load is missing; installing Debian's nghttp2-client" >&2
if [ "$(id -u)" -ne 0 ]; then
  echo "installing h2load needs root: run 'sudo apt-get install -y nghttp2-client' and retry" >&2
  exit 1
fi
DEBIAN_FRONTEND=noninteractive apt-get install -y nghttp2-client >/dev/null \
  || { apt-get update >/dev/null && DEBIAN_FRONTEND=noninteractive apt-get install -y nghttp2-client >/dev/null; }
command -v h2load >/dev/null 2>&1 || { echo "h2load did not install" >&2; exit 1; }
echo "h2load installed: $(h2load --version | head -1)"
