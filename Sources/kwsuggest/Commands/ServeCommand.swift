import KeywordServer
import KeywordService
#if canImport(Glibc)
import Glibc
#endif

/// `kwsuggest serve`: the HTTP API and the admin page.
struct ServeCommand: Command {
    /// Builds the engine for a model directory on an opened store. Runs on a background thread after the
    /// server listens; until it returns, /readyz answers 503.
    typealias EngineFactory = @Sendable (_ modelDirectory: String, _ store: any KeywordStore) throws -> any SuggestionEngine

    static let engineFactory: EngineFactory = { directory, store in
        try ModelEngine(components: ModelDirectory.load(path: directory), store: store)
    }

    static let configuration = CommandConfiguration(
        name: "serve",
        abstract: "Serves the suggestion API and the admin page over HTTP.",
        usage: "kwsuggest serve [--host <host>] [--port <port>] [--model <dir>] [--store <store>] [--threads <n>] [--cors-origin <origin> ...]",
        options: [
            OptionSpec(names: ["--host"], valueName: "host", help: "Address to bind; '::' for IPv4+IPv6 (default: 127.0.0.1)."),
            OptionSpec(names: ["--port"], valueName: "port", help: "TCP port; 0 picks a free one (default: $PORT or 8080)."),
            OptionSpec(names: ["--model"], valueName: "dir", help: "Model directory (default: $KWSUGGEST_MODEL or models/default)."),
            OptionSpec(names: ["--threads"], valueName: "n", help: "Event-loop threads (default: one per CPU)."),
            OptionSpec(names: ["--cors-origin"], valueName: "origin",
                       help: "Origin allowed to call the API from a browser; repeatable, '*' for any (default: $KWSUGGEST_CORS_ORIGINS).",
                       isRepeatable: true),
            storeOption,
            OptionSpec(names: ["--overlay"], valueName: "file", help: "Same as --store file:<file>."),
        ],
        discussion: """
            Listens first and prints 'listening on http://HOST:PORT', then opens the store and loads the model in
            the background; /readyz answers 503 until both are done. Keyword changes (POST /v1/keywords) and
            feedback (POST /v1/feedback) are durable in the store before they are acknowledged. The file store
            locks a file beside the overlay, so processes on one machine may share it; changes by other
            processes are picked up within 1 s (SIGHUP reloads at once). For replicas on several machines use
            postgres://user@host:5432/db (needs libpq5; password from the URL, PGPASSWORD or PGPASSFILE).
            SIGTERM or SIGINT stops accepting, finishes in-flight requests (up to 10 s) and exits 0.
            Environment: PORT, KWSUGGEST_MODEL, KWSUGGEST_STORE, KWSUGGEST_CORS_ORIGINS, KWSUGGEST_ADMIN_TOKEN
            (when set, keyword changes and feedback need 'Authorization: Bearer <token>').
            """
    )

    var host: String
    var port: Int
    var modelDirectory: String
    var threads: Int?
    var corsOrigins: [String]
    var store: StoreLocation

    init(arguments: ParsedArguments) throws {
        try arguments.expectNoPositionals()
        host = arguments.value("--host") ?? "127.0.0.1"
        if let text = arguments.value("--port") {
            guard let number = Int(text) else {
                throw CommandError.usage("The value '\(text)' is invalid for '--port <port>': expected an integer.")
            }
            port = number
        } else if let text = Environment.value("PORT"), !text.isEmpty {
            guard let number = Int(text) else { throw CommandError.usage("The environment variable PORT='\(text)' is not an integer.") }
            port = number
        } else {
            port = 8080
        }
        modelDirectory = resolveModelDirectory(arguments.value("--model"))
        threads = arguments.value("--threads") == nil ? nil : try arguments.int("--threads", default: 0)
        var origins = arguments.all("--cors-origin")
        if origins.isEmpty, let text = Environment.value("KWSUGGEST_CORS_ORIGINS") {
            origins = CORSPolicy.parse(environment: text)
        }
        corsOrigins = origins
        store = try resolveStore(arguments, modelDirectory: modelDirectory)
    }

    func validate() throws {
        guard (0...65535).contains(port) else {
            throw CommandError.usage("The value '\(port)' is invalid for '--port <port>': expected 0 to 65535.")
        }
        if let threads, !(1...256).contains(threads) {
            throw CommandError.usage("The value '\(threads)' is invalid for '--threads <n>': expected 1 to 256.")
        }
    }

    func run() throws {
        var options = ServiceOptions()
        options.server.host = host
        options.server.port = port
        if let threads { options.server.eventLoops = threads }
        options.api.cors = CORSPolicy(allowedOrigins: corsOrigins)
        if let token = Environment.value("KWSUGGEST_ADMIN_TOKEN"), !token.isEmpty { options.api.adminToken = token }
        options.store = store
        let factory = Self.engineFactory
        let directory = modelDirectory
        let runner = ServiceRunner(options: options, loader: { store in try factory(directory, store) }, announce: { line in
            // Unbuffered, so a supervisor reading stdout sees the address at once.
            writeStandardOutput(Array((line + "\n").utf8))
        })
        do {
            try runner.run()
        } catch let error as SocketError {
            throw CommandError.failure("cannot listen on \(host):\(port): \(error)")
        } catch let error as ServiceError {
            throw CommandError.failure(error.message)
        }
    }
}
