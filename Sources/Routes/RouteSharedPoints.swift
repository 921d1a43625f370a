extension Route {
  /// This route with every step's polyline a range of one array that holds all the route's
  /// points, and that array.
  ///
  /// The steps' points follow one another in it as they come, step 0 first, each step's first
  /// point (its join with the step before) included, so each step keeps exactly its own points.
  /// Guidance's route geometry reads its points from this array instead of a copy of them: a
  /// route held once, 8 bytes a point. A route whose steps are ranges of
  /// one such array already is returned as it is, without copying.
  public func sharingOnePointArray() -> (route: Route, points: RoutePolyline) {
    if let shared = sharedPoints { return (self, shared) }
    var total = 0
    for step in steps { total += step.polyline.count }
    let storage = [Int32](unsafeUninitializedCapacity: 2 * total) { buffer, count in
      var at = 0
      for step in steps {
        step.polyline.storedUnits.withUnsafeBufferPointer { units in
          let end = at + units.count
          _ = UnsafeMutableBufferPointer(rebasing: buffer[at..<end]).initialize(from: units)
          at = end
        }
      }
      count = at
    }
    var route = self
    var first = 0
    for i in route.steps.indices {
      let count = route.steps[i].polyline.count
      route.steps[i].polyline = RoutePolyline(storage: storage, first: first, count: count)
      first += count
    }
    return (route, RoutePolyline(storage: storage))
  }

  /// The one array this route's steps are consecutive ranges of, from its start to its end, if
  /// they are.
  private var sharedPoints: RoutePolyline? {
    guard let storage = steps.first?.polyline.storage else { return nil }
    let base = storage.withUnsafeBufferPointer { $0.baseAddress }
    var next = 0
    for step in steps {
      let p = step.polyline
      guard p.first == next, p.storage.withUnsafeBufferPointer({ $0.baseAddress }) == base
      else { return nil }
      next += 2 * p.pointCount
    }
    guard next == storage.count else { return nil }
    return RoutePolyline(storage: storage)
  }
}

extension RouteDocument {
  /// This document with each route's steps ranges of one array of that route's points
  /// (``Route/sharingOnePointArray()``).
  ///
  /// A loaded document is given this form once, so that a guidance session made from it (which
  /// needs its route in this form) and whoever else keeps the document (the socket's `routes`
  /// and `select`) share the points instead of each holding a copy.
  public func sharingPointArrays() -> RouteDocument {
    var document = self
    for i in document.routes.indices {
      document.routes[i] = document.routes[i].sharingOnePointArray().route
    }
    return document
  }
}
