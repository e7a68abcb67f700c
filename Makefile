# mpibench build / test / benchmark entry points.
#
#   make deps       check (and on Debian/Ubuntu install) Open MPI, MPICH, libclang
#                   (`make test` also installs Chromium for the HTML report test)
#   make build      release build against Open MPI
#   make test       the documentation test (tests/docs.rs), the cargo tests against Open MPI
#                   and then against MPICH (test-integration) with tests/robustness.sh
#                   (both MPIs side by side) beside them, tests/slurm.sh (a private Slurm
#                   cluster: srun, salloc), tests/cluster.sh (namespace hosts)
#   make bench      run the benchmarks, results in results/bench.{json,csv}
#   make lint       rustfmt + clippy (warnings are errors)
#   make test-docs  README.md and docs/ against --help and `mpibench list` (no MPI ranks)
#   make overhead   compare mpibench's PingPong with a bare C ping-pong
#
# Variables (override on the command line, e.g. `make WITH_MPICH=0 test`):
#   MPICC_OPENMPI / MPIEXEC_OPENMPI  Open MPI compiler wrapper / launcher
#   MPICC_MPICH / MPIEXEC_MPICH      MPICH compiler wrapper / launcher
#   WITH_MPICH                       0 skips the MPICH test leg (and its installation)
#   TEST_OVERLAP                     0 runs the robustness leg after the cargo tests
#   BENCH_ARGS                       arguments of `mpibench` for `make bench`
#   CARGO                            cargo executable
#
# (Deliberately not OMPI_CC / MPICH_CC: the Open MPI and MPICH wrappers read
# those environment variables as the name of the underlying C compiler, so
# exporting them as "the wrapper" makes mpicc call itself.)

SHELL := /bin/bash

CARGO ?= cargo

# Debian installs both MPIs side by side and points the plain `mpicc`/`mpiexec`
# alternatives at either of them, so prefer the suffixed names. These are
# recursively expanded on purpose: they are re-evaluated after `deps` has run,
# i.e. after a fresh install has created mpicc.openmpi.
MPICC_OPENMPI   ?= $(if $(shell command -v mpicc.openmpi 2>/dev/null),mpicc.openmpi,mpicc)
MPIEXEC_OPENMPI ?= $(if $(shell command -v mpiexec.openmpi 2>/dev/null),mpiexec.openmpi,mpiexec)
MPICC_MPICH     ?= mpicc.mpich
MPIEXEC_MPICH   ?= mpiexec.mpich
WITH_MPICH      ?= 1

# Cargo's build-script caching does not notice a change of MPI library (rsmpi's
# mpi-sys probes the MPI once and caches the generated bindings and link flags),
# so each MPI gets its own target directory: Open MPI in target/, MPICH in
# target/mpich/. Never point MPICC at another MPI in an existing target dir.
MPICH_TARGET_DIR ?= target/mpich

# The integration tests that run under MPICH too (test-mpich).
MPICH_TESTS := --test smoke --test methodology --test mpitest --test cresta --test caf --test imb2021 --test imb_mpi4 --test imb_io --test commtest --test allreduce --test osu --test imb_mt --test guidelines --test tune --test launches --test history

# tests/history.rs under MPICH: the writers, the aborted run and the refused
# files; the planted regression is Open MPI's (OMPI_MCA_btl), and the twenty
# runs, the PostgreSQL server and the browser (no MPI) run once, with Open MPI.
HISTORY_MPICH_SKIP := a_real_regression_is_named_at_run_6 twenty_runs_without_a_change_report_none \
	postgres_and_sqlite_show_and_check_alike the_trend_report_draws_lines_and_change_marks_in_chromium

