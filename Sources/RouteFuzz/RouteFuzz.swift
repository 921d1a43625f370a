// libFuzzer entry point for every route importer, through format detection
// (`RouteFiles.decode`), as `stepwised --route` and `stepwise route convert` read files.

import Routes
import StepwiseIO

@_cdecl("LLVMFuzzerTestOneInput")
public func routeFuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
  let bytes = Array(UnsafeBufferPointer(start: data, count: size))
  _ = try? RouteFiles.decode(bytes, name: "fuzz")
  return 0
}
