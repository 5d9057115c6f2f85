#!/usr/bin/env bash
# Stops `make dev` and `make test` early, with the reason, on a Node.js older than the one the
# project runs on (package.json "engines"; README "Requirements").
set -euo pipefail

REQUIRED_MAJOR=20
REQUIRED_MINOR=19
if ! command -v node >/dev/null; then
  echo "Node.js is not installed: suigw needs Node.js ${REQUIRED_MAJOR}.${REQUIRED_MINOR} or newer (20 LTS or 22+)." >&2
  exit 1
fi
version=$(node -p 'process.versions.node')
major=${version%%.*}
rest=${version#*.}
minor=${rest%%.*}
if [ "$major" -lt "$REQUIRED_MAJOR" ] || { [ "$major" -eq "$REQUIRED_MAJOR" ] && [ "$minor" -lt "$REQUIRED_MINOR" ]; }; then
  echo "Node.js $version is too old: suigw needs Node.js ${REQUIRED_MAJOR}.${REQUIRED_MINOR} or newer (20 LTS or 22+)." >&2
  echo "Install a newer Node.js (e.g. from nodejs.org or your distribution) and run the command again." >&2
  exit 1
fi
