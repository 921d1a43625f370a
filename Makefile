# Stepwise: build, test and demo targets. Each target installs what it needs when missing.
SWIFT ?= swift
CONFIG ?= debug
DEMO ?= Simulations/001-marais-drive

.PHONY: all build release test demo quality lint format deps clean

all: build

deps:
	@sh Scripts/install-deps.sh

build: deps
	$(SWIFT) build

release: deps
	$(SWIFT) build -c release

# The whole test suite: unit, property, scenario and end-to-end tests.
test: deps
	sh Scripts/ci.sh

# Replays a bundled scenario through the daemon at 20x real time.
demo: deps
	$(SWIFT) build -c release --product stepwised
	$(SWIFT) build -c release --product stepwise
	.build/release/stepwise route show $(DEMO)/route.json
	@echo
	.build/release/stepwised --route $(DEMO)/route.json --replay-speed 20 $(DEMO)/drive.nmea

# The scenario quality table (docs/quality.md), from the simulator's truth.
quality: build
	.build/debug/stepwise scenario score --markdown Simulations/0* > docs/quality.md

lint:
	$(SWIFT) format lint --strict --recursive Sources Tests

format:
	$(SWIFT) format --in-place --recursive Sources Tests

clean:
	rm -rf .build
