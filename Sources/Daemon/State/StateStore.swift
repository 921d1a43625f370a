import Glibc
import Guidance
import JSON
import POSIX
import Routes

/// Saves and restores the daemon's state across restarts, in the state directory
/// (`$STATE_DIRECTORY` under systemd, else `--state-dir`): the route document and the selected
/// alternative in `route.json` (written when guidance starts or the route changes), and the
/// progress in `progress.json` (small; written when the step changes and every few seconds).
///
/// Both are written atomically (write, fsync, rename), so a `kill -9` or a power cut leaves
/// either the old or the new file, never half of one. A corrupt, truncated, foreign or
/// mismatched file is reported and ignored: the daemon then starts afresh.
public struct StateStore: Sendable {
  /// Format marker and version, so a foreign or future file is recognised.
  public static let format = "stepwise-state"
  public static let version = 1.0
  /// Version of the progress file.
  ///
  /// 2: the session's phase (`"joining"`, `"onRoute"`, `"offRoute"`, `"arrived"`) replaces the
  /// `offRoute` and `arrived` booleans of 1; `said` holds each step's ``AnnouncementFlags`` raw
  /// value in both. Files of version 1 still load.
  public static let progressVersion = 2.0

  public let directory: String
  public var routePath: String { directory + "/route.json" }
  public var progressPath: String { directory + "/progress.json" }

  public init(directory: String) { self.directory = directory }

  /// The state directory from `$STATE_DIRECTORY` (the first entry), or `fallback`.
  public static func directory(fallback: String?) -> String? {
    if let v = getenv("STATE_DIRECTORY").map({ String(cString: $0) }), !v.isEmpty {
      return String(v.split(separator: ":").first ?? Substring(v))
    }
    return fallback
  }

  /// Makes the state directory when it is missing, with its missing parents, as systemd's
  /// `StateDirectory=` does: the directory itself mode 0700 (the state is the daemon's own),
  /// parents 0755.
  ///
  /// An existing directory is left as it is. The corresponding C function is `mkdir`.
  public func createDirectory() throws {
    var made = ""
    let components = directory.split(separator: "/", omittingEmptySubsequences: true)
    for (i, component) in components.enumerated() {
      made += (made.isEmpty && !directory.hasPrefix("/") ? "" : "/") + component
      let mode: mode_t = i == components.count - 1 ? 0o700 : 0o755
      if mkdir(made, mode) != 0 && errno != EEXIST {
        throw SystemError(errno: errno, function: "mkdir", subject: made)
      }
    }
  }

  /// What was saved.
  public struct Saved: Sendable {
    public var document: RouteDocument
    public var routeIndex: Int
    /// The progress, when it was saved for this document and alternative.
    public var snapshot: NavigationSession.Snapshot?
    /// The route file the document came from, for reloads.
    public var routeFile: String?
    /// The route's revision: above 0 when `document` is a reroute of the file's route.
    public var revision = 0
  }

  /// A short fingerprint of one alternative, so progress saved for another route is refused.
  public static func fingerprint(_ document: RouteDocument, _ index: Int) -> String {
    guard document.routes.indices.contains(index) else { return "" }
    let r = document.routes[index]
    let points = r.steps.reduce(0) { $0 + $1.polyline.count }
    return
      "\(document.routes.count)/\(index)/\(r.steps.count)/\(points)/\(Int(r.distance.rounded()))"
  }

