#!/usr/bin/env python3
"""Parses every line of an NMEA file with pynmea2 (the peer of section 7 of
../shared/reference/gpsd-and-nmea.md): `pynmea2.parse()` per line, checksum checked.
Prints the count of sentences parsed and of lines refused."""
import sys

import pynmea2

ok = bad = 0
with open(sys.argv[1], encoding='ascii', errors='replace') as f:
    for line in f:
        try:
            pynmea2.parse(line.strip(), check=True)
            ok += 1
        except pynmea2.ParseError:
            bad += 1
print('parsed=%d refused=%d' % (ok, bad))
