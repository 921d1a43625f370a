// libFuzzer entry point for the gpsd JSON capture reader and report decoder (Scripts/fuzz.sh),
// as `stepwised` reads a `gpspipe -w` capture.

import GPSD
import Geodesy
import Glibc  // libm: the pure targets round numbers and nothing else here links it

@_cdecl("LLVMFuzzerTestOneInput")
public func gpsdFuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
  let bytes = UnsafeBufferPointer(start: data, count: size)
  var reader = GPSDCaptureReader()
  let fixes = reader.feed(bytes) + reader.finish()
  for fix in fixes {
    if let c = fix.coordinate, !(c.latitude.isFinite && c.longitude.isFinite) {
      fatalError("GPSDCaptureReader: non-finite coordinate")
    }
  }
  return 0
}
