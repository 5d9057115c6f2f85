# Two commands on a fresh clone: `make dev` runs the platform, `make test` runs every test.
# Both install what they need.
SHELL := /bin/bash
NPM_INSTALL_STAMP := node_modules/.install-stamp

.PHONY: dev test install node-version services chromium typecheck lint unit bench clean e2e-kind

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

# The alert-rule and Prometheus tests run Debian's prometheus and promtool (installed when missing).
.PHONY: prometheus
prometheus:
	@scripts/ensure-prometheus.sh

typecheck: install
	npx tsc --noEmit -p tsconfig.json

lint: install
	npx eslint .

unit: install services chromium prometheus
	npx vitest run

test: node-version typecheck lint unit

bench: install
	npm run bench

# The Helm chart in a real cluster (kind): needs docker, kind, kubectl, helm and SUIGW_IMAGE; it
# cannot run on the development machines (no Docker engine). Steps: scripts/e2e-kind.sh.
e2e-kind:
	scripts/e2e-kind.sh

clean:
	rm -rf .suigw node_modules
