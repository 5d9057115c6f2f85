#!/usr/bin/env bash
# Makes sure podman can build and run the suigw image here: Debian's podman + runc, debootstrap
# (scripts/ensure-base-image.sh builds the base image with it), and the engine settings these
# machines need (/work/shared/NOTES.md): crun refuses hybrid cgroups, podman's default ulimits
# cannot be raised. Idempotent: installs only what is missing, writes the settings only when absent.
set -euo pipefail

CONF=/etc/containers/containers.conf
missing=()
command -v podman >/dev/null || missing+=(podman)
command -v runc >/dev/null || missing+=(runc)
command -v debootstrap >/dev/null || missing+=(debootstrap)

if [ "${#missing[@]}" -gt 0 ]; then
  echo "installing Debian's ${missing[*]} (container builds for the suigw image)" >&2
  if [ "$(id -u)" -ne 0 ]; then
    echo "installing ${missing[*]} needs root: run 'sudo apt-get install -y ${missing[*]}' and retry" >&2
    exit 1
  fi
  DEBIAN_FRONTEND=noninteractive apt-get install -y "${missing[@]}" >/dev/null \
    || { apt-get update >/dev/null && DEBIAN_FRONTEND=noninteractive apt-get install -y "${missing[@]}" >/dev/null; }
  for tool in "${missing[@]}"; do
    command -v "$tool" >/dev/null || { echo "$tool did not install" >&2; exit 1; }
  done
fi

if ! grep -qs '^runtime = "runc"' "$CONF"; then
  echo "writing $CONF (runc, cgroupfs, no default ulimits)" >&2
  mkdir -p "$(dirname "$CONF")"
  cat >"$CONF" <<'CONF'
[containers]
default_ulimits = []
[engine]
cgroup_manager = "cgroupfs"
runtime = "runc"
CONF
fi
echo "podman ready: $(podman --version)"
