#!/usr/bin/env python3
"""Bad-input matrix on a raw socket against a running server: each case must get its documented status and a
JSON error ({"error": {"code": ...}}), and /healthz must still answer after each one.
Usage: bad_input.py PORT     (run_all.sh / bad_input.sh start a release server for it)
The same matrix runs in `swift test` as BadInputMatrixTests."""
import json, socket, sys

PORT = int(sys.argv[1])


def post(path, body, ctype="application/json"):
    if isinstance(body, str):
        body = body.encode()
    return (f"POST {path} HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: {ctype}\r\nContent-Length: {len(body)}\r\n\r\n").encode() + body


def get(target, headers="Host: t\r\n"):
    return f"GET {target} HTTP/1.1\r\n{headers}\r\n".encode()


CASES = [
    ("bad JSON", post("/v1/suggest", '{"name": "x"'), 400, "malformed_json"),
    ("JSON not an object", post("/v1/suggest", '["x"]'), 400, "malformed_json"),
    ("name is a number", post("/v1/suggest", '{"name": 5}'), 400, "invalid_name"),
    ("k is a string", post("/v1/suggest", '{"name": "x", "k": "5"}'), 400, "invalid_k"),
    ("k is 2.5", post("/v1/suggest", '{"name": "x", "k": 2.5}'), 400, "invalid_k"),
    ("k is 0", post("/v1/suggest", '{"name": "x", "k": 0}'), 400, "invalid_k"),
    ("k is 51", post("/v1/suggest", '{"name": "x", "k": 51}'), 400, "invalid_k"),
    ("k is 1e300", post("/v1/suggest", '{"name": "x", "k": 1e300}'), 400, "invalid_k"),
    ("GET k=-1", get("/v1/suggest?name=x&k=-1"), 400, "invalid_k"),
    ("explain is a string", post("/v1/suggest", '{"name": "x", "explain": "yes"}'), 400, "invalid_explain"),
    ("names is a string", post("/v1/suggest/batch", '{"names": "x"}'), 400, "invalid_names"),
    ("1001 names", post("/v1/suggest/batch", json.dumps({"names": ["x"] * 1001})), 400, None),
    ("add is a number", post("/v1/keywords", '{"add": 1}'), 400, "invalid_add"),
    ("invalid UTF-8 body", post("/v1/suggest", b'{"name": "\xff\xfe"}'), 400, "invalid_utf8"),
    ("overlong UTF-8 body", post("/v1/suggest", b'{"name": "\xc0\xaf"}'), 400, "invalid_utf8"),
    ("invalid UTF-8 query", get("/v1/suggest?name=%FF%FE"), 400, "invalid_utf8"),
    ("escaped NUL in name", post("/v1/suggest", '{"name": "a\\u0000b"}'), 400, "invalid_name"),
    ("raw NUL in JSON string", post("/v1/suggest", b'{"name": "a\x00b"}'), 400, "malformed_json"),
    ("NUL in query", get("/v1/suggest?name=a%00b"), 400, "invalid_name"),
    ("NUL in a header value", b"GET /healthz HTTP/1.1\r\nHost: t\r\nX-A: a\x00b\r\n\r\n", 400, "malformed_request"),
    ("10,000-character name", post("/v1/suggest", json.dumps({"name": "あ" * 10000}, ensure_ascii=False)), 400, "name_too_long"),
    ("empty name", post("/v1/suggest", '{"name": ""}'), 400, "empty_name"),
    ("blank name (U+3000)", post("/v1/suggest", '{"name": " \\u3000 "}'), 400, "empty_name"),
    ("missing name", post("/v1/suggest", '{"k": 3}'), 400, "missing_name"),
    ("unknown field", post("/v1/suggest", '{"name": "x", "explian": true}'), 400, "unknown_field"),
    ("unknown field in batch", post("/v1/suggest/batch", '{"names": ["x"], "n": 1}'), 400, "unknown_field"),
    ("duplicate Host", get("/healthz", "Host: a\r\nHost: b\r\n"), 400, "malformed_request"),
    ("conflicting Content-Length", b"POST /v1/suggest HTTP/1.1\r\nHost: t\r\nContent-Type: application/json\r\n"
     b"Content-Length: 12\r\nContent-Length: 13\r\n\r\n{\"name\":\"x\"}", 400, "invalid_content_length"),
    ("Content-Length and chunked", b"POST /v1/suggest HTTP/1.1\r\nHost: t\r\nContent-Length: 5\r\n"
     b"Transfer-Encoding: chunked\r\n\r\n0\r\n\r\n", 400, "conflicting_framing"),
    ("bad percent-encoding", get("/v1/suggest?name=%zz"), 400, "bad_percent_encoding"),
    ("truncated percent-encoding", get("/v1/suggest?name=a%E"), 400, "bad_percent_encoding"),
    ("huge chunk size", b"POST /v1/suggest HTTP/1.1\r\nHost: t\r\nContent-Type: application/json\r\n"
     b"Transfer-Encoding: chunked\r\n\r\nffffffffffffffffffffffff\r\n", 413, "body_too_large"),
    ("negative Content-Length", b"POST /v1/suggest HTTP/1.1\r\nHost: t\r\nContent-Type: application/json\r\n"
     b"Content-Length: -1\r\n\r\n", 400, "invalid_content_length"),
    ("huge Content-Length", b"POST /v1/suggest HTTP/1.1\r\nHost: t\r\nContent-Type: application/json\r\n"
     b"Content-Length: 99999999999999999999999\r\n\r\n", 413, "body_too_large"),
    ("2 MiB body", post("/v1/suggest", b'{"name": "' + b"a" * (2 << 20) + b'"}'), 413, "body_too_large"),
    ("form body to batch", post("/v1/suggest/batch", "names=x", "application/x-www-form-urlencoded"), 415, "unsupported_media_type"),
    ("POST without length", b"POST /v1/suggest HTTP/1.1\r\nHost: t\r\nContent-Type: application/json\r\n\r\n", 411, "length_required"),
    ("101 headers", get("/healthz", "Host: t\r\n" + "".join(f"X-{i}: v\r\n" for i in range(100))), 431, "too_many_headers"),
    ("33 KiB of headers", get("/healthz", "Host: t\r\nX-Big: " + "a" * 33 * 1024 + "\r\n"), 431, "headers_too_large"),
    ("17 KiB URI", get("/v1/suggest?name=" + "a" * 17 * 1024), 414, "uri_too_long"),
    ("HTTP/2.0", b"GET /healthz HTTP/2.0\r\nHost: t\r\n\r\n", 505, "http_version_not_supported"),
    ("binary garbage (TLS hello)", bytes([0x16, 3, 1, 2, 0, 1, 0, 1, 0xFC, 3, 3, 13, 10, 13, 10]), 400, "malformed_request"),
    ("path traversal", get("/../../etc/passwd"), 404, "not_found"),
    ("encoded path traversal", get("/%2e%2e/%2e%2e/etc/passwd"), 404, "not_found"),
    ("wrong method", b"DELETE /v1/suggest HTTP/1.1\r\nHost: t\r\n\r\n", 405, "method_not_allowed"),
    ("two Authorization headers", get("/healthz", "Host: t\r\nAuthorization: Bearer a\r\nAuthorization: Bearer b\r\n"),
     400, "malformed_request"),
    ("chunked twice", b"POST /v1/suggest HTTP/1.1\r\nHost: t\r\nTransfer-Encoding: chunked\r\n"
     b"Transfer-Encoding: chunked\r\n\r\n0\r\n\r\n", 400, "malformed_request"),
    ("Host: a b", get("/healthz", "Host: a b\r\n"), 400, "malformed_request"),
    ("empty Host", get("/healthz", "Host:\r\n"), 400, "malformed_request"),
    ("bare CR in a chunk extension", b"POST /v1/suggest HTTP/1.1\r\nHost: t\r\nContent-Type: application/json\r\n"
     b"Transfer-Encoding: chunked\r\n\r\n1;a\rb\r\nx\r\n0\r\n\r\n", 400, "invalid_chunk"),
    ("NUL in a chunk extension", b"POST /v1/suggest HTTP/1.1\r\nHost: t\r\nContent-Type: application/json\r\n"
     b"Transfer-Encoding: chunked\r\n\r\n1;a\x00b\r\nx\r\n0\r\n\r\n", 400, "invalid_chunk"),
    ("trailer without a colon", b"POST /v1/suggest HTTP/1.1\r\nHost: t\r\nContent-Type: application/json\r\n"
     b"Transfer-Encoding: chunked\r\n\r\n0\r\nno colon\r\n\r\n", 400, "malformed_request"),
    ("1 KB chunk extension", b"POST /v1/suggest HTTP/1.1\r\nHost: t\r\nContent-Type: application/json\r\n"
     b"Transfer-Encoding: chunked\r\n\r\n1;" + b"e" * 1000 + b"\r\nx\r\n0\r\n\r\n", 400, "invalid_chunk"),
    ("name of 1 combining cluster", post("/v1/suggest", json.dumps({"name": "a" + "\u0301" * 1000})), 400, "name_too_long"),
    ("GET unknown parameter", get("/v1/suggest?name=x&expalin=1"), 400, "unknown_field"),
    ("GET repeated parameter", get("/v1/suggest?name=x&k=3&k=4"), 400, "duplicate_field"),
    ("JSON repeated key", post("/v1/suggest", '{"name": "x", "k": 3, "k": 4}'), 400, "duplicate_field"),
    ("GET k=5.0", get("/v1/suggest?name=x&k=5.0"), 200, None),
    ("GET cache buster", get("/v1/suggest?name=x&_=1712345"), 200, None),
    ("lone-LF client", b"GET /healthz HTTP/1.1\nHost: t\n\n", 200, None),
    ("lone-LF POST", b"POST /v1/suggest HTTP/1.1\nHost: t\nContent-Type: application/json\nContent-Length: 12\n\n{\"name\":\"x\"}", 200, None),
]


