# Stepwise: build, test and demo targets. Each target installs what it needs when missing.
SWIFT ?= swift
CONFIG ?= debug
DEMO ?= Simulations/001-marais-drive

.PHONY: all build release test demo quality lint format deps clean install bench bench-fleet fuzz fuzz-smoke sanitize deb

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

# Side-by-side benchmarks: HEAD against BENCH_BASE (default 05a1bb0), gpsdecode and pynmea2;
# writes docs/benchmarks.md (Scripts/bench.py; BENCH_ONLY=... prints some sections instead).
bench: deps
	python3 Scripts/bench.py

# Fleets at scale (docs/fleet.md): FLEET_SIZES simulated vehicles into a three-node RabbitMQ
# cluster and into one mosquitto, side by side, then the FLEET_KILL_SIZE-vehicle run with a node
# killed (SIGKILL) and restarted, each run with FLEET_DAEMONS real stepwised beside the
# simulated vehicles; writes the section at the end of docs/benchmarks.md. Not CI: about 25
# minutes on two cores.
FLEET_SIZES ?= 1000,3000,10000
FLEET_SECONDS ?= 60
FLEET_KILL_SIZE ?= 1000
FLEET_DAEMONS ?= 20
bench-fleet: deps
	swift build -c release --product stepwised
	python3 Scripts/fleet-bench.py --sizes $(FLEET_SIZES) --seconds $(FLEET_SECONDS) \
	  --kill-size $(FLEET_KILL_SIZE) --daemons $(FLEET_DAEMONS) \
	  --stepwised .build/release/stepwised --write docs/benchmarks.md

# The long fuzzing run (FUZZ_RUNS executions per target; record the counts in docs/hardening.md)
# and the one-minute smoke run that CI calls (12 s for each of the five targets).
FUZZ_RUNS ?= 10000000
fuzz: deps
	sh Scripts/fuzz.sh --record docs/hardening.md --runs $(FUZZ_RUNS)

fuzz-smoke: deps
	sh Scripts/fuzz.sh 12

# The whole test suite under ThreadSanitizer and AddressSanitizer (CI runs it too, from
# Scripts/ci.sh).
sanitize: deps
	sh Scripts/sanitize.sh

lint:
	$(SWIFT) format lint --strict --recursive Sources Tests

format:
	$(SWIFT) format --in-place --recursive Sources Tests

clean:
	rm -rf .build

# The Debian package stepwise_VERSION_ARCH.deb (debian/, dpkg-buildpackage), in .build/debian.
deb: deps
	sh Scripts/deb.sh

# Installs binaries, systemd units, defaults and man pages (converted by Scripts/md2man.sh).
PREFIX ?= /usr/local
DESTDIR ?=
install: release
	install -d $(DESTDIR)$(PREFIX)/bin $(DESTDIR)/lib/systemd/system $(DESTDIR)/etc/default \
	  $(DESTDIR)/usr/lib/sysusers.d $(DESTDIR)$(PREFIX)/share/man/man1 $(DESTDIR)$(PREFIX)/share/man/man8
	install -m 755 .build/release/stepwised .build/release/stepwise $(DESTDIR)$(PREFIX)/bin/
	sed 's#/usr/bin/#$(PREFIX)/bin/#g' systemd/stepwised.service > $(DESTDIR)/lib/systemd/system/stepwised.service
	install -m 644 systemd/stepwised.socket $(DESTDIR)/lib/systemd/system/
	install -m 644 systemd/stepwise.sysusers $(DESTDIR)/usr/lib/sysusers.d/stepwise.conf
	[ -e $(DESTDIR)/etc/default/stepwised ] || install -m 644 systemd/stepwised.default $(DESTDIR)/etc/default/stepwised
	for m in stepwised.8 stepwise.1; do \
	  sec=$${m##*.}; \
	  sh Scripts/md2man.sh docs/$$m.md > $(DESTDIR)$(PREFIX)/share/man/man$$sec/$$m; \
	done
