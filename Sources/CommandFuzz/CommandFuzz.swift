// libFuzzer entry point for the socket command side (Scripts/fuzz.sh): the line framer, then
// the command parser on every line, then the reply encoding of what was parsed.

import Glibc  // libm: the pure targets round numbers and nothing else here links it
import Wire

@_cdecl("LLVMFuzzerTestOneInput")
public func commandFuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
  let bytes = UnsafeBufferPointer(start: data, count: size)
  var framer = LineFramer(maximumLength: 4096)
  for item in framer.feed(bytes) {
    guard case .line(let line) = item else { continue }
    guard let request = try? CommandRequest.parse(line: line) else { continue }
    // What a client would send for this command must parse back to the same command.
    guard let again = try? CommandRequest.parse(line: Array(request.line.utf8)), again == request
    else {
      fatalError("CommandRequest round trip failed: \(request.line)")
    }
  }
  return 0
}
