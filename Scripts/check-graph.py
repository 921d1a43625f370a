#!/usr/bin/env python3
"""Checks the target graph three ways, so that the import lists stay the architecture:

1. every target imports exactly the targets it declares in Package.swift (no undeclared
   import, which `--explicit-target-dependency-import-check` also catches, and no declared
   dependency that nothing imports);
2. the graph in the README's Layout section is the one in Package.swift;
3. the pure core imports no Foundation, Dispatch or whole Glibc (scoped `import func` only).

Exit status 1 with one line per difference.
"""
import os
import re
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
PURE = ["Geodesy", "JSON", "Routes", "NMEA", "GPSDProtocol", "Guidance", "Phrasebook", "Wire",
        "Simulation", "Lab", "Rerouting", "Instructions", "RouteImporters"]
for name in PURE:
    for dirpath, _, files in os.walk(os.path.join(root, "Sources", name)):
        for f in files:
            for n, line in enumerate(open(os.path.join(dirpath, f), encoding="utf-8"), 1):
                if re.match(r'\s*(?:@\w+\s+)*(?:public |internal |package )?import\s+'
                            r'(Foundation\w*|Glibc|Dispatch|POSIX)\s*$', line):
                    problems.append(f"{name}: {f}:{n} imports {line.split()[-1]} in the pure core")
    for d in targets.get(name, []):
        if d not in PURE:
            problems.append(f"{name}: the pure core depends on {d}")

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

for p in problems:
    print("check-graph: " + p)
sys.exit(1 if problems else 0)
