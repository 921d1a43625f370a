import Geodesy
public import JSON
public import Routes

/// Builds the `REPLY` objects that answer commands (`docs/protocol.md`, REPLY).
public enum Reply {
  /// `{"class":"REPLY","cmd":…,"id":…,"ok":true, members…}`.
  ///
  /// - Parameters:
  ///   - request: the command answered; its name and `id` are echoed.
  ///   - members: the command's result members, appended in order.
  /// - Returns: the reply object.
  public static func object(
    for request: CommandRequest, _ members: [(key: String, value: JSONValue)] = []
  ) -> JSONObject {
    var o = JSONObject()
    o.append("class", "REPLY")
    o.append("cmd", .string(request.command.name))
    if let id = request.id { o.append("id", id) }
    o.append("ok", true)
    for m in members { o.append(m.key, m.value) }
    return o
  }

  /// The members of a `routes` reply: `source`, `destination`, `selected` and `routes`.
  ///
  /// - Parameters:
  ///   - document: the loaded document.
  ///   - selected: the alternative being followed, if any.
  ///   - steps: whether to list the selected alternative's steps.
  ///   - geometry: whether to list them with their polylines.
  /// - Returns: the members, in order.
  public static func routesMembers(
    _ document: RouteDocument, selected: Int?, steps: Bool, geometry: Bool = false
  ) -> [(key: String, value: JSONValue)] {
    var routes: [JSONValue] = []
    for (i, r) in document.routes.enumerated() {
      var o = JSONObject()
      o.append("index", .number(Double(i)))
      o.append("name", .string(r.name))
      o.append("distance", .number((r.distance * 10).rounded() / 10))
      o.append("expectedTravelTime", .number((r.expectedTravelTime * 10).rounded() / 10))
      o.append("transportType", .string(r.transportType.rawValue))
      o.append("hasTolls", .bool(r.hasTolls))
      o.append("hasHighways", .bool(r.hasHighways))
      o.append("steps", .number(Double(r.steps.count)))
      if steps || geometry, i == selected {
        o.append(
          "stepList",
          .array(
            r.steps.map { s in
              var step = JSONObject()
              step.append("instructions", .string(s.instructions))
              step.append("distance", .number((s.distance * 10).rounded() / 10))
              step.append("transportType", .string(s.transportType.rawValue))
              if let n = s.notice, !n.isEmpty { step.append("notice", .string(n)) }
              if geometry {
                // As in the route document: a map can redraw the route (after a reroute too).
                step.append(
                  "polyline",
                  .array(
                    s.polyline.map {
                      .object(
                        JSONObject([
                          ("latitude", .number(($0.latitude * 1e7).rounded() / 1e7)),
                          ("longitude", .number(($0.longitude * 1e7).rounded() / 1e7)),
                        ]))
                    }))
              }
              return .object(step)
            }))
      }
      routes.append(.object(o))
    }
    var members: [(key: String, value: JSONValue)] = [
      ("source", .string(document.source.name)),
      ("destination", .string(document.destination.name)),
    ]
    if let selected { members.append(("selected", .number(Double(selected)))) }
    members.append(("routes", .array(routes)))
    return members
  }
}
