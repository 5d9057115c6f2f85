# Two commands on a fresh clone: `make dev` runs the platform, `make test` runs every test.
# Both install what they need.
SHELL := /bin/bash
NPM_INSTALL_STAMP := node_modules/.install-stamp

.PHONY: dev test install services typecheck lint unit bench clean

$(NPM_INSTALL_STAMP): package.json package-lock.json
	npm ci --no-audit --no-fund
	@touch $@

install: $(NPM_INSTALL_STAMP)

dev: install
	node bin/suigw.js dev

services:
	@scripts/ensure-services.sh

typecheck: install
	npx tsc --noEmit -p tsconfig.json

lint: install
	npx eslint .

unit: install services
	npx vitest run

test: typecheck lint unit

bench: install
	npm run bench

clean:
	rm -rf .suigw node_modules
