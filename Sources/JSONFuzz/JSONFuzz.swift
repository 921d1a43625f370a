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
  if again != value && !containsNaN(value) {
    fatalError("JSON round trip changed the value: \(text)")
  }
  return 0
}

private func containsNaN(_ v: JSONValue) -> Bool {
  switch v {
  case .number(let d): return d.isNaN
  case .array(let a): return a.contains(where: containsNaN)
  case .object(let o): return o.contains(where: { containsNaN($0.1) })
  default: return false
  }
}