# The longest cases (25-55 s each) that the MPICH leg leaves to the Open MPI
# leg, to keep `make test` under 25 minutes: each validates every benchmark
# of a family on 2, 3 and 4 ranks, or one seed command at length. The MPICH
# leg keeps the rest of each file (every family still runs, validated, on
# MPICH), and tests/robustness.sh runs its MPICH cases beside.
MPICH_SKIP := nbc_every_benchmark_validates_on_2_3_4 rma_every_benchmark_validates_on_2_3_4 \
	ext_every_benchmark_validates_on_2_3_4 p2p_every_mode_window_and_sync_on_four_ranks \
	p2p_every_mode_window_and_sync_on_three_ranks seed_command_under_a_launcher_writes_transfer_dat \
	output_matches_the_fixtures multi_1_on_4 every_collective_validates_in_every_scenario_on_4_ranks \
	$(HISTORY_MPICH_SKIP)

BENCH_ARGS ?= run -n 2

# Open MPI refuses to run as root without these (harmless otherwise).
export OMPI_ALLOW_RUN_AS_ROOT := 1
export OMPI_ALLOW_RUN_AS_ROOT_CONFIRM := 1

DEPS_ARGS := $(if $(filter 0,$(WITH_MPICH)),--openmpi-only,)

.PHONY: all deps deps-test build bench test test-docs test-integration test-openmpi test-mpich test-robustness robustness-legs test-slurm test-cluster test-binaries lint overhead clean install uninstall test-install test-packaging deps-packaging

all: build

deps:
	MPICC_MPICH=$(MPICC_MPICH) MPIEXEC_MPICH=$(MPIEXEC_MPICH) \
		bash scripts/install-deps.sh $(DEPS_ARGS)

# Tests also need Chromium (tests/report.rs opens an HTML report in a real
# browser) and Slurm (tests/slurm.sh runs srun and salloc on a private cluster).
deps-test:
	MPICC_MPICH=$(MPICC_MPICH) MPIEXEC_MPICH=$(MPIEXEC_MPICH) \
		bash scripts/install-deps.sh $(DEPS_ARGS) --browser --slurm --cluster

build: deps
	MPICC=$(MPICC_OPENMPI) $(CARGO) build --release

# The binaries the script tests run: always rebuilt (a no-op when fresh), so
# that a stale binary from an earlier checkout is never what gets tested.
# The binaries the shell suites run: built the way the cargo tests build them
# (`cargo test --no-run`, whose feature set includes the dev-dependencies'),
# so that after test-openmpi and test-mpich this is a no-op rather than a
# second release build of each (about 4 minutes on 2 cores).
test-binaries:
	MPICC=$(MPICC_OPENMPI) $(CARGO) test --release --no-run
	@if [ "$(WITH_MPICH)" != 0 ]; then \
		echo "CARGO_TARGET_DIR=$(MPICH_TARGET_DIR) MPICC=$(MPICC_MPICH) $(CARGO) test --release $(MPICH_TESTS) --no-run"; \
		CARGO_TARGET_DIR=$(MPICH_TARGET_DIR) MPICC=$(MPICC_MPICH) $(CARGO) test --release $(MPICH_TESTS) --no-run; \
	fi

# The binary launches itself through mpiexec when not started under a launcher.
bench: build
	mkdir -p results
	MPIBENCH_MPIEXEC=$(MPIEXEC_OPENMPI) ./target/release/mpibench $(BENCH_ARGS) \
		--json results/bench.json --csv results/bench.csv

# More ranks than the 2 cores of a CI machine: let Open MPI oversubscribe.
test test-integration test-openmpi test-mpich test-robustness robustness-legs: export OMPI_MCA_rmaps_base_oversubscribe := 1

