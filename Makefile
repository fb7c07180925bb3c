# lossless: the human entry points.
#
#   make            build everything: userspace (CMake), BPF, tc plugin, module
#   make check      build, then run every test: host tests (ctest), the host
#                   tests again built with ASan+UBSan (check-san), then the
#                   VM tests (the module runs under QEMU). With CI=true (as
#                   .ci/run runs) the build has -Werror (WERROR=ON|OFF
#                   overrides)
#   make check-vm   the VM suite alone (TESTS="test_x.py ..." to pick); each
#                   test has a budget (tests/vm/budgets) and prints its time
#   make check-repeat TESTS="test_x.py ..." N=5
#                   runs VM tests N times in one boot and prints, per check,
#                   its passes and the spread of its measured value
#   make check-san  the host targets built with ASan+UBSan in build/san
#                   (LL_SANITIZE, CMakeLists.txt), then their ctest suite
#   make demo       build, then boot the VM and show a port pausing under PFC
#   make bench      build, then run the benchmarks and print their numbers
#                   (BENCH_DSCP=24: the bridge bench's packets lossless,
#                   priority 3, instead of priority 0; the Bifrost port
#                   mode's path is measured only so)
#   make line-rate  build, then the full line-rate matrix in the VM (3:1 and
#                   8:1 incast at 20 and 100 Mbit/s, 5 runs each, each
#                   next to a no-PFC control) and test_incast.py (8:1 at
#                   5 Mbit/s for 10 s); make check runs one of each
#                   incast at 20 Mbit/s
#   make compare    build, then run one scenario under several switch schemes
#                   in the VM and print one table (docs/COMPARE.md):
#                   SCENARIO=incast-websearch by default, SCHEMES the
#                   scenario's own list (its 'schemes' key) unless given;
#                   FABRIC=leaf-spine through two leaves and two spines,
#                   SET="KEY=VALUE ..." scenario keys for this run;
#                   writes build/compare/SCENARIO.json and .png
#   make portfc-deadlock
#                   build, then PortFC's deadlock scenario S-04 on BCube(4,1)
#                   in the VM, PFC against PortFC, SEEDS=3 seeds
#                   (tests/portfc/deadlock.py; docs/PORTFC.md); writes
#                   build/portfc-deadlock/deadlock.json and the ring flows'
#                   plot portfc-deadlock.png (docs/img/ has the doc's)
#   make portfc-fct build, then throughput and FCT on BCube(4,1), a seeded
#                   permutation of WebSearch and long flows through relays,
#                   PFC against PortFC, SEEDS=2 seeds, SW_DELAY=TIME the
#                   software delay PFC's headroom is sized for (default
#                   200ms: with 30ms a loaded VM broke the premise and PFC
#                   dropped) (tests/portfc/fct.py; docs/PORTFC.md); writes
#                   build/portfc-fct/fct.json
#   make module     the module for the running kernel if its headers are
#                   installed, else for the newest /boot/vmlinuz-* with
#                   headers (says which); KVER=VERSION or KDIR=DIR picks
#                   another (kernel/Makefile)
#   make dkms-install
#                   the module as a DKMS package (root; package dkms): the
#                   sources to /usr/src/lossless-VERSION, then dkms add,
#                   build and install for KVER (default: as make module
#                   picks it); dkms rebuilds it for every kernel installed
#                   later. make dkms-uninstall removes it (dkms remove
#                   --all, the sources)
#   make dkms-check the same DKMS build against the VM's kernel headers with
#                   dkms's trees in build/dkms (nothing written to /usr/src,
#                   /lib/modules or /var/lib/dkms; checked), printing its
#                   time; make check runs it, and tests/vm/test_dkms.sh
#                   loads the result in the VM
#   make netlink-fuzz [KDEBUG=1]
#                   build, then NLFUZZ_MESSAGES=100000 random, mutated,
#                   truncated and oversized qdisc requests (seed
#                   NLFUZZ_SEED=1) to a pool with traffic in the VM: every
#                   refusal with an extack message, nothing changed by one,
#                   no kernel report (tests/vm/test_netlink_fuzz.py;
#                   docs/RELIABILITY.md); make check runs 4000.
#                   KDEBUG=1 (here and for check-vm): on the debug kernel
#   make kdebug     the debug kernel for the VM: Debian's linux-source-6.1
#                   with KASAN, lockdep, atomic-sleep checks, kmemleak,
#                   UBSAN and KFENCE (vm-images/kdebug.config), and the
#                   module built against it, in build/kdebug (cached;
#                   scripts/setup.sh --kdebug installs its packages).
#                   Rebuilds in about a minute once built (the first
#                   build: over an hour on a loaded 2-core host)
#   make check-kdebug
#                   build, make kdebug, then the VM suite (TESTS= to pick)
#                   on the debug kernel with budgets x KDEBUG_SCALE_PCT/100
#                   (default 400): fails on any report in the kernel log
#                   and on a kmemleak object allocated through the module.
#                   Not in make check (its time); run it after every change
#                   to kernel/ (docs/RELIABILITY.md)
#   make soak       build, then the soak with chaos in the VM for
#                   DURATION of traffic (default 30m; s, m or h): mixed
#                   lossless and lossy traffic through a leaf-spine of
#                   bridges under every scheme in turn while losslessd is
#                   killed, links flap, ports are renamed and deleted, the
#                   configuration is reloaded, parameters and schemes
#                   change, malformed frames and PFC storms arrive and the
#                   module is reloaded between schemes; zero lossless drops
#                   where the headroom's premise held, no kernel report, no
#                   leak, counters that add up; prints the faults injected
#                   and survived with their recovery times and the premise
#                   per port (tests/vm/test_soak.py; docs/RELIABILITY.md);
#                   writes build/soak/soak.json. Its short form (12 s of
#                   traffic, dt and spfc, one spine: 139-192 s in the
#                   VM) is make check-vm TESTS=test_soak.py, not in make
#                   check (docs/RELIABILITY.md)
#   make checkpatch kernel style check of the module and the core
#   make install    build userspace, then install it under PREFIX (default
#                   /usr/local; DESTDIR=DIR stages it there): losslessd,
#                   losslessctl, lossless-ingress, lossless-cc, the BPF
#                   object, the tc plugin (in tc's own directory), the
#                   systemd unit, an example configuration and the docs
#                   (README "Installing")
#   make uninstall  remove what make install put there (same PREFIX, DESTDIR)
#   make fuzz       build, then run every libFuzzer target (tests/fuzz, clang
#                   with ASan+UBSan): 10^6 executions per frame parser and
#                   the ingress program, 10^5 for config and request;
#                   FUZZ_RUNS=N runs N each. make check runs 10^4 of each
#
# The README's two commands run scripts/setup.sh first, which installs every
# Debian package these targets need.

