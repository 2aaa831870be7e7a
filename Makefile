# fleetsim — hand-written Makefile.  Objects go to $(BUILD)/ with -MMD -MP.
#   make            build ./fleetsim
#   make test       install missing packages, build, run every test binary
#   make demo       install missing packages, build, run the quickstart scenario
#   make check-layers  every #include within its layer (docs/ARCHITECTURE.md)
#   make golden-update rewrite tests/golden/small.summary.json (review the diff)
#   make bench      build and run the benchmarks (BENCH_ARGS=--full: all of them)
#   make bench-build  build the benchmark programs only (CI)
#   make asan|ubsan the tests under AddressSanitizer / UBSan (own build dirs)
#   make valgrind   the tests under valgrind memcheck
#   make fuzz       build the libFuzzer harnesses of tests/fuzz/ with clang
#                   (build-fuzz/) and run each for FUZZ_SECONDS (default 60)
#   make MPI=1      the MPI build: ./fleetsim-mpi from build-mpi/ with mpicc
#                   (src/par_mpi.c instead of src/par_serial.c), plus the probe
#                   build-mpi/tests/par_mpi_probe that tests/test_par_mpi.c runs
#   make install    install under DESTDIR/PREFIX (docs/INSTALL.md); make uninstall
#   make examples   build examples/ against the installed library (pkg-config)
#   make check-install  install into a temporary DESTDIR and check it all
#   make schema     regenerate docs/scenario.schema.json (fleetsim schema)
#   WERROR=1        adds -Werror;  PREFIX=/usr/local for make install
#   PGO=            builds without the profile-guided pass (see PGO below)

PREFIX  ?= /usr/local
BINDIR  ?= $(PREFIX)/bin
LIBDIR  ?= $(PREFIX)/lib
INCLUDEDIR ?= $(PREFIX)/include
DATADIR ?= $(PREFIX)/share/fleetsim
MANDIR  ?= $(PREFIX)/share/man
BASHCOMPDIR ?= $(PREFIX)/share/bash-completion/completions
# The version lives in the VERSION file; the binary and library get it as
# -DFS_VERSION, fleetsim.pc as its Version.
VERSION := $(shell cat VERSION)
# The MPI build lives beside the default one and never overwrites ./fleetsim.
# Only it needs Open MPI (Debian: openmpi-bin libopenmpi-dev); CC is the
# mpicc wrapper, which supplies the include and library flags itself.
ifeq ($(MPI),1)
MPICC   ?= mpicc
ifeq ($(filter clean,$(MAKECMDGOALS))$(shell command -v $(MPICC) 2>/dev/null),)
$(error MPI=1 needs $(MPICC): apt-get install openmpi-bin libopenmpi-dev, or scripts/deps.sh openmpi-bin libopenmpi-dev)
endif
CC      := $(MPICC)
BUILD   ?= build-mpi
BIN     := fleetsim-mpi
PAR_OFF := src/par_serial.c
MPI_DEFS := -DFS_MPI
else
BUILD   ?= build
BIN     := fleetsim
CC      ?= cc
PAR_OFF := src/par_mpi.c
MPI_DEFS :=
endif
PKGS    := gsl libcjson
OPT     ?= -O3 -g
# Link-time optimisation (docs/PERFORMANCE.md, the seventh speed round):
# every object carries both its machine code and GCC's intermediate form
# (-ffat-lto-objects).  The fleetsim binary, the benchmarks and the tools are
# optimised across files when linked; the test programs link the plain code
# (-fno-lto, seconds instead of minutes), and `make install` ships the
# library without the intermediate form, so any compiler links it.  The
# outputs are the same bytes either way (-ffp-contract=off, no fast math).
# Off in the sanitizer and fuzz builds (SAN given), with LTO= on the command
# line, and where $(CC) lacks -flto=auto -ffat-lto-objects.
ifeq ($(origin LTO),undefined)
LTO := $(if $(SAN),,$(shell $(CC) -flto=auto -ffat-lto-objects -x c -c /dev/null \
	-o /dev/null 2>/dev/null && echo -flto=auto))