# Each leg's wall time is printed after it, and the total at the end.
# MPICH's build runs beside test-docs and Open MPI's test build (their
# target directories made first: two cargos creating them at once race).
# TEST_OVERLAP=1 (the default) runs tests/robustness.sh (mostly waiting on
# launchers and deliberate stalls) beside the cargo tests (mostly CPU), its
# log printed when both have ended; 0 runs them one after the other. Both
# are built to pass on a loaded machine (scripts/robustness-under-load.sh).
TEST_OVERLAP ?= 1
test: deps-test
	@t0=$$(date +%s); \
	leg() { local s=$$(date +%s); \
		$(MAKE) --no-print-directory $$1 || { echo "make test: $${1%% *} failed after $$(( $$(date +%s) - s )) s"; return 1; }; \
		echo "make test: $${1%% *} took $$(( $$(date +%s) - s )) s"; }; \
	mlog=$$(mktemp); mp=""; \
	mkdir -p target $(MPICH_TARGET_DIR); \
	if [ "$(WITH_MPICH)" != 0 ]; then \
		echo "make test: MPICH's build beside test-docs and Open MPI's test build (its log follows them)"; \
		CARGO_TARGET_DIR=$(MPICH_TARGET_DIR) MPICC=$(MPICC_MPICH) $(CARGO) test --release $(MPICH_TESTS) --no-run >$$mlog 2>&1 & mp=$$!; \
	fi; \
	ok=1; leg test-docs || ok=0; \
	if [ $$ok = 1 ]; then MPICC=$(MPICC_OPENMPI) $(CARGO) test --release --no-run || ok=0; fi; \
	if [ -n "$$mp" ]; then wait $$mp || ok=0; cat $$mlog; fi; rm -f $$mlog; \
	[ $$ok = 1 ] || { echo "make test: a build failed"; exit 1; }; \
	if [ "$(TEST_OVERLAP)" = 1 ]; then \
		leg test-binaries || exit 1; \
		log=$$(mktemp); bins=$$(mktemp -d); \
		mkdir $$bins/openmpi $$bins/mpich; \
		cp -p target/release/mpibench $$bins/openmpi/; \
		if [ "$(WITH_MPICH)" != 0 ]; then cp -p $(MPICH_TARGET_DIR)/release/mpibench $$bins/mpich/; fi; \
		echo "make test: test-robustness beside test-integration, on copies of the binaries (its log follows the integration tests)"; \
		leg "robustness-legs OMPI_BIN=$$bins/openmpi/mpibench MPICH_BIN=$$bins/mpich/mpibench" >$$log 2>&1 & rp=$$!; \
		status=0; leg test-integration || status=1; \
		wait $$rp || status=1; cat $$log; rm -f $$log; rm -rf $$bins; \
		[ $$status = 0 ] || exit 1; \
	else \
		leg test-integration || exit 1; \
		leg test-robustness || exit 1; \
	fi; \
	leg test-slurm || exit 1; \
	leg test-cluster || exit 1; \
	leg test-install || exit 1; \
	echo "make test: all passed in $$(( $$(date +%s) - t0 )) s"

# The test-* targets skip `deps`; use `make test` for the full sequence.

# tests/docs.rs starts no MPI rank (only --help and `mpibench list`): every
# option --help prints is documented, every suite has docs/suites/SUITE.md,
# README.md stays short, relative links resolve. First, since it is quick;
# test-openmpi's `cargo test` runs it again with the rest.
test-docs:
	MPICC=$(MPICC_OPENMPI) $(CARGO) test --release --test docs

# Integration tests launch real mpiexec jobs: one at a time, so that they do not
# oversubscribe the cores of a small machine against each other.
test-openmpi:
	MPICC=$(MPICC_OPENMPI) MPIBENCH_MPIEXEC=$(MPIEXEC_OPENMPI) $(CARGO) test --release -- --test-threads=1

test-mpich:
	CARGO_TARGET_DIR=$(MPICH_TARGET_DIR) MPICC=$(MPICC_MPICH) MPIBENCH_MPIEXEC=$(MPIEXEC_MPICH) \
		$(CARGO) test --release $(MPICH_TESTS) -- --test-threads=1 $(MPICH_SKIP:%=--skip %)

