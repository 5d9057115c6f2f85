#!/usr/bin/env bash
# Makes sure Debian's Prometheus is installed: `promtool check rules` / `promtool test rules`
# check the chart's alerting rules (test/metrics/alert-rules.test.ts), and the Prometheus test
# (test/metrics/prometheus.e2e.test.ts) scrapes a running stack with the real server.
set -euo pipefail

PROMETHEUS=/usr/bin/prometheus
PROMTOOL=/usr/bin/promtool
if [ -x "$PROMETHEUS" ] && [ -x "$PROMTOOL" ]; then
  exit 0
fi
echo "Prometheus is missing at $PROMETHEUS; installing Debian's package" >&2
if [ "$(id -u)" -ne 0 ]; then
  echo "installing Prometheus needs root: run 'sudo apt-get install -y prometheus' and retry" >&2
  exit 1
fi
# --no-install-recommends: the exporters the package recommends are not needed to check rules or scrape.
# Waits for a dpkg lock held by another install instead of failing at once.
install() { DEBIAN_FRONTEND=noninteractive apt-get -o DPkg::Lock::Timeout=600 install -y --no-install-recommends prometheus >/dev/null; }
install || { apt-get -o DPkg::Lock::Timeout=600 update >/dev/null && install; }
[ -x "$PROMETHEUS" ] && [ -x "$PROMTOOL" ] || { echo "Prometheus did not install at $PROMETHEUS" >&2; exit 1; }
# The package enables a system service scraping localhost:9090; the tests start their own server.
if command -v systemctl >/dev/null && systemctl is-active --quiet prometheus 2>/dev/null; then systemctl disable --now prometheus >/dev/null 2>&1 || true; fi
echo "Prometheus installed: $("$PROMTOOL" --version 2>&1 | head -1)"
