# The two commands: `make run` (the main job) and `make test` (build and run the tests).
# Both install missing Debian packages first (scripts/bootstrap-deps.sh), then configure and build.
BUILD ?= build
JOBS ?= 2
GENERATOR := $(shell command -v ninja >/dev/null 2>&1 && echo "-G Ninja")

.PHONY: all deps configure build test test-sanitize run fuzz format clean

all: build

deps:
	@bash scripts/bootstrap-deps.sh

configure: deps
	@test -f $(BUILD)/CMakeCache.txt || cmake -S . -B $(BUILD) $(GENERATOR) -DCMAKE_BUILD_TYPE=Release

build: configure
	@cmake --build $(BUILD) -j $(JOBS)

test: build
	@cd $(BUILD) && ctest --output-on-failure -j $(JOBS)

# The core library and every test that does not need libtorch, built with AddressSanitizer and
# UndefinedBehaviorSanitizer (-O1) in build-sanitize/; any report fails its test. OpenMPI's own
# allocations at exit are suppressed (scripts/lsan.supp); nothing of ours is.
SANITIZE_BUILD ?= build-sanitize
test-sanitize: deps
	@test -f $(SANITIZE_BUILD)/CMakeCache.txt || cmake -S . -B $(SANITIZE_BUILD) $(GENERATOR) \
	  -DCMAKE_BUILD_TYPE=RelWithDebInfo -DCMAKE_CXX_FLAGS_RELWITHDEBINFO="-O1 -g" \
	  -DSPARSEMAP_SANITIZE=ON -DSPARSEMAP_WITH_TORCH=OFF -DSPARSEMAP_WITH_CUDA=OFF \
	  -DSPARSEMAP_BUILD_BENCH=OFF -DSPARSEMAP_WITH_PYTHON=OFF
	@cmake --build $(SANITIZE_BUILD) -j $(JOBS)
	@cd $(SANITIZE_BUILD) && \
	  ASAN_OPTIONS=detect_leaks=1:strict_string_checks=1 \
	  UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
	  LSAN_OPTIONS=suppressions=$(CURDIR)/scripts/lsan.supp:print_suppressions=0 \
	  ctest --output-on-failure -j $(JOBS)

# The main job: the default model (ResNet-50) on the default accelerator (maestro-example),
# mapped by GAMMA's genetic search (2,000 samples per distinct layer), with per-layer and total
# runtime and energy beside the three built-in dataflow templates (same buffer rule).
run: build
	@$(BUILD)/sparsemap arch maestro-example
	@echo
	@$(BUILD)/sparsemap map --model resnet50 --hw maestro-example --algo gamma --budget 2000 --threads $(JOBS) --compare-dataflows

# Every reader of user files under libFuzzer + ASan + UBSan (scripts/fuzz.sh, docs/fuzzing.md):
# builds build-fuzz/ with clang, runs each target SECONDS seconds in turn from a corpus seeded
# with the repository's data and built-in inputs; non-zero exit on any finding (reproducers in
# .fuzz/artifacts/).
SECONDS ?= 60
fuzz: deps
	@bash scripts/fuzz.sh $(SECONDS)

format:
	@find include src apps bench fuzz -name '*.h' -o -name '*.cpp' | xargs clang-format -i

clean:
	@rm -rf $(BUILD)
