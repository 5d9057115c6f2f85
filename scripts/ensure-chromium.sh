#!/usr/bin/env bash
# Makes sure Debian's Chromium is installed: the browser CORS test (test/e2e/browser-cors.test.ts)
# drives it headless through playwright-core. Playwright's own browser download does not work
# on these machines, so the distribution's package is used.
set -euo pipefail

CHROMIUM=/usr/bin/chromium
if [ -x "$CHROMIUM" ]; then
  exit 0
fi
echo "Chromium is missing at $CHROMIUM; installing Debian's package" >&2
if [ "$(id -u)" -ne 0 ]; then
  echo "installing Chromium needs root: run 'sudo apt-get install -y chromium' and retry" >&2
  exit 1
fi
DEBIAN_FRONTEND=noninteractive apt-get install -y chromium >/dev/null \
  || { apt-get update >/dev/null && DEBIAN_FRONTEND=noninteractive apt-get install -y chromium >/dev/null; }
[ -x "$CHROMIUM" ] || { echo "Chromium did not install at $CHROMIUM" >&2; exit 1; }
echo "Chromium installed: $("$CHROMIUM" --version 2>/dev/null || echo "$CHROMIUM")"