def exchange(data):
    """Sends one request on a new connection; returns (status, headers, body) of the first response."""
    s = socket.create_connection(("127.0.0.1", PORT), timeout=5)
    try:
        try:
            s.sendall(data)
        except OSError:
            pass  # the server may answer and close before reading everything (413, 431)
        buf = b""
        while b"\r\n\r\n" not in buf:
            chunk = s.recv(65536)
            if not chunk:
                raise RuntimeError("closed without a response")
            buf += chunk
        head, _, body = buf.partition(b"\r\n\r\n")
        lines = head.decode("latin-1").split("\r\n")
        status = int(lines[0].split()[1])
        headers = {k.strip().lower(): v.strip() for k, v in (l.split(":", 1) for l in lines[1:])}
        length = int(headers.get("content-length", "0"))
        while len(body) < length:
            chunk = s.recv(65536)
            if not chunk:
                break
            body += chunk
        return status, headers, body[:length]
    finally:
        s.close()


failures = 0
for name, data, want_status, want_code in CASES:
    try:
        status, headers, body = exchange(data)
        code = None
        if status >= 400:
            code = json.loads(body)["error"]["code"]
        ok = status == want_status and (want_code is None or code == want_code) \
            and headers.get("content-type") == "application/json; charset=utf-8"
        detail = f"{status} {code or ''}".strip()
    except Exception as error:  # noqa: BLE001 - report and count every failure
        ok, detail = False, f"error: {error}"
    alive = exchange(get("/healthz"))[0] == 200
    failures += (not ok) + (not alive)
    print(f"{'ok  ' if ok and alive else 'FAIL'} {name:32} -> {detail:40} server up: {alive}")
print(f"{len(CASES)} cases, {failures} failures")
sys.exit(1 if failures else 0)