# Both MPIs' cargo tests (after one build of everything they run): one
# after the other, live, by default; INTEGRATION_SERIAL=0 runs them at once,
# each into its own log printed when both have ended (faster on a quiet
# machine, but MPICH's 4 busy-polling ranks beside the Open MPI leg on 2
# loaded cores outran a test's 300 s bound once).
INTEGRATION_SERIAL ?= 1
test-integration: test-binaries
	@status=0; \
	if [ "$(INTEGRATION_SERIAL)" = 1 ] || [ "$(WITH_MPICH)" = 0 ]; then \
		$(MAKE) --no-print-directory test-openmpi || status=1; \
		if [ "$(WITH_MPICH)" != 0 ]; then $(MAKE) --no-print-directory test-mpich || status=1; fi; \
		exit $$status; \
	fi; \
	logs=$$(mktemp -d); \
	echo "make test-openmpi > $$logs/openmpi.log & make test-mpich > $$logs/mpich.log &"; \
	$(MAKE) --no-print-directory test-openmpi >$$logs/openmpi.log 2>&1 & p1=$$!; \
	$(MAKE) --no-print-directory test-mpich >$$logs/mpich.log 2>&1 & p2=$$!; \
	wait $$p1 || status=1; \
	wait $$p2 || status=1; \
	for f in $$logs/openmpi.log $$logs/mpich.log; do echo "== $$f"; cat $$f; done; \
	rm -rf $$logs; \
	exit $$status

# tests/robustness.sh runs once per MPI: with the Open MPI release binary
# built by test-openmpi and (unless WITH_MPICH=0) with the MPICH one built by
# test-mpich, both legs at once (each loads the machine for the other, as a
# busy CI runner would: scripts/robustness-under-load.sh shows they hold under
# stress-ng too), each into its own log, printed when both have ended.
# ROBUSTNESS_SERIAL=1 runs them one after the other, live. Both legs run even
# when one fails; the target fails if any did.
ROBUSTNESS_SERIAL ?= 0
test-robustness: test-binaries
	@$(MAKE) --no-print-directory robustness-legs

# The legs of test-robustness, on binaries built already (make test passes
# copies: cargo re-links target/*/release/mpibench on every invocation, and
# the integration tests' cargo runs beside this leg).
OMPI_BIN ?= ./target/release/mpibench
MPICH_BIN ?= ./$(MPICH_TARGET_DIR)/release/mpibench
robustness-legs:
	@if [ ! -f tests/robustness.sh ]; then echo "tests/robustness.sh not found: skipped"; exit 0; fi; \
	status=0; \
	ompi="MPIBENCH_MPIEXEC=$(MPIEXEC_OPENMPI) bash tests/robustness.sh $(OMPI_BIN)"; \
	mpich=""; \
	if [ "$(WITH_MPICH)" != 0 ]; then \
		mpich="MPIBENCH_MPIEXEC=$(MPIEXEC_MPICH) bash tests/robustness.sh $(MPICH_BIN)"; \
	fi; \
	if [ "$(ROBUSTNESS_SERIAL)" = 1 ]; then \
		echo "$$ompi"; eval "$$ompi" || status=1; \
		if [ -n "$$mpich" ]; then echo "$$mpich"; eval "$$mpich" || status=1; fi; \
		exit $$status; \
	fi; \
	logs=$$(mktemp -d); \
	echo "$$ompi > $$logs/openmpi.log &"; \
	eval "$$ompi" >$$logs/openmpi.log 2>&1 & p1=$$!; \
	p2=""; \
	if [ -n "$$mpich" ]; then \
		echo "$$mpich > $$logs/mpich.log &"; \
		eval "$$mpich" >$$logs/mpich.log 2>&1 & p2=$$!; \
	fi; \
	wait $$p1 || status=1; \
	if [ -n "$$p2" ]; then wait $$p2 || status=1; fi; \
	for f in $$logs/openmpi.log $$logs/mpich.log; do [ -f $$f ] && cat $$f; done; \
	rm -rf $$logs; \
	exit $$status

# tests/slurm.sh: starts a private Slurm cluster (scripts/slurm.sh), runs srun and
# salloc cases with the Open MPI binary (and the MPICH one when test-mpich built
# it), and stops the cluster on every exit.
test-slurm: test-binaries
	bash tests/slurm.sh ./target/release/mpibench $(MPICH_TARGET_DIR)/release/mpibench

