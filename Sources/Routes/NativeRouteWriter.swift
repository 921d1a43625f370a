import Geodesy
import JSON

extension NativeRouteFormat {
  /// Bytes `write(_:into:flushingAt:_:)` gathers before handing them on.
  public static let writeChunk = 1 << 16

  /// Writes `doc` as compact JSON, the very bytes of `JSONWriter.string(encode(doc))`, without
  /// building the tree of its points: appended to `out`, which is handed to `flush` (to be
  /// written out and emptied) whenever it holds `chunk` bytes or more.
  ///
  /// The tree of everything but the points is built by ``encode(_:)`` from a copy of `doc`
  /// whose polylines are empty, so every field of a step is written as `encode` writes it, and
  /// each empty `polyline` is replaced by the step's points as they are written. Memory stays
  /// within a chunk and that small tree, whatever the number of points. The bytes left in `out`
  /// at the end are the caller's to flush.
  public static func write<E: Error>(
    _ doc: RouteDocument, into out: inout [UInt8], flushingAt chunk: Int = writeChunk,
    _ flush: (inout [UInt8]) throws(E) -> Void
  ) throws(E) {
    var bare = doc
    for r in bare.routes.indices {
      for s in bare.routes[r].steps.indices { bare.routes[r].steps[s].polyline = RoutePolyline() }
    }
    guard case .object(let root) = encode(bare) else { return }
    let w = StreamedDocument(chunk: chunk)
    try w.object(root, into: &out, flush) { w, key, value, out throws(E) in
      guard key == "routes", case .array(let routes) = value else { return false }
      try w.array(routes, into: &out, flush) { w, r, route, out throws(E) in
        guard case .object(let o) = route else { return false }
        try w.object(o, into: &out, flush) { w, key, value, out throws(E) in
          guard key == "steps", case .array(let steps) = value else { return false }
          try w.array(steps, into: &out, flush) { w, s, step, out throws(E) in
            guard case .object(let o) = step else { return false }
            try w.object(o, into: &out, flush) { w, key, _, out throws(E) in
              guard key == "polyline" else { return false }
              try w.points(of: doc.routes[r].steps[s].polyline, into: &out, flush)
              return true
            }
            return true
          }
          return true
        }
        return true
      }
      return true
    }
  }
}

/// The walk of ``NativeRouteFormat/write(_:into:flushingAt:_:)``: JSONWriter's compact form,
/// with a hook at each member or element that writes it itself (returning true) or leaves it
/// to JSONWriter.
private struct StreamedDocument {
  let chunk: Int

  func object<E: Error>(
    _ o: JSONObject, into out: inout [UInt8], _ flush: (inout [UInt8]) throws(E) -> Void,
    _ member: (Self, String, JSONValue, inout [UInt8]) throws(E) -> Bool
  ) throws(E) {
    out.append(0x7B)  // {
    var first = true
    for (key, value) in o {
      if !first { out.append(0x2C) }  // ,
      first = false
      JSONWriter.writeString(key, into: &out)
      out.append(0x3A)  // :
      if try !member(self, key, value, &out) { JSONWriter.write(value, into: &out) }
      if out.count >= chunk { try flush(&out) }
    }
    out.append(0x7D)  // }
  }

  func array<E: Error>(
    _ a: [JSONValue], into out: inout [UInt8], _ flush: (inout [UInt8]) throws(E) -> Void,
    _ element: (Self, Int, JSONValue, inout [UInt8]) throws(E) -> Bool
  ) throws(E) {
    out.append(0x5B)  // [
    for (i, value) in a.enumerated() {
      if i > 0 { out.append(0x2C) }
      if try !element(self, i, value, &out) { JSONWriter.write(value, into: &out) }
      if out.count >= chunk { try flush(&out) }
    }
    out.append(0x5D)  // ]
  }

  /// A polyline's points as ``NativeRouteFormat/encode(_:)`` writes them.
  func points<E: Error>(
    of polyline: RoutePolyline, into out: inout [UInt8],
    _ flush: (inout [UInt8]) throws(E) -> Void
  ) throws(E) {
    out.append(0x5B)  // [
    for (i, p) in polyline.enumerated() {
      out.append(contentsOf: i == 0 ? #"{"latitude":"#.utf8 : #",{"latitude":"#.utf8)
      JSONWriter.write(.number(NativeRouteFormat.rounded(p.latitude, 1e-7)), into: &out)
      out.append(contentsOf: #","longitude":"#.utf8)
      JSONWriter.write(.number(NativeRouteFormat.rounded(p.longitude, 1e-7)), into: &out)
      out.append(0x7D)  // }
      if out.count >= chunk { try flush(&out) }
    }
    out.append(0x5D)  // ]
  }
}