BUILD_DIR ?= $(CURDIR)/build
JOBS ?= $(shell nproc)
RUN_VM := $(CURDIR)/vm-images/run-vm
export LL_BUILD_DIR := $(BUILD_DIR)
PREFIX ?= /usr/local
DESTDIR ?=
# -Werror in CI, where .ci/run has CI=true: CMake's LL_WERROR for the
# userspace, KCFLAGS for the module (the BPF objects always have it).
WERROR ?= $(if $(filter true,$(CI)),ON,OFF)
SAN_BUILD_DIR ?= $(BUILD_DIR)/san
BENCH_DSCP ?= 0
# Every finding fails its test, with a stack.
SAN_ENV := ASAN_OPTIONS=detect_leaks=1:halt_on_error=1:check_initialization_order=1:strict_init_order=1 \
	UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1

all: userspace module

userspace:
	cmake -S . -B $(BUILD_DIR) -DCMAKE_BUILD_TYPE=RelWithDebInfo -DLL_WERROR=$(WERROR) >/dev/null
	cmake --build $(BUILD_DIR) -j $(JOBS)

module:
	$(MAKE) -C kernel $(if $(filter ON,$(WERROR)),KCFLAGS=-Werror)

# The kernel make module builds for (kernel/Makefile's choice, or KVER).
MODULE_KVER = $(or $(KVER),$(shell $(MAKE) -s --no-print-directory -C kernel kver))
dkms-install:
	JOBS=$(JOBS) scripts/dkms.sh install '$(MODULE_KVER)'

