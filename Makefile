# hypermcp: the two set-up commands are `make demo` and `make test`.
# Needs only what the machine ships (Rust, Python 3 + pip, Node 20 + npm); the official
# peers used by the interop tests are installed into .peers/ from the package registries.

SHELL := bash
.SHELLFLAGS := -eu -o pipefail -c
CARGO ?= cargo
PEERS ?= $(CURDIR)/.peers
RELEASE_DIR := $(CURDIR)/target/release
ECHO_RUST := $(RELEASE_DIR)/examples/echo_server
CLIENT_RUST := $(RELEASE_DIR)/examples/client
PYTHON ?= python3

.PHONY: all build peers demo test test-rust test-interop check fmt bench clean

all: build

## build: release build of the engine, its examples and the load generator
build:
	$(CARGO) build --release -p hypermcp --examples
	$(CARGO) build --release -p hypermcp-loadgen

## peers: the official SDKs and reference server used by the interop tests (pinned)
peers:
	PEERS=$(PEERS) bash tests/interop/setup_peers.sh

## demo: a real exchange: the Rust client spawns the Rust echo server over stdio
demo: build
	@echo "== Rust client -> Rust echo server (stdio)"
	$(CLIENT_RUST) --tool echo --args '{"text":"hello from make demo"}' -- $(ECHO_RUST)

## check: formatting and lints
check:
	$(CARGO) fmt --all -- --check
	$(CARGO) clippy --workspace --all-targets -- -D warnings

## test: build, lint, then every suite
test: build peers check test-rust test-interop
	@echo "make test: all suites passed"

## test-rust: unit tests of the state machine and the integration tests (duplex, stdio child,
## the Rust client against the official server-everything)
test-rust:
	HYPERMCP_PEERS=$(PEERS) HYPERMCP_REQUIRE_PEERS=1 $(CARGO) test --workspace

## test-interop: the Rust echo server against raw transcripts and the official SDK clients
test-interop: build peers
	$(PEERS)/venv/bin/python tests/interop/run_transcript.py --require-schema tests/fixtures/transcripts -- $(ECHO_RUST)
	PEERS=$(PEERS) $(PYTHON) tests/interop/py_sdk_client.py -- $(ECHO_RUST)
	PEERS=$(PEERS) node tests/interop/ts_sdk_client.mjs $(ECHO_RUST)

fmt:
	$(CARGO) fmt --all

## bench: stdio benchmark (floor vs Rust echo server); see bench/README.md
bench: build
	BUILD=0 bash bench/stdio.sh

clean:
	$(CARGO) clean
	rm -rf .peers bench/results
