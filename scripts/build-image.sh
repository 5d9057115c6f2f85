#!/usr/bin/env bash
# `make image`: builds the suigw container image from the Dockerfile with podman or docker,
# whichever is installed (podman first: these machines run it; docker only with a reachable
# daemon). The name defaults to the chart's image, ghcr.io/suigw/suigw:<package.json version>
# (charts/suigw: image.repository, image.tag = appVersion); SUIGW_IMAGE overrides it.
# With podman, the base image is built locally when missing (scripts/ensure-base-image.sh: no
# registry is reachable here).
set -euo pipefail
cd "$(dirname "$0")/.."

VERSION=$(node -p 'require("./package.json").version')
IMAGE=${SUIGW_IMAGE:-ghcr.io/suigw/suigw:$VERSION}
REVISION=$(git rev-parse --short HEAD 2>/dev/null || echo unknown)

ENGINE=${CONTAINER_ENGINE:-}
if [ -z "$ENGINE" ]; then
  if command -v podman >/dev/null; then
    ENGINE=podman
  elif command -v docker >/dev/null && docker info >/dev/null 2>&1; then
    ENGINE=docker
  else
    echo "make image: no container engine (podman, or docker with a running daemon); on Debian: scripts/ensure-podman.sh" >&2
    exit 2
  fi
fi

build_flags=()
if [ "$ENGINE" = podman ]; then
  scripts/ensure-base-image.sh
  # Builds reach the npm registry through the host's network (no CNI setup needed).
  build_flags+=(--network=host)
fi

echo "building $IMAGE with $ENGINE (revision $REVISION)" >&2
"$ENGINE" build "${build_flags[@]}" \
  --build-arg VERSION="$VERSION" --build-arg REVISION="$REVISION" \
  --tag "$IMAGE" .
size=$("$ENGINE" image inspect --format '{{.Size}}' "$IMAGE")
echo "built $IMAGE: $((size / 1000000)) MB" >&2
