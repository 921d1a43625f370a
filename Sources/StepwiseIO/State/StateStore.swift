import Glibc
import Guidance
import JSON
import Routes

/// Saves and restores the daemon's state across restarts: the route document, the selected
/// alternative and the progress, in one JSON file written atomically (write, fsync, rename),
/// so a `kill -9` or a power cut leaves either the old or the new file, never half of one.
///
/// The file lives in the state directory (`$STATE_DIRECTORY` under systemd, else
/// `--state-dir`). A corrupt, truncated or foreign file is reported and ignored.
public struct StateStore: Sendable {
  /// Format marker and version, so a foreign or future file is recognised.
  public static let format = "stepwise-state"
  public static let version = 1.0

  public let directory: String
  public var path: String { directory + "/state.json" }

  public init(directory: String) { self.directory = directory }

  /// The state directory from `$STATE_DIRECTORY` (the first entry), or `fallback`.
  public static func directory(fallback: String?) -> String? {
    if let v = getenv("STATE_DIRECTORY").map({ String(cString: $0) }), !v.isEmpty {
      return String(v.split(separator: ":").first ?? Substring(v))
    }
    return fallback
  }

  /// What was saved.
  public struct Saved: Sendable {
    public var document: RouteDocument
    public var snapshot: NavigationSession.Snapshot
    /// The route file the document came from, for reloads.
    public var routePath: String?
  }

  /// Writes the state. Throws `SystemError` (full disk, read-only directory, …); the caller
  /// warns and goes on guiding.
  public func save(document: RouteDocument, snapshot: NavigationSession.Snapshot, routePath: String?)
    throws
  {
    var o = JSONObject()
    o.append("format", .string(Self.format))
    o.append("version", .number(Self.version))
    if let routePath { o.append("routePath", .string(routePath)) }
    var p = JSONObject()
    p.append("routeIndex", .number(Double(snapshot.routeIndex)))
    p.append("distanceAlong", .number(snapshot.distanceAlong))
    p.append("currentStep", .number(Double(snapshot.currentStep)))
    p.append("said", .array(snapshot.said.map { .number(Double($0)) }))
    p.append("offRoute", .bool(snapshot.offRoute))
    p.append("arrived", .bool(snapshot.arrived))
    if let t = snapshot.lastFixTime { p.append("lastFixTime", .number(t)) }
    p.append("speed", .number(snapshot.speed))
    o.append("progress", .object(p))
    o.append("document", NativeRouteFormat.encode(document))
    try writeFileAtomically(path, Array(JSONWriter.string(.object(o)).utf8), mode: 0o600)
  }

  /// Why a state file was not used.
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

  /// Reads the saved state.
  public func load() -> Result<Saved, LoadProblem> {
    let bytes: [UInt8]
    do {
      bytes = try readWholeFile(path, limit: 512 << 20)
    } catch let e as SystemError where e.errno == ENOENT {
      return .failure(.missing)
    } catch {
      return .failure(.unreadable("\(error)"))
    }
    guard let value = try? JSONParser.parse(bytes), case .object(let o) = value else {
      return .failure(.corrupt("not a JSON object, or truncated"))
    }
    guard o["format"]?.stringValue == Self.format, o["version"]?.doubleValue == Self.version
    else { return .failure(.corrupt("not a Stepwise state file of version \(Self.version)")) }
    guard let dv = o["document"], let p = o["progress"]?.objectValue else {
      return .failure(.corrupt("document or progress missing"))
    }
    let document: RouteDocument
    do {
      document = try NativeRouteFormat.decode(dv)
    } catch {
      return .failure(.corrupt("the saved route: \(error)"))
    }
    guard let ri = p["routeIndex"]?.doubleValue, let s = p["distanceAlong"]?.doubleValue,
      let step = p["currentStep"]?.doubleValue, let said = p["said"]?.arrayValue,
      ri >= 0, ri < 1e6, step >= 0, step < 1e9
    else { return .failure(.corrupt("progress fields missing")) }
    let flags = said.compactMap { $0.doubleValue }.map { UInt8(clamping: Int(max(0, min(255, $0)))) }
    guard flags.count == said.count else { return .failure(.corrupt("bad prompt flags")) }
    let snapshot = NavigationSession.Snapshot(
      routeIndex: Int(ri), distanceAlong: s, currentStep: Int(step), said: flags,
      offRoute: p["offRoute"]?.boolValue ?? false, arrived: p["arrived"]?.boolValue ?? false,
      lastFixTime: p["lastFixTime"]?.doubleValue, speed: p["speed"]?.doubleValue ?? 0)
    return .success(Saved(document: document, snapshot: snapshot, routePath: o["routePath"]?.stringValue))
  }
}