endif
LTO_LINK := $(if $(LTO),$(LTO) $(OPT))
# Structs zeroed in the hot path (a step's report, a run's recording sums:
# 100-300 bytes) by plain stores rather than GCC's default `rep stos` on
# x86, whose start-up cost dominated at these sizes (docs/PERFORMANCE.md, the
# ninth speed round); larger ones call memset.  Only where $(CC) takes it.
STRINGOP := $(shell $(CC) -mmemset-strategy=unrolled_loop:512:noalign,libcall:-1:noalign \
	-x c -c /dev/null -o /dev/null 2>/dev/null && \
	echo -mmemset-strategy=unrolled_loop:512:noalign,libcall:-1:noalign)
NO_LTO   := $(if $(LTO),-fno-lto)
# Profile-guided optimisation (docs/PERFORMANCE.md, the sixteenth speed
# round): the library and the binary are first built instrumented in
# $(BUILD)/pgo/ (compiled as the real build, linked without LTO); that build
# runs the bundled scenarios of PGO_TRAIN (never bench/), and its branch and
# call counts then steer the real build's inlining, block layout and
# unrolling.  The outputs are the same bytes either way (no option that
# changes arithmetic).  Functions the training never ran are optimised as
# without a profile (-fprofile-partial-training).  Any change of a source
# file trains again; PGO= on the command line turns it off (a quicker edit
# and test loop).  Off in the sanitizer, fuzz and MPI builds, and where
# $(CC) lacks the options below (GCC 11 and later have them).
ifeq ($(origin PGO),undefined)
PGO := $(if $(SAN)$(filter 1,$(MPI)),,$(shell $(CC) -fprofile-use -fprofile-partial-training \
	-fprofile-prefix-path=/ -dumpbase-ext .c -Wno-missing-profile -x c -c /dev/null \
	-o /dev/null 2>/dev/null && echo 1))
endif
PGO_DIR   := $(BUILD)/pgo
PGO_DATA  := $(CURDIR)/$(PGO_DIR)/counts
PGO_STAMP := $(if $(PGO),$(PGO_DIR)/trained)
PGO_USE   := $(if $(PGO),-fprofile-use=$(PGO_DATA) -fprofile-partial-training -Wno-missing-profile \
	-fprofile-prefix-path=$(CURDIR)/$(BUILD))
PGO_GEN   := -fprofile-generate=$(PGO_DATA) -fprofile-update=single \
	-fprofile-prefix-path=$(CURDIR)/$(BUILD)
# What the instrumented build runs: one replication of each, one thread.
PGO_TRAIN := scenarios/quickstart.json scenarios/llm-single-replica.json \
	scenarios/chat-sessions.json scenarios/mooncake-prefix.json \
	scenarios/autoscaling.json scenarios/spot-strategies.json \
	scenarios/azure-code-replay.json scenarios/open-model-config.json
OBJCOPY  ?= objcopy

WARN := -Wall -Wextra -Wpedantic -Wshadow -Wstrict-prototypes \
        -Wmissing-prototypes -Wswitch-enum -Wvla -Wformat=2 \
        -Wcast-align -Wpointer-arith -Wundef -Wwrite-strings -Wcast-qual \
        -fno-common
ifeq ($(WERROR),1)
WARN += -Werror
endif

PKG_CFLAGS := $(shell pkg-config --cflags $(PKGS) 2>/dev/null)
PKG_LIBS   := $(shell pkg-config --libs $(PKGS) 2>/dev/null)
CMOCKA_CFLAGS := $(shell pkg-config --cflags cmocka 2>/dev/null)
CMOCKA_LIBS   := $(shell pkg-config --libs cmocka 2>/dev/null)

CFLAGS  += -std=c11 -D_POSIX_C_SOURCE=200809L -D_DEFAULT_SOURCE $(OPT) $(WARN) \
           -ffp-contract=off -fopenmp -Iinclude $(MPI_DEFS) $(PKG_CFLAGS) $(SAN) \
           -DFS_DATADIR='"$(PREFIX)/share/fleetsim"' -DFS_VERSION='"$(VERSION)"' \
           $(if $(LTO),$(LTO) -ffat-lto-objects) $(STRINGOP)
LDFLAGS += -fopenmp $(SAN)
LDLIBS  += $(PKG_LIBS) -lm

