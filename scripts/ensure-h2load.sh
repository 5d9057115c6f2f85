#!/usr/bin/env bash
# Makes sure nghttp2's h2load is installed: every HTTP benchmark (npm run bench) drives its load
# with it, from a process of its own (docs/benchmarks.md). Debian's package is nghttp2-client;
# nghttp2-server adds nghttpd, the C server bench/latency-floor.ts measures beside Node.
set -euo pipefail

missing=()
command -v "${BENCH_H2LOAD:-h2load}" >/dev/null 2>&1 || missing+=(nghttp2-client)
command -v "${BENCH_NGHTTPD:-nghttpd}" >/dev/null 2>&1 || [ -x /usr/sbin/nghttpd ] || missing+=(nghttp2-server)
if [ "${#missing[@]}" -eq 0 ]; then
  exit 0
fi
echo "installing Debian's ${missing[*]} (h2load, nghttpd)" >&2
if [ "$(id -u)" -ne 0 ]; then
  echo "installing them needs root: run 'sudo apt-get install -y ${missing[*]}' and retry" >&2
  exit 1
fi
DEBIAN_FRONTEND=noninteractive apt-get install -y "${missing[@]}" >/dev/null \
  || { apt-get update >/dev/null && DEBIAN_FRONTEND=noninteractive apt-get install -y "${missing[@]}" >/dev/null; }
command -v h2load >/dev/null 2>&1 || { echo "h2load did not install" >&2; exit 1; }
command -v nghttpd >/dev/null 2>&1 || [ -x /usr/sbin/nghttpd ] || { echo "nghttpd did not install" >&2; exit 1; }
echo "installed ${missing[*]}: $(h2load --version | head -1)"
