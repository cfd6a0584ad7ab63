# croupier: every target sets itself up (virtual environment, install, code generation).
# `make run` starts the whole platform on a private Redis; `make test` runs the whole suite.

PYTHON ?= python3
VENV   := .venv
BIN    := $(VENV)/bin
STAMP  := $(VENV)/.installed
PROTOS := $(shell find protos -name '*.proto' | sort)
GEN_STAMP := croupier/.generated
# The rules engine compiled with mypyc (tools/build_engine.py): rebuilt when any of it changes.
ENGINE_SOURCES := $(wildcard services/games/*.py services/games/poker/*.py services/games/*/schema/*.py)
ENGINE_STAMP := build/mypyc/.compiled
# The ranking library's single-hand fast path and its small Monte Carlo, compiled the same way
# (tools/build_ranking.py).
RANKING_SOURCES := $(addprefix services/ranking/,fast.py quick_equity.py batch.py encoding.py tables.py patterns.py values.py)
RANKING_STAMP := build/mypyc-ranking/.compiled

.PHONY: cluster-test soak soak-workers bench-seven all venv protos engine records ranking check test test-unit test-contract test-integration test-e2e lint proto-lint run bench clean

all: test

$(BIN)/python:
	$(PYTHON) -m venv $(VENV)

# Re-install whenever the project metadata changes.
$(STAMP): pyproject.toml | $(BIN)/python
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -e '.[dev]' --config-settings editable_mode=compat
	touch $@

venv: $(STAMP)

# Generated code (python, grpc, .pyi stubs) lands in the git-ignored package croupier/.
$(GEN_STAMP): $(STAMP) $(PROTOS) tools/gen_protos.py
	$(BIN)/python tools/gen_protos.py
	touch $@

protos: $(GEN_STAMP)

$(ENGINE_STAMP): $(STAMP) $(ENGINE_SOURCES) tools/build_engine.py tools/gen_records.py
	@$(BIN)/python tools/gen_records.py --check
	@mkdir -p build/mypyc
	@$(BIN)/python tools/build_engine.py >build/mypyc/build.log 2>&1 || { cat build/mypyc/build.log; exit 1; }
	@tail -n 1 build/mypyc/build.log
	@touch $@

engine: $(ENGINE_STAMP)

$(RANKING_STAMP): $(STAMP) $(RANKING_SOURCES) tools/build_ranking.py
	@mkdir -p build/mypyc-ranking
	@$(BIN)/python tools/build_ranking.py >build/mypyc-ranking/build.log 2>&1 || { cat build/mypyc-ranking/build.log; exit 1; }
	@tail -n 1 build/mypyc-ranking/build.log
	@touch $@

ranking: $(RANKING_STAMP)

# The native record classes, written from their one declaration each (services/games/*/
# schema/); `make engine` and the test suite refuse a generated module that is stale.
records: $(STAMP)
	$(BIN)/python tools/gen_records.py

# The suite in TEST_WORKERS processes (pytest-xdist), each file's tests in one of them so its
# module fixtures (a whole platform, a worker process) start once. Most of the suite waits on
# real processes and clocks, so four workers beat two cores (measured: 532 s with four, 587-642 s
# with three, 1,060 s serially, on two busy cores); TEST_WORKERS=0 runs it serially.
TEST_WORKERS ?= 4

test: protos engine ranking
	$(BIN)/python -m pytest -n $(TEST_WORKERS) --dist loadfile tests

# The quick loop while developing (well under a minute on a quiet machine): lint, then the
# unit and contract tests not marked slow. `make test` (CI) still runs everything.
check: lint engine ranking
	$(BIN)/python -m pytest tests/unit tests/contract -q -m "not slow" -p no:cacheprovider

test-unit: protos engine ranking
	$(BIN)/python -m pytest tests/unit

test-contract: protos engine ranking
	$(BIN)/python -m pytest tests/contract

test-integration: protos engine ranking
	$(BIN)/python -m pytest tests/integration

test-e2e: protos engine ranking
	$(BIN)/python -m pytest tests/e2e

lint: protos proto-lint
	$(BIN)/ruff check services tests bench tools
	$(BIN)/ruff format --check services tests bench tools
	$(BIN)/mypy services tools bench tests

# buf (from the npm registry) when node is available; the same conventions are also
# checked in Python by tests/unit/protos, which `make test` always runs.
proto-lint:
	@if command -v npm >/dev/null 2>&1; then \
		[ -x .tools/node_modules/.bin/buf ] || npm install --silent --prefix .tools @bufbuild/buf >/dev/null; \
		.tools/node_modules/.bin/buf lint; \
	else echo "npm not found: skipping buf lint (tests/unit/protos checks the conventions)"; fi

run: protos engine ranking
	$(BIN)/croupier run

bench: protos engine ranking
	$(BIN)/python -m bench

# All 133,784,560 seven-card hands through the evaluator's batch path (about 30 s).
bench-seven: protos
	$(BIN)/python -m bench.seven_card_census

# The platform replicated on a 3-master, 3-replica Redis Cluster on loopback (3 table
# replicas, 2 of each other service, 2 workers) while bot tables play and a table replica, a
# worker and Redis masters are killed or failed over; PASS/FAIL per check
# (tests/harness/cluster_test.py, docs/scale-out.md). CLUSTER_TEST_ARGS="--tables 2" for less.
CLUSTER_TEST_ARGS ?=
cluster-test: protos engine ranking
	$(BIN)/python -m tests.harness.cluster_test $(CLUSTER_TEST_ARGS)

# Bots play SOAK_HANDS hands of every poker variant through the real services and every check
# of tests/integration/bots/soak.py must hold (`make test` plays 20 hands per variant). One
# pytest process (its own Redis and services) per group of SOAK_SPLIT, all at once: one
# process is bound to one core by the GIL. `make soak SOAK_HANDS=200` for a shorter run.
SOAK_HANDS ?= 2000
SOAK_SPLIT ?= nlhe,six-card plhe,spit flhe,hilo
soak: protos engine ranking
	@pids=""; for group in $(SOAK_SPLIT); do \
		CROUPIER_SOAK_HANDS=$(SOAK_HANDS) CROUPIER_SOAK_VARIANTS=$$group \
			$(BIN)/python -m pytest tests/integration/bots/test_soak.py -q -s -p no:cacheprovider \
			--timeout=0 -k every_variant & pids="$$pids $$!"; \
	done; status=0; for pid in $$pids; do wait $$pid || status=1; done; exit $$status

# Celery-worker bots (the workers' own policies, seated by CreateTable) play SOAK_WORKER_HANDS
# hands of every variant through the platform as `make run` starts it; fails on any bot that
# did not act or chips not conserved (tests/e2e/test_worker_bots.py).
SOAK_WORKER_HANDS ?= 1000
soak-workers: protos engine ranking
	CROUPIER_WORKER_SOAK_HANDS=$(SOAK_WORKER_HANDS) $(BIN)/python -m pytest \
		tests/e2e/test_worker_bots.py -q -p no:cacheprovider --timeout=0

# Seeded random Spit games, every invariant checked at every event (the slow tier of
# tests/unit/games/spit/test_simulation.py): SPIT_GAMES per variation (`make test` plays
# 30-300 per variation). Pure rules only: no services.
SPIT_GAMES ?= 2000
.PHONY: soak-spit
soak-spit: protos engine
	CROUPIER_SPIT_GAMES=$(SPIT_GAMES) $(BIN)/python -m pytest tests/unit/games/spit/test_simulation.py \
		-m slow -q -s -p no:cacheprovider --timeout=0

clean:
	-$(BIN)/python tools/build_engine.py --clean
	-$(BIN)/python tools/build_ranking.py --clean
	rm -rf $(VENV) croupier build .tools .mypy_cache .ruff_cache .pytest_cache
