#!/usr/bin/env python3
# Provenance: copied verbatim (below this header) from ../shared/bench/gen_nmea.py, the seeded
# generator behind the throughput baselines of ../shared/reference/gpsd-and-nmea.md section 7
# (sha256 of the original: 8f2415b1dbbfaf873d0ca3b1f7a49dd410976dd06723f41e981cde80012aa20e, copied 2026-11-29). Do not edit: the figures
# in docs/benchmarks.md compare against gpsd's on the same bytes.
"""Generate a realistic NMEA 0183 benchmark file: N sentences (default 1,000,000).

Each 1 Hz epoch is GPRMC, GPGGA, GPGSA, then 2-4 GPGSV (8-15 satellites in view,
4 per GSV sentence), so the mix is roughly RMC 16% / GGA 16% / GSA 16% / GSV 52%.
A vehicle drives a smooth random track (speed 0-35 m/s, heading drifting) around
Munich; about 1% of epochs are no-fix (RMC V, GGA quality 0, GSA mode 1, empty fields)
in short outages (tunnels). Deterministic: seeded PRNG, fixed start time.
CR-LF line endings, valid checksums, all lines <= 82 chars.
Usage: gen_nmea.py [N] > bench_1M.nmea
"""
import math, random, sys

def cksum(body):
    c = 0
    for ch in body.encode('ascii'):
        c ^= ch
    return '$%s*%02X\r\n' % (body, c)

def dm(v, lat):
    a = abs(v); d = int(a); m = (a - d) * 60.0
    if m >= 59.99995:
        d += 1; m = 0.0
    return (('%02d%07.4f' if lat else '%03d%07.4f') % (d, m),
            ('N' if v >= 0 else 'S') if lat else ('E' if v >= 0 else 'W'))

def main():
    n = int(sys.argv[1]) if len(sys.argv) > 1 else 1_000_000
    rnd = random.Random(20261129)
    out = sys.stdout
    lat, lon, hdg, spd = 48.137154, 11.576124, 45.0, 12.0
    t0 = 1_795_000_000            # 2026-11-18T11:06:40Z
    sats = list(range(1, 33))
    outage = 0
    written = 0
    epoch = 0
    while written < n:
        t = t0 + epoch
        tm = __import__('time').gmtime(t)
        hms = '%02d%02d%02d.00' % (tm.tm_hour, tm.tm_min, tm.tm_sec)
        date = '%02d%02d%02d' % (tm.tm_mday, tm.tm_mon, tm.tm_year % 100)
        # vehicle dynamics
        spd = min(35.0, max(0.0, spd + rnd.gauss(0, 0.8)))
        hdg = (hdg + rnd.gauss(0, 3.0 if spd > 2 else 0.5)) % 360.0
        lat += spd * math.cos(math.radians(hdg)) / 111_320.0
        lon += spd * math.sin(math.radians(hdg)) / (111_320.0 * math.cos(math.radians(lat)))
        if outage == 0 and rnd.random() < 0.002:
            outage = rnd.randint(2, 8)
        fix = outage == 0
        if outage:
            outage -= 1
        nview = rnd.randint(8, 15)
        view = sorted(rnd.sample(sats, nview))
        used = view[:min(12, max(4, nview - rnd.randint(0, 3)))] if fix else []
        hdop = round(rnd.uniform(0.6, 2.5), 1)
        pdop = round(hdop + rnd.uniform(0.3, 1.2), 1)
        vdop = round(rnd.uniform(0.8, 2.0), 1)
        la, ns = dm(lat, True); lo, ew = dm(lon, False)
        alt = 520.0 + 15.0 * math.sin(epoch / 600.0)
        lines = []
        if fix:
            lines.append(cksum('GPRMC,%s,A,%s,%s,%s,%s,%.2f,%.1f,%s,3.3,E,A' % (hms, la, ns, lo, ew, spd / 0.514444, hdg, date)))
            lines.append(cksum('GPGGA,%s,%s,%s,%s,%s,1,%02d,%.1f,%.1f,M,47.9,M,,' % (hms, la, ns, lo, ew, len(used), hdop, alt)))
            ids = ['%02d' % s for s in used] + [''] * (12 - len(used))
            lines.append(cksum('GPGSA,A,3,%s,%.1f,%.1f,%.1f' % (','.join(ids), pdop, hdop, vdop)))
        else:
            lines.append(cksum('GPRMC,%s,V,,,,,,,%s,,,N' % (hms, date)))
            lines.append(cksum('GPGGA,%s,,,,,0,00,99.99,,,,,,' % hms))
            lines.append(cksum('GPGSA,A,1,,,,,,,,,,,,,99.99,99.99,99.99'))
        ngsv = (nview + 3) // 4
        for k in range(ngsv):
            quads = []
            for s in view[4 * k:4 * k + 4]:
                el = (s * 37 + epoch // 60) % 85 + 5
                az = (s * 113 + epoch // 30) % 360
                snr = ('%02d' % rnd.randint(18, 48)) if (fix and s in used) else (('%02d' % rnd.randint(10, 25)) if rnd.random() < 0.5 else '')
                quads.append('%02d,%02d,%03d,%s' % (s, el, az, snr))
            lines.append(cksum('GPGSV,%d,%d,%02d,%s' % (ngsv, k + 1, nview, ','.join(quads))))
        for l in lines:
            if written >= n:
                break
            out.write(l)
            written += 1
        epoch += 1

if __name__ == '__main__':
    main()
