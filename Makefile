# Spanload: `make run` serves the dashboard, `make test` runs every test and check.
# Both install what is missing first, from the project's own lock files only.

SHELL := /bin/bash
PYTHON ?= python3
UV_VERSION := 0.13.9
TOOLS := .tools
UV := $(TOOLS)/bin/uv
VENV := .venv
BIN := $(VENV)/bin
LOCAL_SPANNER := $(BIN)/spanload-local-spanner
GO_SOURCES := $(shell find localspanner -name '*.go' -o -name 'go.mod' -o -name 'go.sum' 2>/dev/null)
GO_WORKER := $(BIN)/spanload-worker-go
PGADAPTER := $(TOOLS)/pgadapter/.resolved
GO_WORKER_SOURCES := $(shell find goworker -name '*.go' -o -name 'go.mod' -o -name 'go.sum' 2>/dev/null)
export UV_PROJECT_ENVIRONMENT := $(abspath $(VENV))
export SPANNER_DISABLE_BUILTIN_METRICS := true

.PHONY: run test install gotest-build fuzz pgadapter-pin system-deps lint typecheck gotest pytest frontend frontend-test bundle-check types types-check names-go compose-check clean

run: install
	$(BIN)/spanload serve

# Once everything is installed the checks run beside pytest: pytest spends most of its time waiting
# on load runs of fixed length (a `make test` used 10 CPU-minutes in 15 wall-clock minutes), so Go's
# race tests, lint, mypy and vitest fit in its gaps. pytest shows its progress as it goes; the other
# checks' output is kept in $(CHECKS_LOG), each check's as one block, and printed after it.
CHECKS := gotest lint typecheck frontend-test bundle-check types-check compose-check
# pytest on 5 workers, each test file on one worker whole, the longest handed out first (tests/conftest.py).
# Many tests wait on runs of fixed length, so a fifth worker still finds CPU: a clean clone's make
# test took 776 s (pytest 713 s) against 883 s (796 s) on 4, on one commit within the hour; 4
# workers had taken 882 s against 925 s on 3 (2026-11-26, one run each).
PYTEST_WORKERS ?= 5
PYTEST_PARALLEL := -n $(PYTEST_WORKERS) --dist loadfile --no-loadscope-reorder
CHECKS_LOG := .make-checks.log
test:
	@$(MAKE) --no-print-directory -j$(INSTALL_JOBS) --output-sync=target PGADAPTER_AFTER=system-deps \
		system-deps gotest-build $(INSTALL_PARTS)
	@echo "running $(CHECKS) beside pytest; their output follows pytest's"
	@$(MAKE) --no-print-directory -j$(words $(CHECKS)) --output-sync=target $(CHECKS) > $(CHECKS_LOG) 2>&1 & checks=$$!; \
	$(BIN)/pytest $(PYTEST_PARALLEL); tests=$$?; wait $$checks; others=$$?; cat $(CHECKS_LOG); \
	echo "pytest: exit $$tests; $(CHECKS): exit $$others"; [ $$tests -eq 0 ] && [ $$others -eq 0 ]

# The install steps run side by side: downloads (uv, npm, Maven, Go modules) beside compiles (the Go
# binaries' cgo, vite). The Go binaries are built in their own directories and copied into the venv
# once it exists, so they do not wait on uv. `make test` runs apt (system-deps) beside them too, but
# before PGAdapter's resolution, the one step that needs what it installs (mvn, java).
INSTALL_JOBS ?= 8
INSTALL_PARTS := $(VENV)/.synced $(LOCAL_SPANNER) $(GO_WORKER) $(PGADAPTER) frontend
install:
	@$(MAKE) --no-print-directory -j$(INSTALL_JOBS) --output-sync=target $(INSTALL_PARTS)

# Debian packages the tests use: a browser for the UI tests, PostgreSQL for the store suite,
# docker-compose to validate the compose file. Installed only where missing (CI runs as root).
SYSTEM_PACKAGES := chromium:/usr/bin/chromium chromium-driver:/usr/bin/chromedriver \
	postgresql:/usr/lib/postgresql/15/bin/initdb docker-compose:/usr/bin/docker-compose \
	maven:/usr/bin/mvn openjdk-17-jre-headless:/usr/bin/java
