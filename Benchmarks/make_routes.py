#!/usr/bin/env python3
"""Benchmark routes and tracks for Scripts/bench.py (standard library only, deterministic).

  make_routes.py follow TRACK.nmea ROUTE.json
      A native route document that follows the fixes of an NMEA track (the RMC fixes with
      status A, in order, points closer than 0.5 m to the previous one dropped), cut into
      steps of 250 points. Used for the throughput run over gen_nmea.py's track.

  make_routes.py zigzag POINTS ROUTE.json
      A 300 km route of ten straight 30 km legs (headings alternating 20 and 70 degrees, so
      nine 50 degree turns) near Munich, with POINTS points spread evenly over the legs. The
      geometry is the same whatever POINTS is: only the density changes, so the cost per fix
      can be compared from 100 to 1,000,000 points.

  make_routes.py zigzag-track TRACK.nmea
      The drive along the zigzag route: one epoch per second at 25 m/s (RMC, GGA, GSA), with
      a deterministic lateral wobble of up to 2 m. 12,000 epochs.

  make_routes.py curve POINTS ROUTE.json [NOISE]
      The zigzag's ten 30 km legs as winding roads: each leg is a chain of 346 arcs of about
      250 m radius, alternately turning 20 degrees right and left, so the road swings 10 degrees
      either side of the leg's heading and strays at most 3.8 m from its centre line (301.5 km in
      all). POINTS points are spread evenly along the arcs (0.3 m apart at 1,000,000 points).
      Route geometry thinning cannot drop points on a bend beyond about 10 m apart. With NOISE
      (metres, e.g. 0.08) every other point is moved NOISE to the right and the others NOISE to
      the left, like digitising noise, so thinning drops nothing at all.

  make_routes.py curve-track TRACK.nmea
      The drive along the curve route: one epoch per second at 25 m/s (RMC, GGA, GSA), the
      course following the bends, with the zigzag track's lateral wobble of up to 2 m.
      12,063 epochs, the last one at the end of the route.

  make_routes.py valhalla ROUTE.json RESPONSE.json
      The same route as a Valhalla native /route response: one leg whose polyline6 shape holds
      every point of the route's steps (joins once), one maneuver per step (a start, turns, the
      destination), lengths in kilometres. Used to time the import of a router's response.
"""
import math
import sys

LAT0, LON0 = 48.10, 11.50
M_PER_DEG_LAT = 111_320.0
M_PER_DEG_LON = 111_320.0 * math.cos(math.radians(LAT0))
LEGS = 10
LEG_M = 30_000.0
HEADINGS = [20.0 if i % 2 == 0 else 70.0 for i in range(LEGS)]
SPEED = 25.0


def to_latlon(x, y):
    return LAT0 + y / M_PER_DEG_LAT, LON0 + x / M_PER_DEG_LON


def haversine(a, b):
    r = 6_371_008.8
    p1, p2 = math.radians(a[0]), math.radians(b[0])
    dp, dl = p2 - p1, math.radians(b[1] - a[1])
    h = math.sin(dp / 2) ** 2 + math.cos(p1) * math.cos(p2) * math.sin(dl / 2) ** 2
    return 2 * r * math.asin(math.sqrt(h))