  /// Writes the route document and the selected alternative, and the progress along it.
  ///
  /// Throws `SystemError` (full disk, read-only directory, …); the caller warns and goes on
  /// guiding. Leftovers of writes a crash cut short go first (``removeLeftovers()``): the
  /// daemon saves the route as it starts.
  ///
  /// `progress` is where guidance along this route stands, for a session resumed from the
  /// saved state: it is written again at once, so a crash before the next progress save still
  /// resumes there. `nil` (a new route, or one started over) removes the saved progress, which
  /// no longer applies. Throws when a file cannot be written.
  public func saveRoute(
    _ document: RouteDocument, routeIndex: Int, routeFile: String?,
    progress: NavigationSession.Snapshot? = nil, revision: Int = 0
  ) throws {
    var o = JSONObject()
    o.append("format", .string(Self.format))
    o.append("version", .number(Self.version))
    if let routeFile { o.append("routeFile", .string(routeFile)) }
    o.append("routeIndex", .number(Double(routeIndex)))
    if revision > 0 { o.append("revision", .number(Double(revision))) }
    removeLeftovers()
    // Streamed: the file is never whole in memory, nor is a tree of the route's points. The
    // bytes are those of the object above with a last member "document" holding
    // `NativeRouteFormat.encode(document)`.
    var out = Array(JSONWriter.string(.object(o)).utf8.dropLast())
    out.reserveCapacity(NativeRouteFormat.writeChunk + 4096)
    out.append(contentsOf: #","document":"#.utf8)
    try writeFileAtomically(routePath, mode: 0o600) { fd, subject throws(SystemError) in
      try NativeRouteFormat.write(document, into: &out) { bytes throws(SystemError) in
        try writeAll(fd, bytes, subject: subject)
        bytes.removeAll(keepingCapacity: true)
      }
      out.append(0x7D)  // }
      try writeAll(fd, out, subject: subject)
    }
    if let progress, progress.routeIndex == routeIndex {
      try saveProgress(progress, of: document)
    } else if unlink(progressPath) != 0 && errno != ENOENT {
      throw SystemError(errno: errno, function: "unlink", subject: progressPath)
    }
  }

  /// Writes the progress along `document`'s alternative `snapshot.routeIndex`.
  public func saveProgress(_ snapshot: NavigationSession.Snapshot, of document: RouteDocument)
    throws
  {
    try saveProgress(snapshot, fingerprint: Self.fingerprint(document, snapshot.routeIndex))
  }

  /// Writes the progress with a route fingerprint computed once by the caller (it walks the
  /// whole route, which a save every few seconds should not repeat).
  public func saveProgress(_ snapshot: NavigationSession.Snapshot, fingerprint: String) throws {
    var p = JSONObject()
    p.append("format", .string(Self.format))
    p.append("version", .number(Self.progressVersion))
    p.append("route", .string(fingerprint))
    p.append("routeIndex", .number(Double(snapshot.routeIndex)))
    p.append("distanceAlong", .number(snapshot.distanceAlong))
    p.append("currentStep", .number(Double(snapshot.currentStep)))
    p.append("said", .array(snapshot.said.map { .number(Double($0.rawValue)) }))
    p.append("phase", .string(snapshot.phase.rawValue))
    if let t = snapshot.lastFixTime { p.append("lastFixTime", .number(t)) }
    p.append("speed", .number(snapshot.speed))
    if let v = snapshot.recentSpeed { p.append("recentSpeed", .number(v)) }
    if let v = snapshot.leadSpeed { p.append("leadSpeed", .number(v)) }
    if let t = snapshot.lastAnnouncementTime, let s = snapshot.lastAnnouncementStep {
      p.append("lastAnnouncementTime", .number(t))
      p.append("lastAnnouncementStep", .number(Double(s)))
    }
    p.append("gpsLost", .bool(snapshot.gpsLost))
    p.append("gpsLossCount", .number(Double(snapshot.gpsLossCount)))
    p.append("offRouteCount", .number(Double(snapshot.offRouteCount)))
    if let t = snapshot.lastInputTime { p.append("lastInputTime", .number(t)) }
    if let t = snapshot.lastMatchTime { p.append("lastMatchTime", .number(t)) }
    p.append("reckonedSteps", .number(Double(snapshot.reckonedSteps)))
    if let r = snapshot.returning { p.append("returning", Self.encode(r)) }
    if let h = snapshot.headsUp { p.append("headsUp", Self.encode(h)) }
    if snapshot.headsUpThrough > 0 {
      p.append("headsUpThrough", .number(Double(snapshot.headsUpThrough)))
    }
    if !snapshot.speeds.isEmpty { p.append("speeds", Self.encode(snapshot.speeds)) }
    if let t = snapshot.stepTime { p.append("stepTime", .number(t)) }
    try writeFileAtomically(progressPath, Array(JSONWriter.string(.object(p)).utf8), mode: 0o600)
  }

  /// Why saved state was not used.
  public enum LoadProblem: Error, Sendable, CustomStringConvertible {
    case missing
    case unreadable(String)
    case corrupt(String)

    public var description: String {
      switch self {
      case .missing: "no saved state"
      case .unreadable(let m): "cannot read the saved state: \(m)"
      case .corrupt(let m): "the saved state is unusable (\(m)); starting afresh"
      }
    }
  }

  private func object(_ path: String, limit: Int, versions: Set<Double> = [Self.version])
    -> Result<JSONObject, LoadProblem>
  {
    let bytes: [UInt8]
    do {
      bytes = try readWholeFile(path, limit: limit)
    } catch let e as SystemError where e.errno == ENOENT {
      return .failure(.missing)
    } catch {
      return .failure(.unreadable("\(error)"))
    }
    guard let value = try? JSONParser.parse(bytes), case .object(let o) = value else {
      return .failure(.corrupt("\(path): not a JSON object, or truncated"))
    }
    guard o["format"]?.stringValue == Self.format,
      let version = o["version"]?.doubleValue, versions.contains(version)
    else {
      let known = versions.sorted().map { String(Int($0)) }.joined(separator: " or ")
      return .failure(.corrupt("\(path): not a Stepwise state file of version \(known)"))
    }
    return .success(o)
  }

  /// Removes the temporary files of writes that a crash cut short.
  ///
  /// ``writeFileAtomically(_:_:mode:)`` writes `NAME.tmp.SERIAL.PID` and renames it over `NAME`; a
  /// `kill -9` between the two leaves it behind, one more after every such crash. A file whose
  /// process is gone is removed; one of a live process (this one, or another daemon wrongly
  /// given the same directory) is left alone. The corresponding C functions are `opendir`,
  /// `readdir`, `kill` and `unlink`.
  public func removeLeftovers() {
    guard let folder = opendir(directory) else { return }
    defer { closedir(folder) }
    while let entry = readdir(folder) {
      let name = withUnsafeBytes(of: entry.pointee.d_name) { raw in
        String(decoding: raw.prefix { $0 != 0 }, as: UTF8.self)
      }
      for target in ["route.json.tmp.", "progress.json.tmp."] where name.hasPrefix(target) {
        let tail = name.dropFirst(target.count).split(separator: ".").last ?? ""
        guard let pid = pid_t(tail), pid > 0 else { continue }
        if kill(pid, 0) == 0 || errno == EPERM { continue }
        unlink(directory + "/" + name)
      }
    }
  }

  /// Reads the saved route and, when it belongs to it, the saved progress.
  ///
  /// A route that loads with unusable progress is returned without a snapshot (guidance
  /// starts from the beginning of that route); the progress problem is in `progressProblem`.
  public func load() -> (result: Result<Saved, LoadProblem>, progressProblem: LoadProblem?) {
    let o: JSONObject
    switch object(routePath, limit: 512 << 20) {
    case .failure(let p): return (.failure(p), nil)
    case .success(let v): o = v
    }
    guard let dv = o["document"], let ri = o["routeIndex"]?.doubleValue, ri >= 0, ri < 1e6 else {
      return (.failure(.corrupt("route.json: document or routeIndex missing")), nil)
    }
    let document: RouteDocument
    do {
      document = try NativeRouteFormat.decode(dv).sharingPointArrays()
    } catch {
      return (.failure(.corrupt("route.json: \(error)")), nil)
    }
    var saved = Saved(
      document: document, routeIndex: Int(ri), snapshot: nil, routeFile: o["routeFile"]?.stringValue
    )
    if case .number(let r)? = o["revision"], r >= 1, r < 1e9, r == r.rounded() {
      saved.revision = Int(r)
    }
    guard document.routes.indices.contains(saved.routeIndex) else {
      return (.failure(.corrupt("route.json: route index out of range")), nil)
    }
    switch object(progressPath, limit: 16 << 20, versions: [Self.version, Self.progressVersion]) {
    case .failure(.missing): return (.success(saved), nil)
    case .failure(let p): return (.success(saved), p)
    case .success(let p):
      guard p["route"]?.stringValue == Self.fingerprint(document, saved.routeIndex),
        p["routeIndex"]?.doubleValue == ri,
        let s = p["distanceAlong"]?.doubleValue, let step = p["currentStep"]?.doubleValue,
        let said = p["said"]?.arrayValue, step >= 0, step < 1e9
      else { return (.success(saved), .corrupt("progress.json does not belong to route.json")) }
      let flags = said.compactMap { $0.doubleValue }.map {
        AnnouncementFlags(rawValue: UInt8(clamping: Int(max(0, min(255, $0)))))
      }
      guard flags.count == said.count else {
        return (.success(saved), .corrupt("progress.json: bad announcement flags"))
      }
      let phase: GuidancePhase
      if p["version"]?.doubleValue == Self.version {
        // Version 1: two booleans; arrived wins, neither is on the route.
        phase =
          p["arrived"]?.boolValue == true
          ? .arrived : p["offRoute"]?.boolValue == true ? .offRoute : .onRoute
      } else {
        guard let name = p["phase"]?.stringValue, let v = GuidancePhase(rawValue: name),
          v.departed
        else { return (.success(saved), .corrupt("progress.json: bad phase")) }
        phase = v
      }
      saved.snapshot = NavigationSession.Snapshot(
        routeIndex: saved.routeIndex, distanceAlong: s, currentStep: Int(step), said: flags,
        phase: phase,
        lastFixTime: p["lastFixTime"]?.doubleValue, speed: p["speed"]?.doubleValue ?? 0,
        lastAnnouncementTime: p["lastAnnouncementTime"]?.doubleValue,
        lastAnnouncementStep: p["lastAnnouncementStep"]?.doubleValue.map {
          Int(max(0, min(1e9, $0)))
        },
        gpsLost: p["gpsLost"]?.boolValue ?? false,
        gpsLossCount: Int(max(0, min(1e9, p["gpsLossCount"]?.doubleValue ?? 0))),
        offRouteCount: Int(max(0, min(1e9, p["offRouteCount"]?.doubleValue ?? 0))),
        lastInputTime: p["lastInputTime"]?.doubleValue,
        lastMatchTime: p["lastMatchTime"]?.doubleValue,
        reckonedSteps: Int(max(0, min(1e9, p["reckonedSteps"]?.doubleValue ?? 0))),
        returning: p["returning"]?.objectValue.flatMap(Self.decodeReturning),
        recentSpeed: p["recentSpeed"]?.doubleValue, leadSpeed: p["leadSpeed"]?.doubleValue,
        headsUp: p["headsUp"]?.objectValue.flatMap(Self.decodeHeadsUp),
        headsUpThrough: Int(max(0, min(1e9, p["headsUpThrough"]?.doubleValue ?? 0))),
        speeds: p["speeds"]?.arrayValue.map(Self.decodeSpeeds) ?? [],
        stepTime: p["stepTime"]?.doubleValue)
      return (.success(saved), nil)
    }
  }
}
