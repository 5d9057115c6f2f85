# Two commands on a fresh clone: `make dev` runs the platform, `make test` runs every test.
# Both install what they need.
SHELL := /bin/bash
NPM_INSTALL_STAMP := node_modules/.install-stamp

.PHONY: dev test install node-version services chromium podman prometheus h2load typecheck lint unit bench build image clean e2e-kind

# First of all: a Node.js too old for the project says so, before npm or a test fails obscurely.
node-version:
	@scripts/check-node.sh

$(NPM_INSTALL_STAMP): package.json package-lock.json | node-version
	npm ci --no-audit --no-fund
	@touch $@

install: node-version $(NPM_INSTALL_STAMP)

dev: node-version install
	node bin/suigw.js dev

services:
	@scripts/ensure-services.sh

# The browser CORS test drives Debian's Chromium (installed when missing).
chromium:
	@scripts/ensure-chromium.sh

# The image test (test/image) builds and runs the container image with Debian's podman
# (installed and configured when missing; the base image is built locally, no registry here).
podman:
	@scripts/ensure-podman.sh

# The alert-rule and Prometheus tests run Debian's prometheus and promtool (installed when missing).
prometheus:
	@scripts/ensure-prometheus.sh

typecheck: install
	npx tsc --noEmit -p tsconfig.json

lint: install
	npx eslint .

unit: install services chromium podman prometheus
	npx vitest run

test: node-version typecheck lint unit

# The benchmarks' load generator, nghttp2's h2load (installed when missing).
h2load:
	@scripts/ensure-h2load.sh

bench: install services h2load
	npm run bench

# The production build: TypeScript compiled to dist/, every role runs with plain `node`
# (`node dist/services/cli/suigw.js <role>`).
build: install
	npm run build

# The container image every role runs from, ghcr.io/suigw/suigw:<package.json version> (the
# chart's default image); podman or docker, whichever is installed. SUIGW_IMAGE=repo:tag renames.
image:
	@scripts/build-image.sh

# The Helm chart in a real cluster (kind) with the image `make image` builds: needs docker, kind,
# kubectl and helm; it cannot run on the development machines (no Docker engine). Steps:
# scripts/e2e-kind.sh.
e2e-kind: image
	scripts/e2e-kind.sh

clean:
	rm -rf .suigw node_modules dist
