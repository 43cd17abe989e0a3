// The HTTP server as a service: started (listening) before the group runs, drained on shutdown.
import HTTPCore

/// Serves until shut down, then finishes in-flight requests.
struct HTTPService: Service {
    let server: HTTPServer

    func run() throws {
        server.wait()
    }

    func shutdown() {
        server.shutdown()
    }
}
