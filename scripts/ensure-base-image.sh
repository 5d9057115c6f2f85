#!/usr/bin/env bash
# Makes sure podman has the Dockerfile's base image, node:20-bookworm-slim. No registry is
# reachable from these machines, so when the image is missing it is built here the way
# /work/shared/NOTES.md describes: a minimal Debian bookworm (debootstrap) plus this machine's
# Node 20 and npm, its CA bundle, and an npmrc pointing npm at that bundle (npm inside a build
# reaches the registry only with it). The Dockerfile then builds unchanged. Idempotent.
set -euo pipefail

BASE=docker.io/library/node:20-bookworm-slim
if podman image exists "$BASE"; then
  exit 0
fi

NODE_BIN=$(command -v node)
NODE_MAJOR=$("$NODE_BIN" -p 'process.versions.node.split(".")[0]')
if [ "$NODE_MAJOR" != 20 ]; then
  echo "the base image must carry Node 20 but this machine's node is $("$NODE_BIN" --version)" >&2
  exit 1
fi
NPM_DIR=$(dirname "$(dirname "$(readlink -f "$(command -v npm)")")")
CA_BUNDLE=/etc/ssl/certs/ca-certificates.crt
MIRROR=$(awk '/^URIs:/ { print $2; exit }' /etc/apt/sources.list.d/debian.sources 2>/dev/null || true)
MIRROR=${MIRROR:-http://deb.debian.org/debian}

WORK=$(mktemp -d /var/tmp/suigw-base.XXXXXX)
trap 'rm -rf "$WORK"' EXIT
ROOTFS=$WORK/rootfs

echo "building $BASE locally (no registry here): debootstrap bookworm from $MIRROR (about a minute)" >&2
debootstrap --variant=minbase bookworm "$ROOTFS" "$MIRROR" >"$WORK/debootstrap.log" 2>&1 \
  || { tail -20 "$WORK/debootstrap.log" >&2; exit 1; }
rm -rf "$ROOTFS"/var/cache/apt/archives/*.deb "$ROOTFS"/var/lib/apt/lists/*

echo "adding Node $("$NODE_BIN" --version), npm from $NPM_DIR and the CA bundle" >&2
install -D -m 0755 "$NODE_BIN" "$ROOTFS/usr/local/bin/node"
mkdir -p "$ROOTFS/usr/local/lib/node_modules"
cp -a "$NPM_DIR" "$ROOTFS/usr/local/lib/node_modules/npm"
ln -sf ../lib/node_modules/npm/bin/npm-cli.js "$ROOTFS/usr/local/bin/npm"
ln -sf ../lib/node_modules/npm/bin/npx-cli.js "$ROOTFS/usr/local/bin/npx"
install -D -m 0644 "$CA_BUNDLE" "$ROOTFS/etc/ssl/certs/ca-certificates.crt"
mkdir -p "$ROOTFS/usr/local/etc"
echo "cafile=/etc/ssl/certs/ca-certificates.crt" >"$ROOTFS/usr/local/etc/npmrc"
# The official image has a non-root user `node` (uid 1000); the Dockerfile may rely on it.
chroot "$ROOTFS" sh -c 'groupadd --gid 1000 node && useradd --uid 1000 --gid node --shell /bin/bash --create-home node'

echo "importing it into podman as $BASE" >&2
tar -C "$ROOTFS" -cf "$WORK/base.tar" .
podman import \
  --change 'ENV NODE_EXTRA_CA_CERTS=/etc/ssl/certs/ca-certificates.crt' \
  --change 'ENV PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin' \
  --change 'CMD ["node"]' \
  "$WORK/base.tar" "$BASE" >/dev/null
echo "base image ready: $BASE" >&2