# tests/cluster.sh: three hosts on this machine (scripts/cluster.sh: network
# namespaces, one link shaped), both MPIs across them; torn down on every exit.
# After the integration tests, not beside them: their load once made the
# intra-host PingPong's best repetition (263 us) slower than the inter-host one.
test-cluster: test-binaries
	bash tests/cluster.sh ./target/release/mpibench $(MPICH_TARGET_DIR)/release/mpibench

# make install PREFIX=DIR [DESTDIR=STAGING]: bin/mpibench, its man page
# (share/man/man1/mpibench.1) and the drop-in names as links to it, listed
# by the binary itself (mpibench --list-drop-ins): bin/IMB-MPI1 ... bin/IMB-MT,
# and every OMB program in OMB's own libexec/osu-micro-benchmarks/mpi/...
# layout. It builds first (cargo build --release, no `deps`) unless NO_BUILD=1,
# and installs INSTALL_BIN. make uninstall removes exactly what install made
# and the directories it leaves empty (scripts/install.sh).
PREFIX ?= /usr/local
DESTDIR ?=
NO_BUILD ?= 0
INSTALL_BIN ?= $(or $(CARGO_TARGET_DIR),target)/release/mpibench
install:
	@if [ "$(NO_BUILD)" != 1 ]; then echo "MPICC=$(MPICC_OPENMPI) $(CARGO) build --release"; MPICC=$(MPICC_OPENMPI) $(CARGO) build --release; fi
	bash scripts/install.sh install "$(DESTDIR)$(PREFIX)" "$(INSTALL_BIN)"

uninstall:
	bash scripts/install.sh uninstall "$(DESTDIR)$(PREFIX)"

# tests/install.sh: make install into a mktemp prefix (and a DESTDIR), an
# installed IMB-MPI1 PingPong and libexec/.../pt2pt/osu_latency under
# mpiexec, make uninstall, the prefix empty.
test-install: test-binaries
	MPIEXEC=$(MPIEXEC_OPENMPI) bash tests/install.sh ./target/release/mpibench

# make test-packaging (not in make test, whose budget it would pass; CI runs
# it after make test): tests/reframe.sh, real ReFrame from PyPI (a venv in
# target/reframe-venv) against make install's prefix: ReFrame's own
# hpctestlib osu_run checks, contrib/reframe's checks, the planted failures,
# on the local system and under the test Slurm with job accounting (sbatch,
# sacct, srun); Open MPI, then MPICH when its binary is built (about 1 min).
# Then tests/packaging.sh: EasyBuild from PyPI builds and installs mpibench
# from a tarball of HEAD and its module is loaded and run (about 6 min); the
# Spack step says why it cannot run here.
deps-packaging:
	MPICC_MPICH=$(MPICC_MPICH) MPIEXEC_MPICH=$(MPIEXEC_MPICH) \
		bash scripts/install-deps.sh $(DEPS_ARGS) --packaging

test-packaging: deps-packaging test-binaries
	@t0=$$(date +%s); ok=1; \
	bash tests/reframe.sh ./target/release/mpibench $(MPICH_TARGET_DIR)/release/mpibench || ok=0; \
	bash tests/packaging.sh || ok=0; \
	echo "make test-packaging: $$([ $$ok = 1 ] && echo 'all passed' || echo FAILED) in $$(( $$(date +%s) - t0 )) s"; \
	[ $$ok = 1 ]

lint:
	$(CARGO) fmt --check
	MPICC=$(MPICC_OPENMPI) $(CARGO) clippy --all-targets --release -- -D warnings

overhead: build
	MPIBENCH=./target/release/mpibench MPICC_OPENMPI=$(MPICC_OPENMPI) \
		MPIEXEC_OPENMPI=$(MPIEXEC_OPENMPI) bash bench/overhead.sh

clean:
	$(CARGO) clean
	rm -rf $(MPICH_TARGET_DIR) target/overhead