def write_route(path, steps_points, name):
    """steps_points: list of polylines (lists of (lat, lon)); each starts where the last ended."""
    first = steps_points[0][0]
    last = steps_points[-1][-1]
    total = 0.0
    with open(path, 'w') as out:
        out.write('{"source":{"name":"Bench start","latitude":%.7f,"longitude":%.7f},\n' % first)
        out.write('"destination":{"name":"Bench end","latitude":%.7f,"longitude":%.7f},\n' % last)
        body = []
        body.append('{"instructions":"","distance":0,"transportType":"automobile",'
                    '"polyline":[{"latitude":%.7f,"longitude":%.7f}]}' % first)
        for i, pl in enumerate(steps_points):
            d = sum(haversine(pl[k], pl[k + 1]) for k in range(len(pl) - 1))
            total += d
            if i == len(steps_points) - 1:
                text = 'Your destination is ahead.'
            else:
                text = 'Turn %s onto Bench Road %d.' % ('right' if i % 2 == 0 else 'left', i + 1)
            pts = ','.join('{"latitude":%.7f,"longitude":%.7f}' % p for p in pl)
            body.append('{"instructions":"%s","distance":%.2f,"transportType":"automobile",'
                        '"polyline":[%s]}' % (text, d, pts))
        out.write('"routes":[{"name":"%s","distance":%.2f,"expectedTravelTime":%.1f,'
                  '"transportType":"automobile","hasTolls":false,"hasHighways":false,'
                  '"advisoryNotices":[],"steps":[\n' % (name, total, total / SPEED))
        out.write(',\n'.join(body))
        out.write(']}]}\n')


def parse_latlon(v, h, deg_digits):
    if not v:
        return None
    x = int(v[:deg_digits]) + float(v[deg_digits:]) / 60.0
    return -x if h in ('S', 'W') else x


def follow(track, route):
    pts = []
    with open(track, 'rb') as f:
        for raw in f:
            if not raw.startswith(b'$GPRMC'):
                continue
            fields = raw.split(b'*')[0].decode('ascii').split(',')
            if fields[2] != 'A':
                continue
            p = (parse_latlon(fields[3], fields[4], 2), parse_latlon(fields[5], fields[6], 3))
            if pts and haversine(pts[-1], p) < 0.5:
                continue
            pts.append(p)
    per_step = 250
    steps = []
    i = 0
    while i < len(pts) - 1:
        steps.append(pts[i:i + per_step + 1])
        i += per_step
    write_route(route, steps, 'Bench track')
    print('route: %d points, %d steps' % (len(pts), len(steps) + 1), file=sys.stderr)


def corners():
    x = y = 0.0
    out = [(x, y)]
    for h in HEADINGS:
        x += LEG_M * math.sin(math.radians(h))
        y += LEG_M * math.cos(math.radians(h))
        out.append((x, y))
    return out


