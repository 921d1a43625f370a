/// A command-line mistake; the executables print it with the usage and exit with status 2.
public struct UsageError: Error, Sendable, CustomStringConvertible {
  public var message: String
  public init(_ message: String) { self.message = message }
  public var description: String { message }
}

/// A small command-line parser: `--name value`, `--name=value`, flags, and positionals.
///
/// Options are taken out by the caller, in any order; whatever is left must be positionals.
/// `--` ends the options; a lone `-` is a positional (standard input).
public struct Arguments {
  private var items: [String]

  public init(_ arguments: some Sequence<String>) { items = Array(arguments) }

  /// Whether any argument is left.
  public var isEmpty: Bool { items.isEmpty }

  /// Takes the first argument if it is not an option (a subcommand name).
  public mutating func subcommand() -> String? {
    guard let first = items.first, !first.hasPrefix("-") else { return nil }
    items.removeFirst()
    return first
  }

  /// Takes a flag; true when present.
  public mutating func flag(_ names: String...) -> Bool {
    var found = false
    var i = 0
    while i < items.count {
      if items[i] == "--" { break }
      if names.contains(items[i]) {
        items.remove(at: i)
        found = true
      } else {
        i += 1
      }
    }
    return found
  }

  /// Takes an option's value; the last occurrence wins.
  public mutating func option(_ names: String...) throws(UsageError) -> String? {
    var value: String?
    var i = 0
    while i < items.count {
      let a = items[i]
      if a == "--" { break }
      if names.contains(a) {
        guard i + 1 < items.count else { throw UsageError("option \(a) needs a value") }
        value = items[i + 1]
        items.removeSubrange(i...(i + 1))
        continue
      }
      if let eq = a.firstIndex(of: "="), names.contains(String(a[..<eq])) {
        value = String(a[a.index(after: eq)...])
        items.remove(at: i)
        continue
      }
      i += 1
    }
    return value
  }

  /// Takes an option whose value must be one of `T`'s raw values.
  public mutating func option<T: RawRepresentable & CaseIterable>(_ name: String, as: T.Type)
    throws(UsageError) -> T? where T.RawValue == String
  {
    guard let v = try option(name) else { return nil }
    guard let t = T(rawValue: v) else {
      let allowed = T.allCases.map(\.rawValue).joined(separator: ", ")
      throw UsageError("invalid value '\(v)' for \(name) (expected one of: \(allowed))")
    }
    return t
  }

  /// Takes an option with a numeric value inside `range`.
  public mutating func number(_ name: String, in range: ClosedRange<Double>) throws(UsageError)
    -> Double?
  {
    guard let v = try option(name) else { return nil }
    guard let d = Double(v), d.isFinite, range.contains(d) else {
      throw UsageError("invalid value '\(v)' for \(name) (expected a number in \(range))")
    }
    return d
  }

  /// Takes an option with an integer value ≥ `minimum`.
  public mutating func integer(_ name: String, minimum: Int = 0) throws(UsageError) -> Int? {
    guard let v = try option(name) else { return nil }
    guard let n = Int(v), n >= minimum else {
      throw UsageError("invalid value '\(v)' for \(name) (expected an integer ≥ \(minimum))")
    }
    return n
  }

  /// The remaining arguments, which must all be positionals.
  public mutating func positionals() throws(UsageError) -> [String] {
    var out: [String] = []
    var afterDashes = false
    for a in items {
      if !afterDashes && a == "--" {
        afterDashes = true
        continue
      }
      if !afterDashes && a.hasPrefix("-") && a != "-" {
        throw UsageError("unknown option '\(a)'")
      }
      out.append(a)
    }
    items.removeAll()
    return out
  }
}
