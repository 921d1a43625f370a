import Guidance
import JSON
import Returning

extension StateStore {
  /// The `returning` member of the progress file: what of the guidance back to the route was
  /// said, so a restart off the route goes on with the same announcements.
  ///
  /// Optional: a file without it (older, or on the route) resumes with nothing said yet.
  static func encode(_ r: ReturnGuide.Progress) -> JSONValue {
    var o = JSONObject()
    if let t = r.since { o.append("since", .number(t)) }
    if let l = r.latest {
      var latest = JSONObject()
      latest.append("time", .number(l.time))
      latest.append("distance", .number(l.distance))
      latest.append("bearing", .number(l.bearing))
      if let c = l.course { latest.append("course", .number(c)) }
      o.append("latest", .object(latest))
    }
    // The progress file's key, kept: the format is versioned on disk.
    o.append("prompts", .number(Double(r.announcements)))
    if let t = r.lastAnnouncement { o.append("lastAnnouncement", .number(t)) }
    if let t = r.nextDue { o.append("nextDue", .number(t)) }
    o.append("awayStreak", .number(Double(r.awayStreak)))
    o.append("awayStart", .number(r.awayStart))
    o.append("turnAroundPending", .bool(r.turnAroundPending))
    return .object(o)
  }

  static func decodeReturning(_ o: JSONObject) -> ReturnGuide.Progress? {
    func count(_ key: String) -> Int { Int(max(0, min(1e9, o[key]?.doubleValue ?? 0))) }
    var latest: ReturnGuide.Observation?
    if let l = o["latest"]?.objectValue, let t = l["time"]?.doubleValue,
      let d = l["distance"]?.doubleValue, let b = l["bearing"]?.doubleValue
    {
      latest = ReturnGuide.Observation(
        time: t, distance: d, bearing: b, course: l["course"]?.doubleValue)
    }
    return ReturnGuide.Progress(
      since: o["since"]?.doubleValue, latest: latest, announcements: count("prompts"),
      lastAnnouncement: o["lastAnnouncement"]?.doubleValue, nextDue: o["nextDue"]?.doubleValue,
      awayStreak: count("awayStreak"), awayStart: o["awayStart"]?.doubleValue ?? 0,
      turnAroundPending: o["turnAroundPending"]?.boolValue ?? false)
  }
}