def zigzag(points, route):
    c = corners()
    per_leg = max(2, points // LEGS)
    steps = []
    for leg in range(LEGS):
        (x0, y0), (x1, y1) = c[leg], c[leg + 1]
        pl = []
        for k in range(per_leg + 1 if leg == 0 else per_leg):
            # the first leg also has its start point; later legs start at the previous end
            t = (k if leg == 0 else k + 1) / (per_leg if leg == 0 else per_leg)
            pl.append(to_latlon(x0 + (x1 - x0) * t, y0 + (y1 - y0) * t))
        if leg > 0:
            pl.insert(0, steps[-1][-1])
        steps.append(pl)
    write_route(route, steps, 'Bench zigzag %d' % points)


def cksum(body):
    c = 0
    for ch in body.encode('ascii'):
        c ^= ch
    return '$%s*%02X\r\n' % (body, c)


def dm(v, lat):
    a = abs(v)
    d = int(a)
    m = (a - d) * 60.0
    if m >= 59.999995:
        d += 1
        m = 0.0
    return (('%02d%08.5f' if lat else '%03d%08.5f') % (d, m),
            ('N' if v >= 0 else 'S') if lat else ('E' if v >= 0 else 'W'))


def zigzag_track(track):
    c = corners()
    t0 = 1_795_000_000
    total = LEGS * LEG_M
    n = int(total / SPEED)
    with open(track, 'w', newline='') as out:
        for e in range(n + 1):
            s = min(total, e * SPEED)
            leg = min(LEGS - 1, int(s // LEG_M))
            f = (s - leg * LEG_M) / LEG_M
            (x0, y0), (x1, y1) = c[leg], c[leg + 1]
            h = HEADINGS[leg]
            wob = 2.0 * math.sin(e * 0.7)
            x = x0 + (x1 - x0) * f + wob * math.cos(math.radians(h))
            y = y0 + (y1 - y0) * f - wob * math.sin(math.radians(h))
            write_epoch(out, t0 + e, x, y, h)


# The curve route: each leg a chain of arcs whose ends lie on the leg's centre line.
CURVE_ARCS = 346
CURVE_SWING = 10.0  # degrees either side of the leg's heading


def curve_shape():
    """(radius, arc length, leg length along the arcs) in metres."""
    half = math.radians(CURVE_SWING)
    chord = LEG_M / CURVE_ARCS
    radius = chord / (2 * math.sin(half))
    arc = radius * 2 * half
    return radius, arc, arc * CURVE_ARCS


def curve_at(s):
    """Position (x, y metres east and north of the start) and heading (degrees) at `s` metres
    along the curve route."""
    radius, arc, leg_len = curve_shape()
    c = corners()
    leg = min(LEGS - 1, int(s // leg_len))
    u = s - leg * leg_len
    k = min(CURVE_ARCS - 1, int(u // arc))
    u -= k * arc
    mean = HEADINGS[leg]
    chord = LEG_M / CURVE_ARCS
    x0 = c[leg][0] + k * chord * math.sin(math.radians(mean))
    y0 = c[leg][1] + k * chord * math.cos(math.radians(mean))
    phi = u / radius
    if k % 2 == 0:
        # a right-hand bend from mean - swing to mean + swing; centre on the right
        t0 = math.radians(mean - CURVE_SWING)
        cx, cy = x0 + radius * math.cos(t0), y0 - radius * math.sin(t0)
        t = t0 + phi
        return cx - radius * math.cos(t), cy + radius * math.sin(t), math.degrees(t) % 360
    t0 = math.radians(mean + CURVE_SWING)
    cx, cy = x0 - radius * math.cos(t0), y0 + radius * math.sin(t0)
    t = t0 - phi
    return cx + radius * math.cos(t), cy - radius * math.sin(t), math.degrees(t) % 360


def curve(points, route, noise):
    _, _, leg_len = curve_shape()
    per_leg = max(2, points // LEGS)
    steps = []
    n = 0
    for leg in range(LEGS):
        pl = [steps[-1][-1]] if leg > 0 else []
        for k in range(0 if leg == 0 else 1, per_leg + 1):
            # the leg's last point is its corner, computed from the leg's own arcs
            s = leg * leg_len + min(k / per_leg, 1.0) * leg_len
            x, y, h = curve_at(s - 1e-9 if k == per_leg else s)
            if noise and 0 < k < per_leg:
                side = noise if n % 2 == 0 else -noise
                x += side * math.cos(math.radians(h))
                y -= side * math.sin(math.radians(h))
            n += 1
            pl.append(to_latlon(x, y))
        steps.append(pl)
    write_route(route, steps, 'Bench curve %d' % points)


def curve_track(track):
    _, _, leg_len = curve_shape()
    t0 = 1_795_000_000
    total = LEGS * leg_len
    n = int(total / SPEED) + 1  # the last epoch is at the end of the route
    with open(track, 'w', newline='') as out:
        for e in range(n + 1):
            s = min(total, e * SPEED)
            x, y, h = curve_at(min(s, total - 1e-9))
            wob = 2.0 * math.sin(e * 0.7)
            x += wob * math.cos(math.radians(h))
            y -= wob * math.sin(math.radians(h))
            write_epoch(out, t0 + e, x, y, h)


def write_epoch(out, t, x, y, h):
    """One epoch of a benchmark drive (RMC, GGA, GSA) at local metres (x, y), heading h, time t."""
    lat, lon = to_latlon(x, y)
    tm = __import__('time').gmtime(t)
    hms = '%02d%02d%02d.00' % (tm.tm_hour, tm.tm_min, tm.tm_sec)
    date = '%02d%02d%02d' % (tm.tm_mday, tm.tm_mon, tm.tm_year % 100)
    la, ns = dm(lat, True)
    lo, ew = dm(lon, False)
    out.write(cksum('GPRMC,%s,A,%s,%s,%s,%s,%.2f,%.1f,%s,,,A'
                    % (hms, la, ns, lo, ew, SPEED / 0.514444, h, date)))
    out.write(cksum('GPGGA,%s,%s,%s,%s,%s,1,10,0.9,520.0,M,47.9,M,,' % (hms, la, ns, lo, ew)))
    out.write(cksum('GPGSA,A,3,01,02,03,04,05,06,07,08,09,10,,,1.6,0.9,1.3'))


def polyline6(points):
    out = []
    last = (0, 0)
    for lat, lon in points:
        cur = (round(lat * 1e6), round(lon * 1e6))
        for d in (cur[0] - last[0], cur[1] - last[1]):
            v = ~(d << 1) if d < 0 else d << 1
            while v >= 0x20:
                out.append(chr((0x20 | (v & 0x1F)) + 63))
                v >>= 5
            out.append(chr(v + 63))
        last = cur
    return ''.join(out)


def valhalla(route, response):
    import json
    with open(route) as f:
        doc = json.load(f)
    steps = doc['routes'][0]['steps']
    shape = [(p['latitude'], p['longitude']) for p in steps[0]['polyline']]
    maneuvers = []
    for i, step in enumerate(steps[1:]):
        begin = len(shape) - 1
        shape += [(p['latitude'], p['longitude']) for p in step['polyline'][1:]]
        length = sum(haversine(shape[k], shape[k + 1]) for k in range(begin, len(shape) - 1))
        text = ('Drive northeast on Bench Road 1.' if i == 0
                else steps[i]['instructions'] or 'Continue.')
        maneuvers.append({'type': 1 if i == 0 else (10 if i % 2 else 15), 'instruction': text,
                          'time': round(length / SPEED, 3), 'length': round(length / 1000, 3),
                          'begin_shape_index': begin, 'end_shape_index': len(shape) - 1,
                          'travel_mode': 'drive', 'travel_type': 'car'})
    end = len(shape) - 1
    maneuvers.append({'type': 4, 'instruction': 'You have arrived at your destination.',
                      'time': 0.0, 'length': 0.0, 'begin_shape_index': end,
                      'end_shape_index': end, 'travel_mode': 'drive', 'travel_type': 'car'})
    total = sum(m['length'] for m in maneuvers)
    summary = {'has_toll': False, 'has_highway': False, 'has_ferry': False,
               'time': round(total * 1000 / SPEED, 3), 'length': round(total, 3)}
    first, last = shape[0], shape[-1]
    trip = {'locations': [{'type': 'break', 'lat': first[0], 'lon': first[1]},
                          {'type': 'break', 'lat': last[0], 'lon': last[1]}],
            'legs': [{'maneuvers': maneuvers, 'summary': summary, 'shape': polyline6(shape)}],
            'summary': summary, 'status_message': 'Found route between points', 'status': 0,
            'units': 'kilometers', 'language': 'en-US'}
    with open(response, 'w') as out:
        json.dump({'trip': trip}, out)


def main():
    a = sys.argv[1:]
    if len(a) == 3 and a[0] == 'follow':
        follow(a[1], a[2])
    elif len(a) == 3 and a[0] == 'zigzag':
        zigzag(int(a[1]), a[2])
    elif len(a) == 2 and a[0] == 'zigzag-track':
        zigzag_track(a[1])
    elif len(a) in (3, 4) and a[0] == 'curve':
        curve(int(a[1]), a[2], float(a[3]) if len(a) == 4 else 0.0)
    elif len(a) == 2 and a[0] == 'curve-track':
        curve_track(a[1])
    elif len(a) == 3 and a[0] == 'valhalla':
        valhalla(a[1], a[2])
    else:
        sys.exit(__doc__)


if __name__ == '__main__':
    main()
