# The two commands of the README are `make demo` and `make test`; the rest run one stage alone.
SHELL := /bin/bash
.DEFAULT_GOAL := help

.PHONY: help demo test bootstrap sanity units emulator-tests integration reliability eda-tests lint format molecule \
	release-tests awx-tests docs-tests build ee docs bench coverage mutation clean

help: ## list the targets
	@grep -E '^[a-z-]+:.*## ' $(MAKEFILE_LIST) | sed 's/:.*## /\t/' | expand -t 18

demo: ## the main job: start the emulator, run playbooks/demo.yml against it, stop it
	@tools/demo.sh $(ARGS)

test: ## the whole test suite (what CI runs)
	@tools/test.sh

bootstrap: ## create/refresh the virtualenvs (.venv: ceiling, .venv-floor: floor, .venv-2.17 ... .venv-2.20)
	@tools/bootstrap.sh all

sanity: ## ansible-test sanity on every ansible-core from the floor (2.16) to the ceiling (2.21)
	@tools/test.sh sanity-floor sanity-2.17 sanity-2.18 sanity-2.19 sanity-2.20 sanity-ceiling

units: ## unit tests on every ansible-core from the floor to the ceiling
	@tools/test.sh units-floor units-2.17 units-2.18 units-2.19 units-2.20 units-ceiling

emulator-tests: ## the emulator's own test suite
	@tools/test.sh emulator

integration: ## playbooks of every module against the emulator (TARGET=ssh_key: that target through ansible-test)
	@if [ -n "$(TARGET)" ]; then tools/integration_target.sh $(TARGET) $(ARGS); else tools/test.sh integration; fi

reliability: ## faults, lost responses, token expiry, secrets, bad input, durability, TLS
	@tools/test.sh reliability

eda-tests: ## ansible-rulebook runs the spot recovery rulebook against the emulator
	@tools/test.sh eda

lint: ## ansible-lint, production profile; ruff on plugins/ and tests/ (tools/format.sh --check)
	@tools/test.sh lint

molecule: ## molecule scenarios of the roles (delegated, against the emulator)
	@tools/test.sh molecule

release-tests: ## changelog, tarball contents, install + smoke playbook, EE build context
	@tools/test.sh release

awx-tests: ## credential type; demo playbook and inventory source through ansible-runner
	@tools/test.sh awx

docs-tests: ## lint-collection-docs, make docs, the site in headless Chromium
	@tools/test.sh docs

build: ## the collection tarball in dist/
	@tools/build.sh

ee: ## the execution environment's build context (ARGS=build: also the image, needs podman/docker)
	@tools/ee.sh $(ARGS)

format: ## one Python dialect: ruff's fixes and formatter on plugins/ and tests/ (what the lint stage checks)
	@tools/format.sh

docs: ## the documentation site in docs/site/ (reference + guides)
	@tools/docs.sh

coverage: ## the measured stages (units-ceiling, integration, reliability, eda, awx) with coverage; HTML in .tmp/coverage-html
	@COVERAGE=1 COVERAGE_HTML=1 tools/test.sh units-ceiling integration reliability eda awx

mutation: ## mutation score of the decision code (cosmic-ray; ARGS=_api_retry: one module), written to bench/mutation.md
	@tools/mutation.sh $(ARGS)

bench: ## benchmarks against their floors, written to bench/results.md (ARGS=--quick: a few minutes)
	@bench/run $(ARGS)

clean: ## remove virtualenvs and staged copies
	rm -rf .venv .venv-floor .venv-2.* .tmp dist docs/site "$${XDG_CACHE_HOME:-$$HOME/.cache}/cloudcompute-cloud"
