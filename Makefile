# Thin wrapper: meson + ninja do the building, this file the remembering.
BUILD ?= build
RUN_ARGS ?=

.PHONY: all setup build run test unit-test vm-test ple-test sanitize-test fuzz bench bench-tune format clean

all: build

setup:
	@scripts/setup

$(BUILD)/build.ninja:
	meson setup $(BUILD)

build: setup $(BUILD)/build.ninja
	ninja -C $(BUILD)

# The default experiment: PAUSE vs NOP, one vCPU per host CPU and 2x over-commit; on
# /dev/kvm, else (one line on stderr says why) on the emulated host under Bochs.
run: build
	$(BUILD)/plerig run --connect auto $(RUN_ARGS)

# Every test but the slow end-to-end ones (make vm-test): about 2 minutes of tests on
# 2 CPUs, 3-6 with a fresh clone's build (README.md says what was measured).
test: build
	scripts/run-tests $(BUILD)

# The tests that boot no VM: every test group but vm, cli and slow (seconds).
unit-test: build
	scripts/run-tests $(BUILD) --no-suite=vm --no-suite=cli

# plerig's own tests that boot VMs (test groups vm and cli, the slow end-to-end
# cases that `make test` leaves out included; VM_TEST_GROUPS=slow: only those;
# VM_TEST_SUITES, its old name, still works: a "suite" is a plerig check file),
# then `plerig check` (the default suite) as a regression gate: JUnit and TAP in
# $(BUILD)/vm-test/; PLERIG_BASELINES=DIR compares with this machine's baseline.
VM_TEST_SUITES ?=
VM_TEST_GROUPS ?= $(VM_TEST_SUITES)
vm-test: build
	scripts/vm-test $(BUILD) $(VM_TEST_GROUPS)

# plerig against the real kvm_intel with PAUSE-loop exiting, under Bochs' emulated
# VMX CPU: no /dev/kvm needed. KERNEL=FILE (.deb, or bzImage + MODULES=DIR) puts
# that kernel under test; RECORD=1 records its gate figures as the baseline;
# PLE_MODPARAMS="ple_window=16384 kvm.halt_poll_ns=0" sets kvm_intel parameters in
# L1 (kvm.NAME: kvm.ko's). VENDOR=amd: the
# same against kvm_amd's pause filter, under Bochs 3.1's emulated Ryzen with SVM;
# VENDOR="intel amd": both in turn, their gate figures side by side.
# Its variables reach scripts/ple-test through the environment as they were
# given: neither make ($(shell ...)) nor a shell (`...`, $(...), quotes) reads
# them on the way, and the script checks each before it builds anything.
PLE_TEST_VARS := KERNEL MODULES RECORD PLE_MODPARAMS PLERIG_BASELINES PLE_TEST_DIR \
	PLE_TEST_CACHE PLE_TEST_WALL PLE_TEST_STALL PLE_TEST_IDLE PLE_TEST_ONLY PLE_TEST_MEDIUM_ONLY \
	VENDOR
$(foreach v,$(PLE_TEST_VARS),$(if $(filter command line,$(origin $(v))),\
	$(eval override $(v) := $$(value $(v)))))
export $(PLE_TEST_VARS)
ple-test: build
	scripts/ple-test $(BUILD)

# Every test again under ASan + UBSan, in build-sanitize/: any report fails.
sanitize-test: setup
	scripts/sanitize-tests build-sanitize

# Every libFuzzer target for FUZZ_SECONDS each (clang, ASan+UBSan, build-fuzz/).
FUZZ_SECONDS ?= 30
fuzz: setup
	scripts/fuzz $(FUZZ_SECONDS)

# How much of a run is the rig: plerig's VMM on /dev/kvm (skipped without it), then the
# emulated host's start, one cold (L1 booted and saved: minutes) and BENCH_WARM warm
# (restored); `scripts/bench-startup BUILD N libvirt` compares libvirt's with kvm's.
BENCH_WARM ?= 3
bench: build
	scripts/bench-startup $(BUILD)
	scripts/bench-startup $(BUILD) $(BENCH_WARM) emulated

# The gate's shape tuned on the emulated host (Bochs): wall, Bochs CPU, emulated s.
bench-tune: build
	scripts/bench-tune $(BUILD)

format:
	clang-format -i $$(git ls-files '*.c' '*.h')

clean:
	rm -rf $(BUILD)
