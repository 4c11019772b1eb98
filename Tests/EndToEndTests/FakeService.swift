import Foundation
import HTTPServer
import PartyTestSupport

/// A local stand-in for a remote music service on 127.0.0.1, port 0, built on our own HTTP layer.
/// It answers with recorded fixture bodies, remembers every request, and can fail on demand.
/// `@unchecked Sendable`: `lock` guards the recorded requests and the failure switch.
final class FakeService: @unchecked Sendable {
    private let lock = NSLock()
    private var recorded: [Request] = []
    private var failure: Response?
    private var server: Server?
    private(set) var port: UInt16 = 0

    /// `routes` answers each request; `fail(with:)` overrides every answer until cleared.
    init(_ build: (inout Router, FakeService) -> Void) throws {
        var routes = Router()
        build(&routes, self)
        let router = routes
        let server = Server { [unowned self] request in
            self.lock.lock()
            self.recorded.append(request)
            let failure = self.failure
            self.lock.unlock()
            return failure ?? router.handle(request).response
        }
        try server.start(Server.Configuration(host: "127.0.0.1", port: 0, threads: 1, connectionLimit: 64))
        port = server.port
        self.server = server
    }

    var base: String { "http://127.0.0.1:\(port)" }

    var requests: [Request] {
        lock.lock()
        defer { lock.unlock() }
        return recorded
    }

    func fail(with response: Response?) {
        lock.lock()
        failure = response
        lock.unlock()
    }

    func stop() { server?.stop() }

    static func fixture(_ name: String) -> [UInt8] {
        guard let url = Bundle.module.url(forResource: "Fixtures/\(name)", withExtension: "json"),
              let data = try? Data(contentsOf: url) else { return Array("{}".utf8) }
        return [UInt8](data)
    }

    static func json(_ name: String, status: Int = 200) -> Response {
        .bytes(fixture(name), contentType: "application/json; charset=UTF-8", status: status)
    }
}