dkms-uninstall:
	scripts/dkms.sh uninstall

# make check's DKMS build: for the kernel the VM boots (run-vm's choice).
# A file target: check-vm builds it when its test runs and the sources
# changed.
VM_KVER = $(or $(LL_KERNEL_VERSION),$(shell ls /boot/vmlinuz-* 2>/dev/null | sed 's|/boot/vmlinuz-||' | sort -V | tail -n1))
DKMS_KO := $(BUILD_DIR)/dkms/sch_lossless.ko
$(DKMS_KO): kernel/Kbuild kernel/dkms.conf.in scripts/dkms.sh CMakeLists.txt \
		$(wildcard kernel/*.[ch] kernel/core/*.[ch] kernel/uapi/*.h)
	JOBS=$(JOBS) scripts/dkms.sh check $(BUILD_DIR)/dkms '$(VM_KVER)'

dkms-check:
	rm -f $(DKMS_KO)
	$(MAKE) $(DKMS_KO)

# Each step says how long it took (scripts/timed.sh); `all` is the rest.
check: all
	scripts/timed.sh checkpatch scripts/checkpatch.sh
	scripts/timed.sh ctest sh -c 'cd $(BUILD_DIR) && ctest --output-on-failure -j $(JOBS)'
	scripts/timed.sh check-san $(MAKE) check-san
	scripts/timed.sh fuzz tests/fuzz/run-fuzz.sh --short
	scripts/timed.sh dkms $(MAKE) $(DKMS_KO)
	scripts/timed.sh check-vm $(MAKE) check-vm

check-host: all
	cd $(BUILD_DIR) && ctest --output-on-failure -j $(JOBS)

# The C (the core) at -O1, as the sanitizers advise; the C++ at -O0: gcc
# builds the sanitized tests and daemon three times faster so (466 s ->
# 224 s for build/san on 2 cores), and the few tests that loop long keep
# -O1 (tests/unit/CMakeLists.txt). The tc plugin's headers come from the
# main build's iproute2 source tree (userspace fetches it).
check-san: userspace
	cmake -S . -B $(SAN_BUILD_DIR) -DCMAKE_BUILD_TYPE=RelWithDebInfo -DLL_SANITIZE=ON \
		-DCMAKE_C_FLAGS_RELWITHDEBINFO="-O1 -g -DNDEBUG" \
		-DCMAKE_CXX_FLAGS_RELWITHDEBINFO="-O0 -g -DNDEBUG" \
		-DIPROUTE2_SOURCE_DIR=$(BUILD_DIR)/iproute2-src/tree >/dev/null
	cmake --build $(SAN_BUILD_DIR) -j $(JOBS)
	cd $(SAN_BUILD_DIR) && $(SAN_ENV) ctest --output-on-failure -j $(JOBS)

# The suite's timeout is the sum of its tests' budgets (tests/vm/budgets:
# 1.5 x each test's measured time) and the boot's, so a test over its own
# budget fails by name before run-vm kills the VM.
VM_SUITE_BUDGET = $(shell tests/vm/budget.sh suite $(TESTS))
# The DKMS-built module, when test_dkms.sh runs (the whole suite or named).
check-vm: all $(KDEBUG_DEP) $(if $(or $(if $(TESTS),,all),$(filter test_dkms.sh,$(notdir $(TESTS)))),$(DKMS_KO))
	LL_SUITE_BUDGET_S=$(VM_SUITE_BUDGET) $(RUN_VM) --timeout $(VM_SUITE_BUDGET) --fail-on-warn -- \
		tests/vm/run-all.sh $(TESTS)

# Runs VM tests N times in one boot, then prints per check its passes and
# the spread of its measured value (tests/vm/repeat-summary.py): a flaky
# check is found here before CI finds it. The logs stay in
# build/check-repeat.
REPEAT_DIR = $(BUILD_DIR)/check-repeat
REPEAT_N = $(or $(N),5)
REPEAT_BUDGET = $(shell tests/vm/budget.sh suite --repeat $(REPEAT_N) $(TESTS))
check-repeat: all
	@test -n '$(TESTS)' || { echo 'make check-repeat: name the tests, e.g. TESTS="test_spfc.py" N=5' >&2; exit 2; }
	rm -rf $(REPEAT_DIR) && mkdir -p $(REPEAT_DIR)
	LL_SUITE_BUDGET_S=$(REPEAT_BUDGET) $(RUN_VM) --timeout $(REPEAT_BUDGET) --fail-on-warn \
		--out $(REPEAT_DIR) -- tests/vm/run-all.sh --repeat $(REPEAT_N) --log $(REPEAT_DIR) $(TESTS); \
		rc=$$?; tests/vm/repeat-summary.py $(REPEAT_DIR) || rc=1; exit $$rc

demo: all
	$(RUN_VM) --timeout 600 -- demo/pfc-demo.sh

bench: all
	$(BUILD_DIR)/tests/bench/ll_bench_core
	$(BUILD_DIR)/tests/bench/ll_bench_daemon --benchmark_enable_random_interleaving=true
	$(BUILD_DIR)/tests/bench/ll_bench_cc --benchmark_enable_random_interleaving=true
	$(BUILD_DIR)/tests/bench/ll_bench_portfc --benchmark_enable_random_interleaving=true
	$(RUN_VM) --timeout 1500 -- env LL_BENCH_SCHEMES="dsh spfc" LL_BENCH_MODES=bifrost LL_BENCH_NP_ECN=1 LL_BENCH_PORTFC=1 \
		LL_BENCH_DSCP=$(BENCH_DSCP) \
		tests/vm/bench-bridge.py
	$(RUN_VM) --timeout 900 -- tests/vm/bench-daemon.py

line-rate: all
	LL_LINE_RATE_MBITS="20 100" LL_LINE_RATE_RUNS=5 LL_TEST_TIMEOUT=2900 $(RUN_VM) --timeout 3000 \
		--fail-on-warn -- tests/vm/run-all.sh test_line_rate.py test_incast.py

# SCENARIO: a file in tests/compare/scenarios (without .toml); SCHEMES:
# scheme names, compared on the same flows; FABRIC=leaf-spine: through two
# leaves and two spines; SET="KEY=VALUE ...": scenario keys for this run.
compare: all
	mkdir -p $(BUILD_DIR)/compare
	$(RUN_VM) --timeout 3000 --out $(BUILD_DIR)/compare -- tests/compare/run_compare.py \
		--scenario '$(or $(SCENARIO),incast-websearch)' --schemes '$(SCHEMES)' \
		$(if $(FABRIC),--fabric '$(FABRIC)') $(foreach s,$(SET),--set '$(s)') \
		--out $(BUILD_DIR)/compare

portfc-deadlock: all
	mkdir -p $(BUILD_DIR)/portfc-deadlock
	$(RUN_VM) --timeout 3000 --out $(BUILD_DIR)/portfc-deadlock -- tests/portfc/deadlock.py \
		--seeds '$(or $(SEEDS),3)' --out $(BUILD_DIR)/portfc-deadlock \
		--plot $(BUILD_DIR)/portfc-deadlock/portfc-deadlock.png

KDEBUG_DIR = $(BUILD_DIR)/kdebug
KDEBUG_SCALE_PCT ?= 400
# KDEBUG=1: check-vm and netlink-fuzz boot the debug kernel and load the
# module built for it (make kdebug first, as they do then).
KDEBUG_DEP = $(if $(filter 1,$(KDEBUG)),kdebug)
ifeq ($(KDEBUG),1)
export LL_KERNEL_ROOT := $(KDEBUG_DIR)/root
export LL_MODULE_KO := $(KDEBUG_DIR)/module/sch_lossless.ko
export LL_BUDGET_SCALE_PCT := $(KDEBUG_SCALE_PCT)
endif
# The suite but test_dkms.sh, whose module is built for the stock kernel.
KDEBUG_TESTS = $(or $(TESTS),$(filter-out test_dkms.sh,$(shell tests/vm/budget.sh list)))
KDEBUG_BUDGET = $(shell LL_BUDGET_SCALE_PCT=$(KDEBUG_SCALE_PCT) tests/vm/budget.sh suite $(KDEBUG_TESTS))
kdebug:
	JOBS=$(JOBS) scripts/kdebug.sh $(KDEBUG_DIR)

check-kdebug: all kdebug
	LL_SUITE_BUDGET_S=$(KDEBUG_BUDGET) LL_BUDGET_SCALE_PCT=$(KDEBUG_SCALE_PCT) LL_KMEMLEAK=1 \
	LL_MODULE_KO=$(KDEBUG_DIR)/module/sch_lossless.ko \
	$(RUN_VM) --kernel-root $(KDEBUG_DIR)/root --timeout $(KDEBUG_BUDGET) --fail-on-warn \
		--mem 3072 --dmesg $(KDEBUG_DIR)/check-kdebug.dmesg -- tests/vm/run-all.sh $(KDEBUG_TESTS)
	scripts/kdebug-report.sh $(KDEBUG_DIR)/check-kdebug.dmesg

netlink-fuzz: all $(KDEBUG_DEP)
	mkdir -p $(BUILD_DIR)/netlink-fuzz
	$(RUN_VM) --timeout 3600 --out $(BUILD_DIR)/netlink-fuzz -- tests/vm/test_netlink_fuzz.py \
		--messages '$(or $(NLFUZZ_MESSAGES),100000)' --seed '$(or $(NLFUZZ_SEED),1)'

portfc-fct: all
	mkdir -p $(BUILD_DIR)/portfc-fct
	$(RUN_VM) --timeout 3000 --out $(BUILD_DIR)/portfc-fct -- tests/portfc/fct.py \
		--seeds '$(or $(SEEDS),2)' --sw-delay '$(or $(SW_DELAY),200ms)' --out $(BUILD_DIR)/portfc-fct

# DURATION: the soak's traffic time (30m: s, m or h); its wall time is
# about 1.6 x that (each round drains, faults wait for their recovery),
# and the test's timeout twice it plus the set-up.
SOAK_S = $(shell echo '$(or $(DURATION),30m)' | awk '/^[0-9]+h$$/ { print $$0 * 3600; next } \
	/^[0-9]+m$$/ { print $$0 * 60; next } /^[0-9]+s?$$/ { print $$0 + 0; next } { print "bad" }')
SOAK_TIMEOUT = $(shell echo $$(( $(SOAK_S) * 2 + 600 )) 2>/dev/null)
soak: all
	@test '$(SOAK_S)' != bad || { echo 'make soak: DURATION=$(DURATION): want a time such as 30m, 2h or 600s' >&2; exit 2; }
	mkdir -p $(BUILD_DIR)/soak
	LL_SOAK_SECONDS=$(SOAK_S) LL_SOAK_JSON=$(BUILD_DIR)/soak/soak.json LL_TEST_TIMEOUT=$(SOAK_TIMEOUT) \
		LL_SUITE_BUDGET_S=$$(( $(SOAK_TIMEOUT) + 300 )) \
		$(RUN_VM) --timeout $$(( $(SOAK_TIMEOUT) + 300 )) --fail-on-warn --out $(BUILD_DIR)/soak -- \
		tests/vm/run-all.sh test_soak.py

checkpatch:
	$(MAKE) -C kernel checkpatch

fuzz: userspace
	FUZZ_RUNS='$(FUZZ_RUNS)' tests/fuzz/run-fuzz.sh
.PHONY: fuzz

# cmake/install.cmake has the layout; the unit is written for PREFIX.
# umask 022: CMake creates directories through the umask (files get their
# modes from the install rules), and a root umask of 077 would hide them.
install: userspace
	umask 022 && DESTDIR='$(abspath $(DESTDIR))' cmake --install $(BUILD_DIR) --prefix '$(PREFIX)'

uninstall:
	scripts/uninstall.sh '$(abspath $(DESTDIR))' '$(PREFIX)'

clean:
	rm -rf $(BUILD_DIR)
	$(MAKE) -C kernel clean

.PHONY: all userspace module dkms-install dkms-uninstall dkms-check check check-host check-san check-vm check-kdebug kdebug check-repeat demo bench line-rate compare portfc-deadlock portfc-fct netlink-fuzz soak checkpatch clean \
	install uninstall