MAIN_SRC := src/main.c
LIB_SRC  := $(filter-out $(MAIN_SRC) $(PAR_OFF),$(wildcard src/*.c))
LIB_OBJ  := $(LIB_SRC:src/%.c=$(BUILD)/src/%.o)
LIB      := $(BUILD)/libfleetsim.a
TEST_SRC := $(wildcard tests/test_*.c)
TEST_BIN := $(TEST_SRC:tests/%.c=$(BUILD)/tests/%)
TEST_UTIL_OBJ := $(patsubst tests/%.c,$(BUILD)/tests/%.o,$(wildcard tests/util_*.c))
BENCH_SRC := $(wildcard bench/bench_*.c)
BENCH_BIN := $(BENCH_SRC:bench/%.c=$(BUILD)/bench/%)
# Programs the tests launch under mpirun; built only by make MPI=1.
ifeq ($(MPI),1)
MPI_PROBE := $(BUILD)/tests/par_mpi_probe
endif

.PHONY: all deps test demo bench bench-build asan ubsan valgrind install clean check-tests \
        fuzz fuzz-build fuzz-bins fit-step check-long uninstall examples \
        check-install schema
.PHONY: check-layers golden-update FORCE
all: $(BIN) $(MPI_PROBE)

# The flag stamp: $(BUILD)/.flags holds the compiler and flags in use and is
# rewritten only when they change, so a changed CFLAGS (OPT=, SAN=, WERROR=,
# PREFIX=...) rebuilds every object while an unchanged one rebuilds nothing.
FLAGS_NOW := $(strip $(CC) $(CFLAGS) $(CMOCKA_CFLAGS) | $(LDFLAGS) $(LDLIBS) | $(PGO_USE))
$(BUILD)/.flags: FORCE
	@mkdir -p $(@D); flags='$(subst ','\'',$(FLAGS_NOW))'; \
	if [ "$$flags" != "$$(cat $@ 2>/dev/null)" ]; then printf '%s\n' "$$flags" > $@; fi
FORCE:

# Test objects are kept: as intermediates of the pattern rule below make
# would delete them after linking, and the next `make test` would compile
# and relink every test binary again.
.SECONDARY: $(TEST_BIN:=.o) $(TEST_UTIL_OBJ) $(MPI_PROBE:=.o)

deps:
	@scripts/deps.sh

$(BUILD)/src/%.o: src/%.c $(BUILD)/.flags $(PGO_STAMP)
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) $(PGO_USE) -MMD -MP -c $< -o $@

# The instrumented build and its training runs (see PGO above).  Its
# objects take the real objects' auxiliary name (-dumpdir, -dumpbase): GCC
# keys a static function's counts by it, and by the prefix-stripped object
# path the counts file (counts/src#NAME.gcda).
PGO_OBJ := $(patsubst src/%.c,$(PGO_DIR)/src/%.o,$(LIB_SRC) $(MAIN_SRC))
$(PGO_DIR)/src/%.o: src/%.c $(BUILD)/.flags
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) $(PGO_GEN) -dumpdir $(BUILD)/src/ -dumpbase $(notdir $<) \
		-dumpbase-ext .c -MMD -MP -c $< -o $@

$(PGO_DIR)/fleetsim: $(PGO_OBJ)
	$(CC) $(LDFLAGS) $(PGO_GEN) -o $@ $^ $(LDLIBS)

$(PGO_DIR)/trained: $(PGO_DIR)/fleetsim $(PGO_TRAIN)
	@rm -rf $(PGO_DATA) $(PGO_DIR)/out
	@echo "training the build on $(words $(PGO_TRAIN)) bundled scenarios (PGO= skips it)"
	@for s in $(PGO_TRAIN); do \
		./$(PGO_DIR)/fleetsim run $$s -r 1 -j 1 -q -o $(PGO_DIR)/out/$$(basename $$s .json) \
			> /dev/null || exit 1; \
	done
	@touch $@

$(LIB): $(LIB_OBJ)
	@rm -f $@
	ar rcs $@ $^

$(BIN): $(BUILD)/src/main.o $(LIB)
	$(CC) $(LDFLAGS) $(LTO_LINK) -o $@ $^ $(LDLIBS)

# The library as installed: without the intermediate form (see LTO above).
$(BUILD)/install/libfleetsim.a: $(LIB)
	@mkdir -p $(dir $@)
	$(if $(LTO),$(OBJCOPY) --wildcard -R '.gnu.lto_*' -R '.gnu.debuglto_*' $< $@,cp $< $@)

$(BUILD)/tests/%.o: tests/%.c $(BUILD)/.flags
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) $(CMOCKA_CFLAGS) -Itests -MMD -MP -c $< -o $@

$(BUILD)/tests/test_%: $(BUILD)/tests/test_%.o $(TEST_UTIL_OBJ) $(LIB)
	$(CC) $(LDFLAGS) $(NO_LTO) -o $@ $^ $(CMOCKA_LIBS) $(LDLIBS)

$(BUILD)/tests/par_mpi_probe: $(BUILD)/tests/par_mpi_probe.o $(LIB)
	$(CC) $(LDFLAGS) $(NO_LTO) -o $@ $^ $(LDLIBS)

$(BUILD)/bench/%: bench/%.c $(LIB)
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) -o $@ $< $(LIB) $(LDFLAGS) $(LDLIBS)

# Every test binary runs even when one fails; the target fails if any did.
# Tests run from the repository root (they use tests/ and scenarios/ files,
# and the binary named by FLEETSIM_BIN).
# TEST_SKIP names test binaries (test_NAME) not to run, each said so with
# TEST_SKIP_WHY: the sanitizer builds skip what they cannot run.
TEST_RUN := $(filter-out $(TEST_SKIP:%=$(BUILD)/tests/%),$(TEST_BIN))
check-tests: $(BIN) $(TEST_BIN)
	@for t in $(TEST_SKIP); do echo "== $$t skipped: $(TEST_SKIP_WHY)"; done; \
	failed=""; for t in $(TEST_RUN); do \
		echo "== $$t"; FLEETSIM_BIN=./$(BIN) $(TEST_WRAP) ./$$t || failed="$$failed $$t"; \
	done; \
	if [ -n "$$failed" ]; then echo "FAILED:$$failed"; exit 1; fi; \
	echo "all $(words $(TEST_RUN)) test binaries passed"

test: deps
	@$(MAKE) --no-print-directory check-tests

# The layer rule of docs/ARCHITECTURE.md: each #include names a file of its
# own or a lower layer.
check-layers:
	@scripts/check_layers.sh

# Rewrite the golden summary of tests/test_golden.c after an intended change
# of figures; the diff of tests/golden/small.summary.json is the review.
golden-update: $(BIN)
	@rm -rf $(BUILD)/golden
	./$(BIN) run tests/golden/small.json -j 2 -q -o $(BUILD)/golden
	cp $(BUILD)/golden/summary.json tests/golden/small.summary.json

# The slow statistical checks (about 2.5 minutes on 2 cores): coverage of the
# mean, p90 and p99 sojourn of M/M/1 at rho 0.8 and 0.9 over 300 seeds each.
check-long: $(BUILD)/tests/test_coverage
	FLEETSIM_CHECK_LONG=1 ./$(BUILD)/tests/test_coverage

# The demo: the quickstart configuration simulated and summarised, then its
# sweep (cheapest GPU type and replica count meeting the SLOs) and the report.
demo: deps
	@$(MAKE) --no-print-directory $(BIN)
	./$(BIN) run scenarios/quickstart.json -o out/quickstart
	./$(BIN) sweep scenarios/quickstart.json -o out/quickstart-sweep
	./$(BIN) report out/quickstart-sweep

# The step-time model's fit on the published points (docs/VALIDATION.md):
# prints the fitted shared terms and the fit / validation errors.
$(BUILD)/tools/%: tools/%.c $(LIB)
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) -o $@ $< $(LIB) $(LDFLAGS) $(LDLIBS)

fit-step: $(BUILD)/tools/fit_step
	$(BUILD)/tools/fit_step docs/data/step_points.csv --rows

# The benchmarks (docs/PERFORMANCE.md), a few minutes, never part of make
# test: the event queue and histogram micro-benchmarks, then bench_fleet
# (CPU-time rates of bench/*.json, peak RSS, the hold-loop reference, the
# 2-thread speedup, the series fit).  BENCH_ARGS=--sweep adds the timed
# bench/sweep-60.json sweep; --full also its unshared twin and the largest
# series cases.
bench: $(BIN) $(BENCH_BIN)
	./$(BUILD)/bench/bench_eventq
	./$(BUILD)/bench/bench_fleet $(BENCH_ARGS)

# The benchmark programs built, none run (CI: they keep compiling).
bench-build: $(BIN) $(BENCH_BIN)

# The sanitizer builds make undefined behaviour fatal, and skip the MPI test:
# its probe and mpirun are the uninstrumented MPI build, and Open MPI's own
# allocations read as leaks to LeakSanitizer.
SAN_SKIP := TEST_SKIP=test_par_mpi \
	TEST_SKIP_WHY="under a sanitizer (MPI runs uninstrumented; make MPI=1 && make test runs it)"

asan:
	@$(MAKE) --no-print-directory BUILD=build-asan BIN=build-asan/fleetsim OPT="-O1 -g" \
		SAN="-fsanitize=address,undefined -fno-sanitize-recover=undefined \
		-fno-omit-frame-pointer" $(SAN_SKIP) check-tests

ubsan:
	@$(MAKE) --no-print-directory BUILD=build-ubsan BIN=build-ubsan/fleetsim OPT="-O1 -g" \
		SAN="-fsanitize=undefined -fno-sanitize-recover=undefined" $(SAN_SKIP) check-tests

valgrind:
	@$(MAKE) --no-print-directory check-tests \
		TEST_WRAP="valgrind -q --error-exitcode=99 --leak-check=full"

# ---- fuzzing: libFuzzer harnesses (tests/fuzz/), clang, ASan + UBSan ----------
# The library is built with coverage instrumentation (fuzzer-no-link) in
# build-fuzz/; each harness links libFuzzer's main.  fuzz_trace.c and
# fuzz_capacity.c are built once per format.  Every harness runs for
# FUZZ_SECONDS from the repository root, its seeds in tests/fuzz/NAME/ and
# what it finds in build-fuzz/corpus/NAME/ (fuzz_scenario and fuzz_set with
# the key dictionary tests/fuzz/scenario.dict); a crash leaves its input in
# build-fuzz/artifacts/.  The target fails when any harness failed.
FUZZ_CC      ?= clang
FUZZ_SECONDS ?= 60
FUZZ_NAMES   := scenario set trace_azure trace_vidur trace_mooncake \
                capacity_skypilot capacity_spotserve step_table empirical catalog
FUZZ_BIN     := $(FUZZ_NAMES:%=$(BUILD)/fuzz/fuzz_%)
FUZZ_OBJ     := $(FUZZ_BIN:=.o)
FUZZ_SAN     := -fsanitize=address,undefined -fno-sanitize-recover=undefined \
                -fno-omit-frame-pointer

$(filter %/fuzz_trace_azure.o %/fuzz_trace_vidur.o %/fuzz_trace_mooncake.o,$(FUZZ_OBJ)): \
$(BUILD)/fuzz/fuzz_trace_%.o: tests/fuzz/fuzz_trace.c
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) -Itests/fuzz -MMD -MP \
		-DFUZZ_TRACE_FORMAT=FS_TRACE_$$(echo $* | tr a-z A-Z) -c $< -o $@

$(filter %/fuzz_capacity_skypilot.o %/fuzz_capacity_spotserve.o,$(FUZZ_OBJ)): \
$(BUILD)/fuzz/fuzz_capacity_%.o: tests/fuzz/fuzz_capacity.c
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) -Itests/fuzz -MMD -MP \
		-DFUZZ_CAPACITY_FORMAT=FS_CAPACITY_$$(echo $* | tr a-z A-Z) -c $< -o $@

$(filter-out %/fuzz_trace_azure.o %/fuzz_trace_vidur.o %/fuzz_trace_mooncake.o \
	%/fuzz_capacity_skypilot.o %/fuzz_capacity_spotserve.o,$(FUZZ_OBJ)) \
$(BUILD)/fuzz/fuzz_util.o: $(BUILD)/fuzz/%.o: tests/fuzz/%.c
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) -Itests/fuzz -MMD -MP -c $< -o $@

$(FUZZ_BIN): $(BUILD)/fuzz/%: $(BUILD)/fuzz/%.o $(BUILD)/fuzz/fuzz_util.o $(LIB)
	$(CC) $(LDFLAGS) -fsanitize=fuzzer -o $@ $^ $(LDLIBS)

fuzz-bins: $(FUZZ_BIN)

fuzz-build:
	@scripts/deps.sh fuzz
	@$(MAKE) --no-print-directory BUILD=build-fuzz CC=$(FUZZ_CC) OPT="-O1 -g" \
		SAN="-fsanitize=fuzzer-no-link $(FUZZ_SAN)" fuzz-bins

fuzz: fuzz-build
	@failed=""; for h in $(FUZZ_NAMES); do \
		mkdir -p build-fuzz/corpus/$$h build-fuzz/artifacts; \
		dict=""; case $$h in scenario|set|catalog) dict=-dict=tests/fuzz/scenario.dict;; esac; \
		echo "== fuzz_$$h for $(FUZZ_SECONDS) s"; \
		if ./build-fuzz/fuzz/fuzz_$$h -max_total_time=$(FUZZ_SECONDS) -timeout=20 \
			-max_len=16384 -print_final_stats=1 $$dict \
			-artifact_prefix=build-fuzz/artifacts/$$h- \
			build-fuzz/corpus/$$h tests/fuzz/$$h > build-fuzz/fuzz_$$h.log 2>&1; \
		then echo "fuzz_$$h: ok, $$(sed -n 's/^stat::number_of_executed_units: *//p' \
			build-fuzz/fuzz_$$h.log) executions"; \
		else tail -n 60 build-fuzz/fuzz_$$h.log; echo "fuzz_$$h: FAILED"; \
			failed="$$failed fuzz_$$h"; fi; \
	done; \
	if [ -n "$$failed" ]; then echo "FAILED:$$failed"; exit 1; fi; \
	echo "all $(words $(FUZZ_NAMES)) fuzz harnesses ran $(FUZZ_SECONDS) s without a failure"

# ---- installing ----------------------------------------------------------------
# DESTDIR stages the tree (packaging); PREFIX is where it will live.  The
# example scenarios keep their data/ and traces/ beside them, as their
# relative paths need.  The bash completion is printed by the built binary.
INSTALL ?= install
SCENARIO_FILES := $(wildcard scenarios/*.json)
SCENARIO_DATA  := $(wildcard scenarios/data/*) $(wildcard scenarios/traces/*)
PUBLIC_HEADERS := $(wildcard include/fleetsim/*.h)

$(BUILD)/fleetsim.pc: fleetsim.pc.in VERSION
	@mkdir -p $(dir $@)
	sed -e 's|@PREFIX@|$(PREFIX)|' \
	    -e 's|@LIBDIR@|$(patsubst $(PREFIX)/%,$${prefix}/%,$(LIBDIR))|' \
	    -e 's|@INCLUDEDIR@|$(patsubst $(PREFIX)/%,$${prefix}/%,$(INCLUDEDIR))|' -e 's|@VERSION@|$(VERSION)|' \
	    -e 's|@PRIVATE_LIBS@|$(PKG_LIBS) -fopenmp -lm|' fleetsim.pc.in > $@

$(BUILD)/fleetsim.bash: $(BIN)
	./$(BIN) completion bash > $@

install: $(BIN) $(BUILD)/install/libfleetsim.a $(BUILD)/fleetsim.pc $(BUILD)/fleetsim.bash
	$(INSTALL) -d $(DESTDIR)$(BINDIR) $(DESTDIR)$(LIBDIR)/pkgconfig \
		$(DESTDIR)$(INCLUDEDIR)/fleetsim $(DESTDIR)$(MANDIR)/man1 \
		$(DESTDIR)$(DATADIR)/plots $(DESTDIR)$(DATADIR)/scenarios/data \
		$(DESTDIR)$(DATADIR)/scenarios/traces $(DESTDIR)$(DATADIR)/examples \
		$(DESTDIR)$(BASHCOMPDIR)
	$(INSTALL) -m 755 $(BIN) $(DESTDIR)$(BINDIR)/$(notdir $(BIN))
	$(INSTALL) -m 644 $(BUILD)/install/libfleetsim.a $(DESTDIR)$(LIBDIR)/libfleetsim.a
	$(INSTALL) -m 644 $(BUILD)/fleetsim.pc $(DESTDIR)$(LIBDIR)/pkgconfig/fleetsim.pc
	$(INSTALL) -m 644 $(PUBLIC_HEADERS) $(DESTDIR)$(INCLUDEDIR)/fleetsim/
	$(INSTALL) -m 644 docs/fleetsim.1 $(DESTDIR)$(MANDIR)/man1/fleetsim.1
	$(INSTALL) -m 644 plots/*.gp $(DESTDIR)$(DATADIR)/plots/
	$(INSTALL) -m 644 $(SCENARIO_FILES) $(DESTDIR)$(DATADIR)/scenarios/
	$(INSTALL) -m 644 $(wildcard scenarios/data/*) $(DESTDIR)$(DATADIR)/scenarios/data/
	$(INSTALL) -m 644 $(wildcard scenarios/traces/*) $(DESTDIR)$(DATADIR)/scenarios/traces/
	$(INSTALL) -m 644 docs/scenario.schema.json $(DESTDIR)$(DATADIR)/scenario.schema.json
	$(INSTALL) -m 644 examples/*.c $(DESTDIR)$(DATADIR)/examples/
	$(INSTALL) -m 644 $(BUILD)/fleetsim.bash $(DESTDIR)$(BASHCOMPDIR)/fleetsim

# Removes exactly what install put there, then the directories it made
# when they are left empty.
uninstall:
	rm -f $(DESTDIR)$(BINDIR)/$(notdir $(BIN)) $(DESTDIR)$(LIBDIR)/libfleetsim.a \
		$(DESTDIR)$(LIBDIR)/pkgconfig/fleetsim.pc $(DESTDIR)$(MANDIR)/man1/fleetsim.1 \
		$(DESTDIR)$(BASHCOMPDIR)/fleetsim \
		$(PUBLIC_HEADERS:include/%=$(DESTDIR)$(INCLUDEDIR)/%)
	rm -rf $(DESTDIR)$(DATADIR)
	-rmdir $(DESTDIR)$(INCLUDEDIR)/fleetsim 2>/dev/null

# examples/ built against the INSTALLED library through pkg-config: its
# fleetsim.pc under DESTDIR when DESTDIR is set (--define-prefix then
# points the paths at the staged tree), else the one on the system path.
EXAMPLES_PC_PATH := $(if $(DESTDIR),$(DESTDIR)$(LIBDIR)/pkgconfig$(if $(PKG_CONFIG_PATH),:$(PKG_CONFIG_PATH)),$(PKG_CONFIG_PATH))
EXAMPLES_PC_FLAGS := $(if $(DESTDIR),--define-prefix)
examples: $(BUILD)/examples/embed

$(BUILD)/examples/embed: examples/embed.c FORCE
	@mkdir -p $(dir $@)
	$(CC) -std=c11 $(OPT) -o $@ $< \
		$$(PKG_CONFIG_PATH=$(EXAMPLES_PC_PATH) pkg-config $(EXAMPLES_PC_FLAGS) \
		--cflags --libs fleetsim)

FORCE:

check-install: $(BIN)
	scripts/check_install.sh

# docs/scenario.schema.json is `fleetsim schema` (tests/test_schema.c
# fails when they differ).
schema: $(BIN)
	./$(BIN) schema > docs/scenario.schema.json

clean:
	rm -rf build build-asan build-ubsan build-mpi build-fuzz fleetsim fleetsim-mpi

-include $(LIB_OBJ:.o=.d) $(BUILD)/src/main.d $(PGO_OBJ:.o=.d) $(TEST_BIN:=.d) $(TEST_UTIL_OBJ:.o=.d) \
	$(MPI_PROBE:=.d) $(FUZZ_BIN:=.d) $(BUILD)/fuzz/fuzz_util.d
