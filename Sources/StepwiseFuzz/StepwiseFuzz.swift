// libFuzzer entry point for every Stepwise input parser (Scripts/fuzz.sh), one executable for
// all five targets so that one instrumented build serves them all. `STEPWISE_FUZZ_TARGET` names
// the target: NMEAFuzz, JSONFuzz, RouteFuzz, GPSDFuzz or CommandFuzz (docs/hardening.md).
// Built with `--sanitize=fuzzer`, libFuzzer supplies `main`; a plain build links a no-op.

import GPSDProtocol
import Geodesy
import Glibc
import Instructions
import JSON
import NMEA
import Phrasebook
import RouteImporters
import Routes
import Wire

/// The five fuzz targets; the raw value is the name `STEPWISE_FUZZ_TARGET` takes.
private enum FuzzTarget: String, CaseIterable {
  case nmea = "NMEAFuzz"
  case json = "JSONFuzz"
  case route = "RouteFuzz"
  case gpsd = "GPSDFuzz"
  case command = "CommandFuzz"
}

/// The target this process fuzzes, read once from the environment; nil when unset or unknown.
private let selectedTarget: FuzzTarget? = getenv("STEPWISE_FUZZ_TARGET").flatMap {
  FuzzTarget(rawValue: String(cString: $0))
}

/// Checks the target before libFuzzer starts, so a wrong name fails at once with the list.
///
/// The corresponding C declaration is `int LLVMFuzzerInitialize(int *argc, char ***argv)`.
@_cdecl("LLVMFuzzerInitialize")
public func fuzzInitialize(_ argc: OpaquePointer?, _ argv: OpaquePointer?) -> CInt {
  if selectedTarget == nil {
    let names = FuzzTarget.allCases.map(\.rawValue).joined(separator: ", ")
    let message = Array("StepwiseFuzz: set STEPWISE_FUZZ_TARGET to one of \(names)\n".utf8)
    _ = message.withUnsafeBytes { write(2, $0.baseAddress, $0.count) }
    exit(2)
  }
  return 0
}

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzTestOneInput(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
  let bytes = UnsafeBufferPointer(start: data, count: size)
  switch selectedTarget {
  case .nmea: nmeaFuzz(bytes)
  case .json: jsonFuzz(bytes)
  case .route: routeFuzz(bytes)
  case .gpsd: gpsdFuzz(bytes)
  case .command: commandFuzz(bytes)
  case nil: break
  }
  return 0
}

/// NMEAFuzz: `NMEAReader.feed` + `finish` on the whole input, then again split at an
/// input-chosen byte, so chunk boundaries are fuzzed too; both readings must agree, and every
/// coordinate must be finite.
private func nmeaFuzz(_ bytes: UnsafeBufferPointer<UInt8>) {
  let size = bytes.count
  var whole = NMEAReader()
  let a = whole.feed(bytes) + whole.finish()
  var split = NMEAReader()
  let cut = size == 0 ? 0 : Int(bytes[0]) % (size + 1)
  let b =
    split.feed(UnsafeBufferPointer(rebasing: bytes[0..<cut]))
    + split.feed(UnsafeBufferPointer(rebasing: bytes[cut..<size])) + split.finish()
  if a != b || whole.statistics != split.statistics {
    fatalError("NMEAReader: chunked reading differs from whole reading")
  }
  for fix in a {
    if let c = fix.coordinate, !(c.latitude.isFinite && c.longitude.isFinite) {
      fatalError("NMEAReader: non-finite coordinate")
    }
  }
}

/// JSONFuzz: `JSONParser.parse`, then `JSONWriter.string`; what the writer prints must parse
/// back to the same value.
private func jsonFuzz(_ bytes: UnsafeBufferPointer<UInt8>) {
  guard let value = try? JSONParser.parse(bytes) else { return }
  let text = JSONWriter.string(value)
  guard let again = try? JSONParser.parse(text) else {
    fatalError("JSONWriter output does not parse: \(text)")
  }
  // A number too large for a Double parses to ±infinity (the route and command validators
  // refuse it), and the writer writes non-finite numbers as null: those cannot round-trip.
  if again != value && !containsNonFinite(value) {
    fatalError("JSON round trip changed the value: \(text)")
  }
}

private func containsNonFinite(_ v: JSONValue) -> Bool {
  switch v {
  case .number(let d): return !d.isFinite
  case .array(let a): return a.contains(where: containsNonFinite)
  case .object(let o): return o.contains(where: { containsNonFinite($0.1) })
  default: return false
  }
}

/// RouteFuzz: every route importer, through format detection (`RouteImport.decode`), as
/// `stepwised --route` and `stepwise route convert` read files.
private func routeFuzz(_ bytes: UnsafeBufferPointer<UInt8>) {
  _ = try? RouteImport.decode(Array(bytes), writer: { InstructionWriter(language: $0) })
}

/// GPSDFuzz: the gpsd JSON capture reader and report decoder, as `stepwised` reads a
/// `gpspipe -w` capture; every coordinate must be finite.
private func gpsdFuzz(_ bytes: UnsafeBufferPointer<UInt8>) {
  var reader = GPSDCaptureReader()
  for fix in reader.feed(bytes) + reader.finish() {
    if let c = fix.coordinate, !(c.latitude.isFinite && c.longitude.isFinite) {
      fatalError("GPSDCaptureReader: non-finite coordinate")
    }
  }
}

/// CommandFuzz: the socket's line framer, then the command parser on every line; a parsed
/// command re-encoded as a client would send it must parse back to the same command.
private func commandFuzz(_ bytes: UnsafeBufferPointer<UInt8>) {
  var framer = LineFramer(maximumLength: 4096)
  for item in framer.feed(bytes) {
    guard case .line(let line) = item else { continue }
    guard let request = try? CommandRequest.parse(line: line) else { continue }
    guard let again = try? CommandRequest.parse(line: Array(request.line.utf8)), again == request
    else {
      fatalError("CommandRequest round trip failed: \(request.line)")
    }
  }
}
