# The two commands: `make run` (the main job) and `make test` (build and run the tests).
# Both install missing Debian packages first (scripts/bootstrap-deps.sh), then configure and build.
BUILD ?= build
JOBS ?= 2
GENERATOR := $(shell command -v ninja >/dev/null 2>&1 && echo "-G Ninja")

.PHONY: all deps configure build test run fuzz format clean

all: build

deps:
	@bash scripts/bootstrap-deps.sh

configure: deps
	@test -f $(BUILD)/CMakeCache.txt || cmake -S . -B $(BUILD) $(GENERATOR) -DCMAKE_BUILD_TYPE=Release

build: configure
	@cmake --build $(BUILD) -j $(JOBS)

test: build
	@cd $(BUILD) && ctest --output-on-failure -j $(JOBS)

# The main job: the default model (ResNet-50) on the default accelerator (maestro-example),
# mapped by GAMMA's genetic search (2,000 samples per distinct layer), with per-layer and total
# runtime and energy beside the three built-in dataflow templates (same buffer rule).
run: build
	@$(BUILD)/sparsemap arch maestro-example
	@echo
	@$(BUILD)/sparsemap map --model resnet50 --hw maestro-example --algo gamma --budget 2000 --threads $(JOBS) --compare-dataflows

fuzz:
	@bash scripts/fuzz-dfsl.sh 600

format:
	@find include src apps bench fuzz -name '*.h' -o -name '*.cpp' | xargs clang-format -i

clean:
	@rm -rf $(BUILD)
