#!/usr/bin/env python3
"""Checks the target graph, so that the import lists stay the architecture:

1. every target imports exactly the targets it declares in Package.swift (no undeclared
   import, which `--explicit-target-dependency-import-check` also catches, and no declared
   dependency that nothing imports);
2. the graph in the README's Layout section is the one in Package.swift;
3. the pure core depends only on the pure core, and imports nothing else: no Foundation,
   Dispatch, POSIX or Glibc, whatever the access modifier, but for scoped imports of a few
   libm and memory functions (no clock, no file, no process);
4. the edge: every target is pure, edge, executable or test; an edge target depends on pure
   targets and on the edge targets its row of EDGE allows, no more (the arrows between edge
   targets are the design, so a new one is a change to this file); CommandLineSupport is the
   executables' alone (library targets take typed configurations, never the command line);
   and what each executable reaches is bounded (`stepwise` reaches neither the daemon nor
   libgps, the fuzzers only the pure core);
5. no target of Sources is over MAX_LINES lines (a target that big has two jobs);
6. with --binaries DIR (CI, after the build), what the built executables link: `stepwise`
   and the fuzzers not libgps, `stepwised` libgps, and no executable libmosquitto or libcurl
   (both are opened at run time, by the daemon only).

Exit status 1 with one line per difference.
"""
import os
import re
import subprocess
import sys

root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
package = open(os.path.join(root, "Package.swift"), encoding="utf-8").read()

# .target(name: "X", dependencies: ["A", "B"], ...) and the executable and test kinds.
decl = re.compile(
    r'\.(target|executableTarget|testTarget|systemLibrary)\(\s*name:\s*"([^"]+)"(.*?)\)\s*,\s*(?=\.|//|\])',
    re.S)
targets = {}
kinds = {}
paths = {}
for kind, name, rest in decl.findall(package):
    deps = re.search(r'dependencies:\s*\[(.*?)\]', rest, re.S)
    targets[name] = sorted(re.findall(r'"([^"]+)"', deps.group(1))) if deps else []
    kinds[name] = kind
    path = re.search(r'path:\s*"([^"]+)"', rest)
    paths[name] = path.group(1) if path else None

SYSTEM = {"Glibc", "Dispatch", "Synchronization", "Foundation", "FoundationEssentials",
          "FoundationXML", "Testing", "XCTest", "PackageDescription"}
problems = []

def imports(directory):
    found = set()
    for dirpath, _, files in os.walk(directory):
        if "Fixtures" in dirpath.split(os.sep):
            continue
        for f in files:
            if not f.endswith(".swift"):
                continue
            for line in open(os.path.join(dirpath, f), encoding="utf-8"):
                m = re.match(r'\s*(?:@\w+\s+)*(?:public |internal |package )?import\s+'
                             r'(?:(?:func|struct|class|enum|var|let|typealias)\s+)?(\w+)', line)
                if m:
                    found.add(m.group(1))
    return found

for name, deps in sorted(targets.items()):
    if kinds[name] == "systemLibrary":
        continue
    base = "Tests" if kinds[name] == "testTarget" else "Sources"
    relative = paths[name] or os.path.join(base, name)
    directory = os.path.join(root, relative)
    if not os.path.isdir(directory):
        problems.append(f"{name}: no folder {relative}")
        continue
    used = imports(directory) - SYSTEM
    c_only = {d for d in deps if kinds.get(d) == "systemLibrary" or d.endswith("Shim")}
    for d in sorted(set(deps) - used - c_only):
        if not any(f.endswith(".c") for _, _, fs in os.walk(directory) for f in fs):
            problems.append(f"{name}: declares {d} but never imports it")
    for d in sorted(used - set(deps) - {name}):
        if d in targets:
            problems.append(f"{name}: imports {d} without declaring it")

# The pure core.
PURE = ["Geodesy", "JSON", "Routes", "NMEA", "GPSDProtocol", "GuidanceSettings", "Matching", "Guidance", "Phrasebook", "Wire",
        "Simulation", "Lab", "Rerouting", "Instructions", "RouteImporters", "RouteShape", "Returning"]
# What a pure file may take from Glibc: arithmetic and memory scans, never a clock or a file.
PURE_GLIBC = {"sqrt", "cbrt", "hypot", "sin", "cos", "tan", "asin", "acos", "atan", "atan2",
              "sinh", "cosh", "tanh", "exp", "expm1", "log", "log1p", "log2", "log10", "pow",
              "fabs", "floor", "ceil", "round", "trunc", "fmod", "remainder", "copysign",
              "memchr", "memcmp"}
import_line = re.compile(
    r'\s*(?:@\w+\s+)*(?:(?:public|package|internal|fileprivate|private)\s+)?import\s+'
    r'(?:(func|struct|class|enum|var|let|typealias|protocol)\s+)?([\w.]+)')
for name in PURE:
    for dirpath, _, files in os.walk(os.path.join(root, "Sources", name)):
        for f in sorted(files):
            for n, line in enumerate(open(os.path.join(dirpath, f), encoding="utf-8"), 1):
                m = import_line.match(line)
                if not m:
                    continue
                kind, path = m.groups()
                module, _, symbol = path.partition(".")
                if module in PURE and not symbol:
                    continue
                if module == "Glibc" and kind == "func" and symbol in PURE_GLIBC:
                    continue
                problems.append(f"{name}: {f}:{n} imports {path} in the pure core")
    for d in targets.get(name, []):
        if d not in PURE:
            problems.append(f"{name}: the pure core depends on {d}")

