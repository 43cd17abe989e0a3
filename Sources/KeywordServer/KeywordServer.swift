// The KeywordServer module: design notes (kept here as a comment so SwiftPM has no unhandled file).
//
// # KeywordServer: HTTP/1.1 on epoll, the suggestion API, the admin page
//
// ```
// Socket/    Syscalls.swift (the only file that calls the OS; errno → SocketError at the failing call),
//            Listener.swift (IPv4/IPv6 listening sockets). Knows nothing about HTTP.
// HTTP/      value types (HTTPRequest, HTTPResponse, HTTPStatus, HTTPHeaders, HTTPMethod),
//            RequestParser (incremental, RFC 9112, sections cited), ResponseWriter (one buffer per response),
//            ServerConfiguration (every limit and timeout, documented defaults), Responder (the app seam).
// Server/    EventLoop (epoll loop per thread), HTTPConnection (per-connection state), WorkerPool,
//            HTTPServer (public start/shutdown/wait), ServerMetrics, AccessLog, ServiceRunner (serve's lifecycle).
// JSON/      JSONWriter (responses, log lines) and JSONParser (strict RFC 8259 request reader).
// API/       KeywordAPI (router → RouteMatch), Handlers, RequestDecoding (validation → 4xx), APIError (errors as
//            values, rendered in one place), CORSPolicy, EngineState (loading → ready), AdminPage, OpenAPIDocument.
// ```
//
// ## Concurrency design, and why
//
// - **N event loops** (`--threads`, default one per CPU). Each is a thread with its own epoll set, eventfd
//   and 64 KiB read buffer. Loop 0 owns the listening sockets, accepts, sets `TCP_NODELAY` and hands
//   connections round-robin to the loops (through their inbox + eventfd), so keep-alive load is spread evenly.
// - **Quick handlers run inline on the loop** (healthz, readyz, metrics, GET/POST `/v1/suggest`, keyword list):
//   no thread hand-off per request. A hand-off (queue + wake-up + wake-back) costs more CPU than a whole
//   `/healthz` answer here (the server spends ≈ 14 µs of CPU per keep-alive `/healthz` request, syscalls included).
// - **Handlers that may block** (`POST /v1/keywords` fsyncs the overlay; `/v1/suggest/batch` scores up to
//   1000 names) are marked `isBlocking` by the router and run on a small **worker pool**; the connection
//   parks (no reading, so pipelined requests stay in order) until the response comes back through the
//   loop's inbox. A slow disk therefore never stalls other clients.
// - **Slow or idle clients cost memory, not threads.** A slowloris connection is an epoll entry with a
//   partial header buffer; deadlines are checked every `min(0.25 s, smallest timeout / 8)`.
// - **Each response is serialised into one buffer and sent with one `send(…, MSG_NOSIGNAL)`**; pipelined
//   responses produced in one loop turn leave in one write. With `TCP_NODELAY` this avoids the
//   Nagle/delayed-ACK 40 ms stall FlyingFox shows. SIGPIPE is also ignored process-wide.
// - Level-triggered epoll with explicit interest management: a connection stops reading while a response
//   is running on a worker or while more than 256 KiB of output waits for a slow reader (back-pressure).
// - Server-initiated closes (errors, `Connection: close`, timeouts, 503 when full) shut down the write side
//   and drain input for up to 2 s ("lingering close"), so unread input cannot turn the close into a TCP
//   reset that destroys the error response.
// - Shared state is guarded by `Locked<Value>` (an NSLock, i.e. a pthread mutex) rather than `Synchronization.Mutex`,
//   whose contended futex path ThreadSanitizer cannot see (it reported the inbox hand-over as a race).
// - On EMFILE the loop stops watching the listener for 100 ms instead of spinning; the soft
//   `RLIMIT_NOFILE` is raised to the hard limit at start.
//
// ## HTTP behaviour (RFC 9112 / 9110)
//
// Keep-alive by default (HTTP/1.0 only with `Connection: keep-alive`), `Connection: close` honoured,
// pipelining answered in order, `Content-Length` and chunked bodies (extensions ignored, trailers read and
// dropped), both at once → 400 and close, `Expect: 100-continue` → interim 100 (other expectations → 417),
// HEAD (headers of the GET, no body), lone-LF line endings accepted (§2.2), obs-fold rejected, exactly one
// `Host` for HTTP/1.1. Every response has `Date` and `Content-Length` (except 1xx/204, where RFC 9110 §8.6
// forbids it) and `X-Request-Id` (echoed when the client's is ≤ 128 chars of `[A-Za-z0-9._:-]`, else generated).
//
// | limit / timeout (ServerConfiguration) | default | when exceeded |
// | --- | --- | --- |
// | request line + headers `limits.maxHeaderBytes` | 16 KiB | 431 `headers_too_large`, close |
// | header count `limits.maxHeaderCount` | 100 | 431 `too_many_headers`, close |
// | request target `limits.maxURIBytes` | 8 KiB | 414 `uri_too_long`, close |
// | body `limits.maxBodyBytes` | 1 MiB | 413 `body_too_large`, close (checked before reading it) |
// | chunk extension `limits.maxChunkExtensionBytes` | 256 B | 400 `invalid_chunk`, close |
// | chunked framing beyond 2 × body `limits.maxChunkFramingBytes` | 64 KiB | 413 `body_too_large`, close |
// | `headerTimeout` (first byte → end of headers) | 10 s | 408 `request_timeout`, close |
// | `bodyIdleTimeout` (pause while a body arrives) | 10 s | 408, close |
// | `bodyTimeout` (end of headers → end of body) | 30 s | 408, close |
// | `keepAliveTimeout` (idle between requests) | 60 s | close |
// | `writeTimeout` (no progress writing) | 30 s | close |
// | `maxConnections` | 4096 | 503 `server_full`, close |
// | `drainTimeout` after SIGTERM/SIGINT | 10 s | remaining connections closed, exit 0 |
//
// API limits (`APILimits`): name 1–1000 code points after trimming, `k` 1–50 (default 5), batch ≤ 1000
// names and names × k ≤ 10,000 (≤ 1,000 with explain), batch answer ≤ 8 MiB (else 413), ≤ 10,000 keyword changes
// per request, keyword ≤ 100 code points. Keyword writes run on a worker of their own, never behind batches. POST bodies must be
// `application/json` (charset, if given, UTF-8) → else 415; POST without a length → 411. A field the endpoint does
// not define → 400 `unknown_field` (so a misspelt option is reported, not ignored).
//
// ## Measured (2-core machine shared with other builds; release build; wrk on the same cores)
//
// `bench/http.sh` (5 s per row, 1 s warm-up), side by side with the Hummingbird and FlyingFox peers
// (GET /healthz only), load average 2.9-4.3 during the run:
//
// | route | conns | kwsuggest req/s | p50 / p99 ms | Hummingbird req/s | ratio | server CPU us/req (kw / HB) |
// | --- | ---: | ---: | ---: | ---: | ---: | ---: |
// | /healthz | 1 | 35,102 | 0.024 / 2.5 | 10,772 | 3.26 | 14.2 / 70.0 |
// | /healthz | 32 | 67,357 | 0.369 / 5.7 | 32,722 | 2.06 | 12.3 / 36.1 |
// | /healthz | 128 | 47,876 | 2.39 / 7.3 | 20,574 | 2.33 | 12.6 / 49.7 |
//
// FlyingFox in the same run: 23 / 726 / 2,808 req/s (its 44 ms keep-alive stall).
// POST /v1/suggest with the LexicalEngine (bigram postings), next run (load average 3.8-5.4):
// 10,097 req/s at 1 connection, 20,284 req/s at 32 (p50 1.28 ms, p99 10.5 ms), 19,892 at 128;
// 39 us of server CPU per request. In-process (release, 200k iterations): parsing a 160-byte POST 4.2 us,
// routing + JSON decode + JSON encode with a fixed engine 5.7 us, serialising the response 0.9 us.
//
// Slow and idle clients (release build, Python client, 12 s): with 200 slowloris connections (one header
// byte per second) and 1000 idle keep-alive connections open, a normal client's POST /v1/suggest took
// p50 0.52 ms, p99 4.9 ms, max 8.0 ms; the server kept 5 threads and its fd count was 12 before and after.
// SIGTERM during `wrk -c32` on /v1/suggest: exit 0, 18,993 responses received = 18,993 requests logged.
// Mutation fuzzing (release, KWSUGGEST_FUZZ_ITERATIONS=1000000): 1M mutated requests through the parser,
// 1M mutated JSON documents, 250k mutated suggest/batch bodies through the API: no crash, only 200/400.
// ThreadSanitizer: `swift test --sanitize=thread` on the server and service tests reports nothing.
//
// Hardening (libFuzzer, slow/idle/vanishing clients, 60 s load with RSS, SIGTERM under load, kill -9 during keyword
// writes, the bad-input matrix, TSan, security checks): figures and rerun commands in RELIABILITY.md; scripts in
// fuzz/ and tools/hardening/.
