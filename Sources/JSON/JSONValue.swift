/// A JSON value as parsed from bytes, keeping object member order.
///
/// Objects keep their members in document order (duplicates: the last one wins on lookup).
public enum JSONValue: Sendable, Equatable {
  case null
  case bool(Bool)
  case number(Double)
  case string(String)
  case array([JSONValue])
  case object(JSONObject)

  /// The JSON type name used in error messages ("object", "array", "string", …).
  public var typeName: String {
    switch self {
    case .null: "null"
    case .bool: "boolean"
    case .number: "number"
    case .string: "string"
    case .array: "array"
    case .object: "object"
    }
  }

  /// The member `key` when this is an object.
  public subscript(key: String) -> JSONValue? {
    if case .object(let o) = self { return o[key] }
    return nil
  }

  public var stringValue: String? {
    if case .string(let s) = self { return s }
    return nil
  }

  public var doubleValue: Double? {
    if case .number(let d) = self { return d }
    return nil
  }

  public var boolValue: Bool? {
    if case .bool(let b) = self { return b }
    return nil
  }

  public var arrayValue: [JSONValue]? {
    if case .array(let a) = self { return a }
    return nil
  }

  public var objectValue: JSONObject? {
    if case .object(let o) = self { return o }
    return nil
  }
}

/// An ordered JSON object.
public struct JSONObject: Sendable, Equatable, Sequence {
  /// Members in document order.
  public private(set) var members: [(key: String, value: JSONValue)]

  public init(_ members: [(key: String, value: JSONValue)] = []) {
    self.members = members
  }

  public static func == (l: JSONObject, r: JSONObject) -> Bool {
    l.members.count == r.members.count
      && zip(l.members, r.members).allSatisfy { $0.key == $1.key && $0.value == $1.value }
  }

  /// The value of `key`; with duplicate keys, the last one.
  public subscript(key: String) -> JSONValue? {
    get {
      var i = members.count - 1
      while i >= 0 {
        if members[i].key == key { return members[i].value }
        i -= 1
      }
      return nil
    }
    set {
      if let i = members.lastIndex(where: { $0.key == key }) {
        if let newValue { members[i].value = newValue } else { members.remove(at: i) }
      } else if let newValue {
        members.append((key, newValue))
      }
    }
  }

  public var keys: [String] { members.map(\.key) }

  public func makeIterator() -> IndexingIterator<[(key: String, value: JSONValue)]> {
    members.makeIterator()
  }

  /// Appends a member without checking for duplicates.
  public mutating func append(_ key: String, _ value: JSONValue) {
    members.append((key, value))
  }
}