# The edge: each edge target's arrows to other edge targets (pure targets are always allowed).
EDGE = {
    "CGPS": [], "CCurl": [], "CMosquitto": [],
    "GPSShim": ["CGPS"], "CurlShim": ["CCurl"], "MosquittoShim": ["CMosquitto"],
    "POSIX": [],
    "CommandLineSupport": [],
    "GPSD": ["GPSShim"],
    "RouteFiles": ["POSIX"],
    "Events": ["POSIX"],
    "Commands": ["Events", "POSIX", "RouteFiles"],
    "Subscribers": ["Commands", "Events", "POSIX"],
    "Router": ["CurlShim", "POSIX"],
    "Daemon": ["Commands", "Events", "GPSD", "POSIX", "Router"],
    "Client": ["POSIX"],
    "FleetClient": ["CMosquitto", "MosquittoShim", "POSIX"],
    "Uplink": ["Commands", "Daemon", "Events", "FleetClient", "POSIX"],
    "Driver": ["Client", "POSIX", "Router"],
}
# Targets no executable may reach (through any path), and executables that may reach only the
# pure core.
UNREACHABLE = {"stepwise": ["CGPS", "GPSShim", "GPSD", "Daemon", "Uplink", "Subscribers"]}
PURE_ONLY = ["StepwiseFuzz"]
# The command line is the executables' (and their tests'): no library target parses it.
EXECUTABLE_ONLY = ["CommandLineSupport"]
for name, deps in sorted(targets.items()):
    kind = kinds[name]
    if kind in ("executableTarget", "testTarget") or name == "TestSupport" or name in PURE:
        continue
    if name not in EDGE:
        problems.append(f"{name}: neither pure nor in check-graph.py's EDGE list (where may it point?)")
        continue
    for d in deps:
        if d not in PURE and d not in EDGE[name]:
            problems.append(f"{name}: the arrow {name} → {d} is not in check-graph.py's EDGE list")
for name in sorted(set(EDGE) - set(targets)):
    problems.append(f"check-graph.py: EDGE lists {name}, which Package.swift does not have")
for name, deps in sorted(targets.items()):
    for d in EXECUTABLE_ONLY:
        if d in deps and kinds[name] == "target":
            problems.append(f"{name}: a library target depends on {d}; the executables own "
                            f"the command line")

def closure(name):
    seen, todo = set(), list(targets.get(name, []))
    while todo:
        d = todo.pop()
        if d not in seen:
            seen.add(d)
            todo.extend(targets.get(d, []))
    return seen

for name, banned in sorted(UNREACHABLE.items()):
    for d in sorted(closure(name) & set(banned)):
        problems.append(f"{name}: reaches {d} (it must link neither the daemon nor libgps)")
for name in PURE_ONLY:
    for d in sorted(closure(name) - set(PURE)):
        problems.append(f"{name}: reaches {d}, outside the pure core")

# Size: a target over MAX_LINES lines has two jobs.
MAX_LINES = 4500
for name in sorted(targets):
    if kinds[name] in ("systemLibrary", "testTarget") or paths[name]:
        continue
    lines = 0
    for dirpath, _, files in os.walk(os.path.join(root, "Sources", name)):
        for f in files:
            if f.endswith((".swift", ".c", ".h")):
                with open(os.path.join(dirpath, f), encoding="utf-8") as text:
                    lines += sum(1 for _ in text)
    if lines > MAX_LINES:
        problems.append(f"{name}: {lines} lines, over {MAX_LINES}; split it by job")

# The README's graph: lines "Name  → A, B  text" between the target-graph markers.
readme = open(os.path.join(root, "README.md"), encoding="utf-8").read()
block = re.search(r'<!-- target-graph -->\n```\n(.*?)```', readme, re.S)
if not block:
    problems.append("README.md: no target graph between <!-- target-graph --> and a code block")
else:
    documented = {}
    for line in block.group(1).splitlines():
        m = re.match(r'(\S+)\s+(?:→ ((?:[\w]+(?:, )?)+))?', line)
        if not m or line.startswith(" "):
            continue
        documented[m.group(1)] = sorted(m.group(2).split(", ")) if m.group(2) else []
    for name in sorted(set(targets) | set(documented)):
        if name not in documented:
            problems.append(f"README.md: target {name} is missing from the graph")
        elif name not in targets:
            problems.append(f"README.md: the graph lists {name}, which Package.swift does not have")
        elif documented[name] != targets[name]:
            problems.append(
                f"README.md: {name} → {', '.join(documented[name]) or 'nothing'}, but Package.swift "
                f"says {', '.join(targets[name]) or 'nothing'}")

# What the built executables link (ldd: the whole closure of shared libraries).
LINKS = {
    "stepwised": {"libgps": True, "libmosquitto": False, "libcurl": False},
    "stepwise": {"libgps": False, "libmosquitto": False, "libcurl": False},
    "StepwiseFuzz": {"libgps": False, "libmosquitto": False, "libcurl": False},
}
if len(sys.argv) == 3 and sys.argv[1] == "--binaries":
    binaries = sys.argv[2]
    for name, rules in sorted(LINKS.items()):
        binary = os.path.join(binaries, name)
        if not os.path.isfile(binary):
            problems.append(f"{binary}: not built")
            continue
        ldd = subprocess.run(["ldd", binary], capture_output=True, text=True)
        linked = [line.split()[0] for line in ldd.stdout.splitlines() if line.strip()]
        for library, wanted in sorted(rules.items()):
            found = any(l.startswith(library + ".so") for l in linked)
            if found and not wanted:
                problems.append(f"{name}: links {library} (ldd {binary})")
            elif wanted and not found and os.environ.get("STEPWISE_REPLAY_ONLY") != "1":
                problems.append(f"{name}: does not link {library} (ldd {binary})")
elif len(sys.argv) > 1:
    problems.append("usage: check-graph.py [--binaries DIR]")

for p in problems:
    print("check-graph: " + p)
sys.exit(1 if problems else 0)
