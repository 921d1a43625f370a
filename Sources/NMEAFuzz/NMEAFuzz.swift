// libFuzzer entry point for the NMEA reader (Scripts/fuzz.sh). Built with
// `--sanitize=fuzzer --sanitize=address` libFuzzer supplies `main`; a plain build links a no-op.

import Geodesy
import Glibc  // libm: the pure targets round numbers and nothing else here links it
import NMEA

@_cdecl("LLVMFuzzerTestOneInput")
public func nmeaFuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
  let bytes = UnsafeBufferPointer(start: data, count: size)
  // Whole input at once, then again split at an input-chosen point, so chunk boundaries are
  // fuzzed too; both readings must agree.
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
  return 0
}
