// libFuzzer entry point for the JSON parser and writer (Scripts/fuzz.sh).

import Glibc  // libm: the pure targets round numbers and nothing else here links it
import JSON

@_cdecl("LLVMFuzzerTestOneInput")
public func jsonFuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
  let bytes = UnsafeBufferPointer(start: data, count: size)
  guard let value = try? JSONParser.parse(bytes) else { return 0 }
  // What the writer prints must parse back to the same value.
  let text = JSONWriter.string(value)
  guard let again = try? JSONParser.parse(text) else {
    fatalError("JSONWriter output does not parse: \(text)")
  }
  // A number too large for a Double parses to ±infinity (the route and command validators
  // refuse it), and the writer writes non-finite numbers as null: those cannot round-trip.
  if again != value && !containsNonFinite(value) {
    fatalError("JSON round trip changed the value: \(text)")
  }
  return 0
}

private func containsNonFinite(_ v: JSONValue) -> Bool {
  switch v {
  case .number(let d): return !d.isFinite
  case .array(let a): return a.contains(where: containsNonFinite)
  case .object(let o): return o.contains(where: { containsNonFinite($0.1) })
  default: return false
  }
}
