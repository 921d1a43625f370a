import Foundation
import Geodesy
import Instructions
import Rerouting
import Router
import Routes
import TestSupport
import Testing

/// The router client against real servers on loopback: a real Valhalla, one that is down, one
/// that never answers, ones that answer 503, 400 or garbage, and an https server.
@Suite(.blocking, .serialized, .timeLimit(.minutes(5))) struct RouterClientTests {
  static let writer = InstructionWriter(language: .en)
  /// On Rue Sainte-Croix de la Bretonnerie heading east, as at the start of the Marais drive.
  static let marais = Coordinate(latitude: 48.8585, longitude: 2.356)
  static let republique = Coordinate(latitude: 48.869, longitude: 2.378)

  static func request(
    from origin: Coordinate = marais, to goal: Coordinate = republique, id: String = "t-1"
  ) -> RouteRequest {
    RouteRequest(
      origin: .init(coordinate: origin, course: 90, speed: 8, accuracy: 5),
      waypoints: [.init(coordinate: goal)], transportType: .automobile, language: "en-US",
      imperial: false, id: id)
  }

  static func failure(_ a: RouterAnswer) -> RouterFailure? {
    if case .failure(let f) = a.result { return f }
    return nil
  }

  @Test func aRealValhallaReroutesAndTheConnectionIsReused() throws {
    let valhalla = try ValhallaService(extract: "paris_bss")
    defer { valhalla.stop() }
    let client = try RouterClient(
      baseURL: valhalla.baseURL + "/", api: .valhalla, timeout: 5, writer: Self.writer)
    defer { client.close() }
    let first = client.fetch(Self.request(id: "t-1"))
    let document = try first.result.get()
    #expect(first.id == "t-1")
    #expect(first.connected)
    let route = document.routes[0]
    #expect(route.steps.count >= 3)
    #expect(route.distance > 2000 && route.distance < 6000)
    #expect(route.steps.last?.instructions.contains("destination") == true)
    // The same handle asks again over the same connection.
    let second = client.fetch(Self.request(id: "t-2"))
    #expect(try second.result.get().routes[0].steps.count == route.steps.count)
    #expect(!second.connected)
    // 50 km out of Paris there is no road in the extract: error 171.
    let far = client.fetch(
      Self.request(from: Coordinate(latitude: 48.5, longitude: 2.0), id: "t-3"))
    guard case .offNetwork? = Self.failure(far) else {
      Issue.record("an origin off the extract gave \(far.result)")
      return
    }
  }

  @Test func aRouterThatIsDownIsRefused() throws {
    let port = try freeLoopbackPort()
    let client = try RouterClient(
      baseURL: "http://127.0.0.1:\(port)", api: .valhalla, timeout: 2, writer: Self.writer)
    defer { client.close() }
    #expect(Self.failure(client.fetch(Self.request())) == .refused)
  }

  @Test func aRouterThatNeverAnswersTimesOut() throws {
    let server = try CannedHTTPServer(.silent)
    defer { server.stop() }
    let client = try RouterClient(
      baseURL: "http://127.0.0.1:\(server.port)", api: .valhalla, timeout: 0.3,
      writer: Self.writer)
    defer { client.close() }
    let answer = client.fetch(Self.request())
    #expect(Self.failure(answer) == .timeout)
    #expect(server.receivedRequests.count == 1)
    #expect(server.receivedRequests.first?.hasPrefix("POST /route HTTP/1.1") == true)
  }

  @Test(arguments: [
    (503, "", RouterFailure.draining),
    (
      400,
      #"{"error_code":171,"error":"No suitable edges near location","status_code":400}"#,
      .offNetwork("error 171: No suitable edges near location")
    ),
    (200, "\u{0}garbage", .malformed("not valid JSON")),
    (
      200, #"{"trip":{"status":0}}"#,
      .malformed("trip.locations: a trip needs at least 2 locations (found 0)")
    ),
  ])
  func cannedAnswersAreToldApart(status: Int, body: String, expected: RouterFailure) throws {
    let server = try CannedHTTPServer(.reply(status: status, body: body))
    defer { server.stop() }
    let client = try RouterClient(
      baseURL: "http://127.0.0.1:\(server.port)", api: .valhalla, timeout: 2, writer: Self.writer)
    defer { client.close() }
    #expect(Self.failure(client.fetch(Self.request())) == expected)
  }

  @Test func oneConnectionServesConsecutiveRequests() throws {
    let server = try CannedHTTPServer(.reply(status: 503, body: ""))
    defer { server.stop() }
    let client = try RouterClient(
      baseURL: "http://127.0.0.1:\(server.port)", api: .osrm, timeout: 2, writer: Self.writer)
    defer { client.close() }
    let answers = (1...3).map { client.fetch(Self.request(id: "t-\($0)")) }
    #expect(answers.map(Self.failure) == [.draining, .draining, .draining])
    #expect(answers.map(\.connected) == [true, false, false])
    #expect(server.acceptedConnections == 1)
    #expect(server.receivedRequests.count == 3)
    #expect(server.receivedRequests[0].hasPrefix("GET /route/v1/driving/2.356,48.8585;"))
  }

  @Test func aBadURLIsRefusedAtOnce() {
    #expect(throws: RouterClientError.self) {
      try RouterClient(baseURL: "127.0.0.1:8002", api: .valhalla, timeout: 2, writer: Self.writer)
    }
    #expect(throws: RouterClientError.self) {
      try RouterClient(baseURL: "http://", api: .valhalla, timeout: 2, writer: Self.writer)
    }
  }

  static let opensslInstalled = FileManager.default.isExecutableFile(atPath: "/usr/bin/openssl")

  @Test(.enabled(if: opensslInstalled, "openssl is not installed"))
  func httpsWorksWithTheServersCertificateAuthority() throws {
    let scratch = try ScratchDirectory()
    defer { scratch.remove() }
    let key = scratch.file("key.pem")
    let certificate = scratch.file("cert.pem")
    let make = try SpawnedProcess(
      [
        "/usr/bin/openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-keyout", key,
        "-out", certificate, "-days", "1", "-subj", "/CN=127.0.0.1", "-addext",
        "subjectAltName=IP:127.0.0.1",
      ], environment: ProcessInfo.processInfo.environment, stdoutPath: scratch.file("o"),
      stderrPath: scratch.file("e"))
    #expect(make.wait(timeout: 60) == 0)
    let port = try freeLoopbackPort()
    let reply = repositoryFile(
      "Tests/Fixtures/routes/valhalla-scenarios/par_car_marais/osrm.en-US.km.json")
    let script = """
      import http.server, ssl, sys
      body = open(sys.argv[1], 'rb').read()
      class H(http.server.BaseHTTPRequestHandler):
          protocol_version = 'HTTP/1.1'
          def do_GET(self):
              self.send_response(200)
              self.send_header('Content-Type', 'application/json')
              self.send_header('Content-Length', str(len(body)))
              self.end_headers()
              self.wfile.write(body)
          def log_message(self, *a): pass
      s = http.server.ThreadingHTTPServer(('127.0.0.1', int(sys.argv[2])), H)
      c = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
      c.load_cert_chain(sys.argv[3], sys.argv[4])
      s.socket = c.wrap_socket(s.socket, server_side=True)
      s.serve_forever()
      """
    let server = try SpawnedProcess(
      ["/usr/bin/python3", "-c", script, reply, String(port), certificate, key],
      environment: ProcessInfo.processInfo.environment, stdoutPath: scratch.file("so"),
      stderrPath: scratch.file("se"))
    defer { server.killGroup() }
    #expect(waitUntil(timeout: 20) { isListening(port) })
    let trusted = try RouterClient(
      baseURL: "https://127.0.0.1:\(port)", api: .osrm, timeout: 5, writer: Self.writer,
      caFile: certificate)
    defer { trusted.close() }
    let answer = trusted.fetch(Self.request())
    #expect(try answer.result.get().routes[0].steps.count == 11)
    // Without the authority the certificate is refused: a transport failure, not a route.
    let untrusted = try RouterClient(
      baseURL: "https://127.0.0.1:\(port)", api: .osrm, timeout: 5, writer: Self.writer)
    defer { untrusted.close() }
    let refused = untrusted.fetch(Self.request())
    guard case .transport? = Self.failure(refused) else {
      Issue.record("a self-signed certificate gave \(refused.result)")
      return
    }
  }
}