system-deps:
	@missing=""; for entry in $(SYSTEM_PACKAGES); do \
		pkg=$${entry%%:*}; path=$${entry#*:}; [ -e "$$path" ] || missing="$$missing $$pkg"; done; \
	if [ -n "$$missing" ]; then \
		if [ "$$(id -u)" = 0 ]; then echo "installing Debian packages:$$missing"; \
			apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq $$missing >/dev/null; \
		else echo "missing Debian packages (install them as root):$$missing"; fi; fi

$(UV):
	$(PYTHON) -m venv $(TOOLS)
	$(TOOLS)/bin/pip install --quiet --disable-pip-version-check uv==$(UV_VERSION)

$(VENV)/.synced: $(UV) backend/pyproject.toml backend/uv.lock
	cd backend && ../$(UV) sync --frozen --quiet
	touch $@

LOCAL_SPANNER_BUILT := localspanner/bin/spanload-local-spanner
$(LOCAL_SPANNER_BUILT): $(GO_SOURCES) backend/pyproject.toml
	cd localspanner && go build -o bin/spanload-local-spanner \
		-ldflags "-X main.version=$$(grep -m1 '^version' ../backend/pyproject.toml | cut -d'"' -f2)" \
		./cmd/spanload-local-spanner

$(LOCAL_SPANNER): $(LOCAL_SPANNER_BUILT) $(VENV)/.synced
	cp $< $@

# PGAdapter (the PostgreSQL interface's proxy, Java) and its jars, resolved from Maven Central as
# tools/pgadapter/pom.xml fixes them, then checked against tools/pgadapter/jars.sha256; the local
# repository is .tools/m2, so a second resolution is offline. `make pgadapter-pin` rewrites the list.
PGADAPTER_DIR := tools/pgadapter
MVN_RESOLVE = mvn -B -q -f $(PGADAPTER_DIR)/pom.xml -Dmaven.repo.local=$(abspath $(TOOLS))/m2 \
	dependency:copy-dependencies -DoutputDirectory=$(abspath $(TOOLS))/pgadapter/lib
PGADAPTER_AFTER ?=
$(PGADAPTER): $(PGADAPTER_DIR)/pom.xml $(PGADAPTER_DIR)/jars.sha256 | $(PGADAPTER_AFTER)
	@command -v mvn >/dev/null || { echo "Maven (mvn) is needed to resolve PGAdapter: apt-get install maven openjdk-17-jre-headless"; exit 1; }
	rm -rf $(TOOLS)/pgadapter && $(MVN_RESOLVE)
	@cd $(TOOLS)/pgadapter/lib && sha256sum --quiet -c $(abspath $(PGADAPTER_DIR))/jars.sha256 \
		&& [ "$$(ls *.jar | wc -l)" = "$$(wc -l < $(abspath $(PGADAPTER_DIR))/jars.sha256)" ] \
		|| { echo "PGAdapter's jars differ from $(PGADAPTER_DIR)/jars.sha256"; exit 1; }
	touch $@

pgadapter-pin:
	rm -rf $(TOOLS)/pgadapter && $(MVN_RESOLVE)
	cd $(TOOLS)/pgadapter/lib && sha256sum *.jar > $(abspath $(PGADAPTER_DIR))/jars.sha256

# The Go worker runtime: the same worker protocol as backend/spanload/workers, with the Go client.
GO_WORKER_BUILT := goworker/bin/spanload-worker-go
$(GO_WORKER_BUILT): $(GO_WORKER_SOURCES)
	cd goworker && go build -o bin/spanload-worker-go ./cmd/spanload-worker-go

$(GO_WORKER): $(GO_WORKER_BUILT) $(VENV)/.synced
	cp $< $@

frontend:
	@if [ -f frontend/package.json ]; then $(MAKE) --no-print-directory frontend/dist/index.html; fi

frontend/node_modules/.installed: frontend/package.json frontend/package-lock.json
	cd frontend && npm ci --no-audit --no-fund --loglevel=error
	touch $@

frontend/dist/index.html: frontend/node_modules/.installed $(shell find frontend/src frontend/index.html frontend/vite.config.ts -type f 2>/dev/null)
	cd frontend && npm run --silent build

PY_DIRS := $(wildcard backend tests bench migrations)
lint: $(VENV)/.synced
	$(BIN)/ruff check $(PY_DIRS)
	$(BIN)/ruff format --check $(PY_DIRS)
	cd backend && ../$(BIN)/lint-imports --no-cache

typecheck: $(VENV)/.synced
	cd backend && ../$(BIN)/mypy spanload

# Go's race tests. FuzzCompile's seed corpus runs among them as a plain test; fuzzing it (`make fuzz`)
# is not part of `make test`: its instrumented build compiles pg_query's and SQLite's C a third time,
# about 340 CPU-seconds on a cold machine, for 5 s of fuzzing.
# -race is a build mode of its own, so the race tests compile SQLite's and pg_query's C a second
# time; at -O1 without debug info that compile took 68 CPU-s instead of 133 (Go's default -O2 -g)
# on a cold cache, and the tests ran as long. Not -O0: pg_query's deeper frames then overflow the
# stack on TestPGHostileInput's nesting before its depth check stops it. The binaries keep -O2 -g.
RACE_CGO_CFLAGS := -O1 -g0
gotest:
	cd localspanner && go vet ./... && CGO_CFLAGS="$(RACE_CGO_CFLAGS)" go test -race -count=1 ./...
	cd goworker && go vet ./... && go test -race -count=1 ./...

# The race tests' compile, run by `make test` beside the downloads of the install, so that gotest,
# beside pytest, finds them in Go's build cache instead of compiling the cgo parsers while pytest runs.
gotest-build:
	cd localspanner && CGO_CFLAGS="$(RACE_CGO_CFLAGS)" go test -race -count=1 -run '^$$' ./... >/dev/null
	cd goworker && go test -race -count=1 -run '^$$' ./... >/dev/null

FUZZ_TIME ?= 30s
fuzz:
	cd localspanner && go test -run '^$$' -fuzz '^FuzzCompile$$' -fuzztime $(FUZZ_TIME) ./query

frontend-test:
	@if [ -f frontend/package.json ]; then cd frontend && npm run --silent lint && npm run --silent typecheck && npm run --silent test; fi

# The first page's JavaScript, gzipped, within 120 kB (issue 27): fails when the built entry and its
# static imports outgrow it, e.g. when a heavy library is imported outside a lazy route.
bundle-check: frontend
	@if [ -f frontend/package.json ]; then cd frontend && node scripts/first-page-budget.mjs; fi

# The UI's TypeScript types come from the backend's OpenAPI schema: `make types` regenerates the
# committed schema and types; `make types-check` (part of `make test`) fails when they drift.
API_TYPES := frontend/src/lib/api
OPENAPI_SCHEMA_CMD ?= $(BIN)/spanload openapi
OPENAPI_TS := frontend/node_modules/.bin/openapi-typescript --alphabetize
NAMES_TS_CMD ?= $(BIN)/python -m spanload.model.names_ts
types: $(VENV)/.synced frontend/node_modules/.installed
	$(OPENAPI_SCHEMA_CMD) > $(API_TYPES)/openapi.json
	$(OPENAPI_TS) $(API_TYPES)/openapi.json -o $(API_TYPES)/schema.gen.ts
	$(NAMES_TS_CMD) > $(API_TYPES)/names.gen.ts

types-check: $(VENV)/.synced frontend/node_modules/.installed
	@tmp=$$(mktemp -d); trap 'rm -rf "$$tmp"' EXIT; \
	$(OPENAPI_SCHEMA_CMD) > $$tmp/openapi.json && $(OPENAPI_TS) $$tmp/openapi.json -o $$tmp/schema.gen.ts >/dev/null 2>&1 \
		|| { echo "types-check: could not generate the types from the backend's OpenAPI schema (see 'make types')."; exit 1; }; \
	$(NAMES_TS_CMD) > $$tmp/names.gen.ts || { echo "types-check: could not generate the UI's metric names (see 'make types')."; exit 1; }; \
	if cmp -s $$tmp/openapi.json $(API_TYPES)/openapi.json && cmp -s $$tmp/schema.gen.ts $(API_TYPES)/schema.gen.ts \
		&& cmp -s $$tmp/names.gen.ts $(API_TYPES)/names.gen.ts; then \
		echo "types-check: the UI's generated API types and metric names match the backend's"; \
	else diff -u $(API_TYPES)/schema.gen.ts $$tmp/schema.gen.ts | head -40; diff -u $(API_TYPES)/names.gen.ts $$tmp/names.gen.ts | head -20; \
		echo "types-check: the committed $(API_TYPES)/openapi.json, schema.gen.ts or names.gen.ts differ from the backend's; run 'make types' and commit the result."; exit 1; fi

# The Go worker's metric and error names, generated from backend/spanload/model (test_names_go.py checks it).
names-go: $(VENV)/.synced
	$(BIN)/python -m spanload.model.names_go > goworker/internal/protocol/names_gen.go

pytest: install
	$(BIN)/pytest $(PYTEST_PARALLEL)

# docker-compose is one of SYSTEM_PACKAGES, which `make test` installs: a missing one is an error
# here, not a skip that reports the compose file as checked.
compose-check:
	@if ! command -v docker-compose >/dev/null; then \
		echo "docker-compose is not installed, so docker-compose.yml is not checked; install it (make system-deps as root)"; exit 1; fi
	@docker-compose -f docker-compose.yml config --quiet && echo "docker-compose.yml is valid"

clean:
	rm -rf $(VENV) $(TOOLS) localspanner/bin goworker/bin frontend/dist frontend/node_modules
