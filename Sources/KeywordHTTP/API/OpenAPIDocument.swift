// The OpenAPI 3.1 description served at GET /openapi.json. Kept by hand next to the handlers it describes; every
// number in it comes from the limits the server enforces. A test checks that it is valid JSON and lists every
// route the router serves.
import APICore
import HTTPCore
import QueueAPI
import StoreInterface
import StrictJSON

enum OpenAPIDocument {
    /// The sentence on a route's value cap (see `ValueCaps`).
    private static func valueCap(_ cap: Int) -> String {
        "A JSON body of more than \(cap) values (objects, arrays, strings, numbers, literals; twice what the schema allows, and a few more) is 400 too_many_values, refused as soon as the parser reaches the first value beyond."
    }

    /// The error codes a client can see, from the one catalogue (`ErrorCode.all`), as a JSON array.
    private static var errorCodes: String {
        var json = JSONWriter(capacity: 1024)
        json.array { json in
            for code in ErrorCode.all.map(\.rawValue).sorted() { json.string(code) }
        }
        return String(decoding: json.bytes, as: UTF8.self)
    }

    /// The members of the Keyword pattern's two character classes: the non-ASCII code points a keyword may hold
    /// (`KeywordRules.role(of:)` is not `.refused`) and, of those, the ones that show nothing (`.invisible`).
    /// Computed once per process. They are positive lists of what is allowed, not negated lists of what is
    /// refused: a regex-driven generator (schemathesis) enumerates every code point of a class's ranges, and the
    /// refused ones (unassigned planes, private use) far outnumber the allowed.
    private static let keywordClasses: (allowed: String, invisible: String) = {
        var allowed = CharacterRanges()
        var invisible = CharacterRanges()
        for value in UInt32(0x80)...0x10FFFF {
            guard let scalar = Unicode.Scalar(value) else { continue }
            let role = KeywordRules.role(of: scalar)
            allowed.add(scalar, role != .refused)
            invisible.add(scalar, role == .invisible)
        }
        return (allowed.members, invisible.members)
    }()

    private static let busy = "While large bodies being received fill the server's budget, a large one is 503 server_busy with Retry-After."

    /// The document for `limits`: every bound it states is the one the server enforces with them.
    static func json(_ limits: APILimits) -> String {
        let caps = BodyCaps(limits)
        let values = ValueCaps(limits)
        let label = FeedbackDecoding.maxLabelCharacters
        // The longest GET /v1/suggest target the schema allows, every code point percent-encoded.
        let longestQuery = "/v1/suggest?name=".utf8.count + 12 * limits.maxNameCharacters + 9 * limits.maxPaddingCharacters
            + "&k=".count + 3 * String(limits.maxK).count + "&explain=".count + 3 * "false".count
        // Stating names × k exactly takes one alternative per distinct largest number of names, with and
        // without explain.
        func alternatives(_ most: Int) -> Int { Set((1...limits.maxK).map { min(limits.maxBatchNames, most / $0) }).count }
        let productAlternatives = alternatives(limits.maxBatchSuggestions) + alternatives(limits.maxBatchExplainedSuggestions)
        return #"""
{
  "openapi": "3.1.0",
  "info": {
    "title": "kwsuggest",
    "version": "1.0.0",
    "description": "Suggests ingredient keywords for grocery product names. Errors are always {\"error\": {\"code\": \"snake_case\", \"message\": \"...\"}}."
  },
  "paths": {
    "/v1/suggest": {
      "post": {
        "summary": "Top-k keywords for one product name",
        "description": "JSON, or a form body (curl -d 'name=...&k=3' sends application/x-www-form-urlencoded, Annif's convention). Any other Content-Type is 415 with a message naming the header to send. A body over \#(caps.suggest) bytes is 413 body_too_large (before it is read when Content-Length says so); the largest body this schema allows, with every code point as a JSON escape, is \#(caps.suggestBound) bytes. \#(valueCap(values.suggest)) \#(busy)",
        "requestBody": {"required": true, "content": {
          "application/json": {"schema": {"$ref": "#/components/schemas/SuggestRequest"}},
          "application/x-www-form-urlencoded": {"schema": {"$ref": "#/components/schemas/SuggestForm"}}
        }},
        "responses": {
          "200": {"description": "Suggestions", "content": {"application/json": {"schema": {"$ref": "#/components/schemas/SuggestResponse"}}}},
          "400": {"$ref": "#/components/responses/Error"}, "408": {"$ref": "#/components/responses/Error"},
          "411": {"$ref": "#/components/responses/Error"}, "413": {"$ref": "#/components/responses/Error"},
          "414": {"$ref": "#/components/responses/Error"}, "415": {"$ref": "#/components/responses/Error"},
          "431": {"$ref": "#/components/responses/Error"}, "500": {"$ref": "#/components/responses/Error"},
          "503": {"$ref": "#/components/responses/Error"}
        }
      },
      "get": {
        "summary": "Top-k keywords for one product name (query form, for curl)",
        "description": "The rules of the JSON form: another parameter name is 400 unknown_field (names starting with _ are ignored, for cache busters), a repeated one is 400 duplicate_field, and k may be any integral JSON number such as 5.0.",
        "parameters": [
          {"name": "name", "in": "query", "required": true, "schema": {"$ref": "#/components/schemas/Name"}},
          {"name": "k", "in": "query", "schema": {"type": "integer", "minimum": 1, "maximum": \#(limits.maxK), "default": \#(limits.defaultK)}},
          {"name": "explain", "in": "query", "schema": {"$ref": "#/components/schemas/TextFlag"}}
        ],
        "responses": {
          "200": {"description": "Suggestions", "content": {"application/json": {"schema": {"$ref": "#/components/schemas/SuggestResponse"}}}},
          "400": {"$ref": "#/components/responses/Error"},
          "414": {"description": "The request target is longer than the server's limit (16 KiB by default, above the \#(longestQuery) bytes the longest query this schema allows takes with every code point percent-encoded; RFC 9112 §3)", "content": {"application/json": {"schema": {"$ref": "#/components/schemas/Error"}}}},
          "431": {"$ref": "#/components/responses/Error"}, "500": {"$ref": "#/components/responses/Error"},
          "503": {"$ref": "#/components/responses/Error"}
        }
      }
    },
    "/v1/suggest/batch": {
      "post": {
        "summary": "Top-k keywords for up to \#(limits.maxBatchNames) names",
        "description": "A body over \#(caps.batch) bytes is 413 body_too_large (before it is read when Content-Length says so): the largest body the schema allows, every code point written as a JSON escape (astral ones as surrogate pairs), with \#(BodyCaps.whitespaceBytes) bytes of white space between tokens. names × k beyond the bound (\#(limits.maxBatchSuggestions), or \#(limits.maxBatchExplainedSuggestions) with explain) is 400 batch_too_large (see BatchRequest). \#(valueCap(values.batch)) \#(busy)",
        "requestBody": {"required": true, "content": {"application/json": {"schema": {"$ref": "#/components/schemas/BatchRequest"}}}},
        "responses": {
          "200": {"description": "One result per name, in order", "content": {"application/json": {"schema": {"$ref": "#/components/schemas/BatchResponse"}}}},
          "400": {"$ref": "#/components/responses/Error"}, "408": {"$ref": "#/components/responses/Error"},
          "411": {"$ref": "#/components/responses/Error"}, "413": {"$ref": "#/components/responses/Error"},
          "415": {"$ref": "#/components/responses/Error"}, "431": {"$ref": "#/components/responses/Error"},
          "500": {"$ref": "#/components/responses/Error"}, "503": {"$ref": "#/components/responses/Error"}
        }
      }
    },
    "/v1/keywords": {
      "get": {
        "summary": "One page of the current keyword list; the list version is also the ETag",
        "description": "Always one page, never the whole list at once: limit keywords (default \#(min(limits.defaultKeywordPage, limits.maxKeywordPage)), at most \#(limits.maxKeywordPage)) from offset, of the keywords that start with prefix (all of them without it), in list order. count is the number of keywords in the whole list, whatever the page and the prefix; matched is the number that start with prefix. Page with offset until offset + limit is at least matched. Other parameter names are 400 unknown_field (names starting with _ are ignored).",
        "parameters": [
          {"name": "offset", "in": "query", "schema": {"type": "integer", "minimum": 0, "maximum": 2147483647, "default": 0}},
          {"name": "limit", "in": "query", "schema": {"type": "integer", "minimum": 1, "maximum": \#(limits.maxKeywordPage), "default": \#(min(limits.defaultKeywordPage, limits.maxKeywordPage))}},
          {"name": "prefix", "in": "query", "schema": {"type": "string", "maxLength": \#(limits.maxKeywordCharacters + limits.maxPaddingCharacters)}, "description": "No keyword is longer; a longer prefix is 400 invalid_page"}
        ],
        "responses": {
          "200": {"description": "One page of keywords", "headers": {"ETag": {"$ref": "#/components/headers/ETag"}}, "content": {"application/json": {"schema": {"$ref": "#/components/schemas/KeywordPage"}}}},
          "400": {"$ref": "#/components/responses/Error"}, "503": {"$ref": "#/components/responses/Error"}
        }
      },
      "post": {
        "summary": "Add and remove keywords; durable in the store before the answer, served by this replica at once",
        "description": "A body over \#(caps.keywords) bytes is 413 body_too_large (before it is read when Content-Length says so), the largest the schema allows. \#(valueCap(values.keywords)) \#(busy)",
        "security": [{}, {"bearer": []}],
        "parameters": [
          {"name": "If-Match", "in": "header", "description": "The list version (ETag of GET /v1/keywords) the change is made against, quoted or bare; a weak W/ tag is 400 invalid_if_match (If-Match compares strongly); a stale one gets 412; * or an empty value means no check; a list of several tags is 400 invalid_if_match", "schema": {"type": "string", "pattern": "^[ \\t]*(\\*|\"[^\",]+\"|(?!W/)[^\",]+)?[ \\t]*$"}}
        ],
        "requestBody": {"required": true, "content": {"application/json": {"schema": {"$ref": "#/components/schemas/KeywordChange"}}}},
        "responses": {
          "200": {"description": "The new list", "headers": {"ETag": {"$ref": "#/components/headers/ETag"}}, "content": {"application/json": {"schema": {"$ref": "#/components/schemas/KeywordList"}}}},
          "400": {"$ref": "#/components/responses/Error"}, "401": {"$ref": "#/components/responses/Error"},
          "403": {"$ref": "#/components/responses/HostNotAllowed"},
          "408": {"$ref": "#/components/responses/Error"}, "411": {"$ref": "#/components/responses/Error"},
          "412": {"description": "If-Match named a version that is no longer current (code version_mismatch); the ETag header holds the current one", "headers": {"ETag": {"$ref": "#/components/headers/ETag"}}, "content": {"application/json": {"schema": {"$ref": "#/components/schemas/Error"}}}},
          "413": {"$ref": "#/components/responses/Error"}, "415": {"$ref": "#/components/responses/Error"},
          "431": {"$ref": "#/components/responses/Error"}, "500": {"$ref": "#/components/responses/Error"},
          "503": {"description": "The model is loading (not_ready), the store cannot be reached (store_unavailable), or large bodies fill the server's budget (server_busy, with Retry-After); nothing was changed", "content": {"application/json": {"schema": {"$ref": "#/components/schemas/Error"}}}}
        }
      }
    },
    "/v1/feedback": {
      "post": {
        "summary": "Record annotator decisions: one item, or {\"items\": [...]} of up to \#(limits.maxFeedbackItems) (stored all or none)",
        "description": "A body over \#(caps.feedback) bytes is 413 body_too_large (before it is read when Content-Length says so), the largest the schema allows. \#(valueCap(values.feedback)) \#(busy)",
        "security": [{}, {"bearer": []}],
        "requestBody": {"required": true, "content": {"application/json": {"schema": {"oneOf": [{"$ref": "#/components/schemas/FeedbackItem"}, {"$ref": "#/components/schemas/FeedbackBatch"}]}}}},
        "responses": {
          "201": {"description": "Stored (or found stored under the same client id with the same decision)", "content": {"application/json": {"schema": {"oneOf": [{"$ref": "#/components/schemas/FeedbackCreated"}, {"$ref": "#/components/schemas/FeedbackBatchCreated"}]}}}},
          "400": {"$ref": "#/components/responses/Error"}, "401": {"$ref": "#/components/responses/Error"},
          "403": {"$ref": "#/components/responses/HostNotAllowed"},
          "409": {"description": "An item's client id was stored before with a different decision (code id_conflict; the message names the id and the earlier record); nothing of the request was stored", "content": {"application/json": {"schema": {"$ref": "#/components/schemas/Error"}}}},
          "413": {"$ref": "#/components/responses/Error"}, "415": {"$ref": "#/components/responses/Error"},
          "500": {"$ref": "#/components/responses/Error"}, "503": {"$ref": "#/components/responses/Error"}
        }
      }
    },
    "/v1/feedback/export": {
      "get": {
        "summary": "Stored feedback as JSON lines, oldest first: training data (accepts and corrections) by default, every record with format=raw",
        "description": "Streamed (chunked transfer coding) from the store page by page, so any number of records can be exported. Without limit, every record stored when the request arrives; with limit, at most that many. Feedback-Last-Id names the last record the answer covers, so since=Feedback-Last-Id continues exactly where it ended. If the store fails midway the connection closes before the last chunk, so a cut-short export never looks complete. Each export holds about 256 KiB of lines at a time and reads the next page only once the client has taken them; at most \#(limits.maxConcurrentExports) exports stream at once, and one more is 503 server_busy with Retry-After.",
        "security": [{}, {"bearer": []}],
        "parameters": [
          {"name": "since", "in": "query", "description": "Only records with a greater id (the Feedback-Last-Id of the previous export)", "schema": {"type": "integer", "minimum": 0, "maximum": 9007199254740992, "default": 0}},
          {"name": "limit", "in": "query", "description": "At most this many records (absent: all of them); continue with since = Feedback-Last-Id", "schema": {"type": "integer", "minimum": 1, "maximum": 9007199254740992}},
          {"name": "format", "in": "query", "schema": {"enum": ["training", "raw"], "default": "training"}}
        ],
        "responses": {
          "200": {
            "description": "One JSON object per line: TrainingLine objects, or FeedbackRecord objects with format=raw",
            "headers": {"Feedback-Last-Id": {"description": "Id of the last record the answer covers, fixed before it streams (since, when none)", "schema": {"type": "string", "pattern": "^[0-9]+$"}}},
            "content": {"application/x-ndjson": {"schema": {"type": "string"}}}
          },
          "400": {"$ref": "#/components/responses/Error"}, "401": {"$ref": "#/components/responses/Error"},
          "403": {"$ref": "#/components/responses/HostNotAllowed"},
          "500": {"$ref": "#/components/responses/Error"}, "503": {"$ref": "#/components/responses/Error"}
        }
      }
    },
\#(QueueOpenAPI.paths)
    "/healthz": {"get": {"summary": "Liveness", "responses": {"200": {"description": "Alive", "content": {"application/json": {"schema": {"type": "object", "properties": {"status": {"const": "ok"}}, "required": ["status"]}}}}}}},
    "/readyz": {"get": {"summary": "Readiness: 200 once the model is loaded, 503 before", "responses": {"200": {"description": "Ready", "content": {"application/json": {"schema": {"type": "object", "properties": {"status": {"const": "ready"}, "model": {"type": "string"}, "store": {"enum": ["ok", "unavailable", "write_failed"], "description": "unavailable while the database cannot be reached: suggestions still work, changes answer 503; write_failed while the last write to a reachable store failed (a full disk, a read-only mount), until one succeeds"}, "store_kind": {"enum": ["file", "postgres"]}, "last_write_error": {"type": "string", "description": "What the last failed write was, and the log event with its detail (present with write_failed)"}, "model_source": {"enum": ["registry", "fallback"], "description": "registry: the live version of the store's model registry; fallback: the --model directory"}, "model_load_error": {"type": "object", "description": "the newest wanted version failed to load; the model above keeps serving", "properties": {"version": {"type": "string"}, "error": {"type": "string"}}}, "registry": {"type": "object", "description": "present while the store's model registry cannot be read (a damaged catalog, an unreachable database): the model above may not be the live version", "required": ["error"], "properties": {"error": {"type": "string"}}}, "shadow": {"type": "object", "description": "a candidate scoring a share of suggest requests beside the live model (model, fraction), and error while the shadow version named last failed to load", "properties": {"model": {"type": "string"}, "fraction": {"type": "number"}, "calibration": {"type": "object", "description": "both models on the accepts and corrections stored since this process started or the shadow version changed: what each would auto-accept at the serving target, how often that held the annotator's keyword (precision, null before any), the share of decisions auto-accepted (coverage, null before any) and the expected calibration error of the top confidence over ten bins", "properties": {"decisions": {"type": "integer"}, "live": {"$ref": "#/components/schemas/DecisionCalibration"}, "shadow": {"$ref": "#/components/schemas/DecisionCalibration"}}}, "error": {"type": "object", "properties": {"version": {"type": "string"}, "error": {"type": "string"}}}}}}}}}}, "503": {"$ref": "#/components/responses/Error"}}}},
    "/metrics": {"get": {"summary": "Prometheus metrics", "responses": {"200": {"description": "Text exposition format 0.0.4", "content": {"text/plain": {"schema": {"type": "string"}}}}}}},
    "/openapi.json": {"get": {"summary": "This document", "responses": {"200": {"description": "OpenAPI 3.1", "content": {"application/json": {"schema": {"type": "object"}}}}}}},
    "/": {"get": {"summary": "The annotation workbench (HTML)", "responses": {"200": {"description": "HTML", "content": {"text/html": {"schema": {"type": "string"}}}}}}},
    "/workbench.js": {"get": {"summary": "The workbench's script", "responses": {"200": {"description": "JavaScript", "content": {"text/javascript": {"schema": {"type": "string"}}}}}}},
    "/queue.js": {"get": {"summary": "The workbench's views and team-queue script", "responses": {"200": {"description": "JavaScript", "content": {"text/javascript": {"schema": {"type": "string"}}}}}}},
    "/common.js": {"get": {"summary": "The module of helpers both workbench scripts import", "responses": {"200": {"description": "JavaScript", "content": {"text/javascript": {"schema": {"type": "string"}}}}}}},
    "/workbench.css": {"get": {"summary": "The workbench's styles", "responses": {"200": {"description": "CSS", "content": {"text/css": {"schema": {"type": "string"}}}}}}}
  },
  "components": {
    "securitySchemes": {"bearer": {"type": "http", "scheme": "bearer", "description": "Required for POST /v1/keywords, POST /v1/feedback, GET /v1/feedback/export and the queue and labels routes when KWSUGGEST_ADMIN_TOKEN is set"}},
    "headers": {"ETag": {"description": "The keyword list version, quoted", "schema": {"type": "string"}}},
    "responses": {
      "Error": {"description": "Error", "content": {"application/json": {"schema": {"$ref": "#/components/schemas/Error"}}}},
      "HostNotAllowed": {"description": "Writes are open (no admin token) and the Host field is not localhost, 127.0.0.1, [::1] (with any port) or a name given with serve --allowed-host (code host_not_allowed): a defence against DNS rebinding. With a token set this never happens.", "content": {"application/json": {"schema": {"$ref": "#/components/schemas/Error"}}}}
    },
    "schemas": {
\#(QueueOpenAPI.schemas)
      "DecisionCalibration": {"type": "object", "required": ["auto_accepted", "precision", "coverage", "ece"], "properties": {"auto_accepted": {"type": "integer", "minimum": 0}, "precision": {"type": ["number", "null"]}, "coverage": {"type": ["number", "null"]}, "ece": {"type": ["number", "null"]}}},
      "Name": {
        "type": "string", "minLength": 1, "maxLength": \#(limits.maxNameCharacters + limits.maxPaddingCharacters), "pattern": "^[\\t\\n\\x0b\\x0c\\r \\x85\\xa0\\u1680\\u2000-\\u200a\\u2028\\u2029\\u202f\\u205f\\u3000]*[^\\t\\n\\x0b\\x0c\\r \\x85\\xa0\\u1680\\u2000-\\u200a\\u2028\\u2029\\u202f\\u205f\\u3000\\x00]([^\\x00]{0,\#(limits.maxNameCharacters - 2)}[^\\t\\n\\x0b\\x0c\\r \\x85\\xa0\\u1680\\u2000-\\u200a\\u2028\\u2029\\u202f\\u205f\\u3000\\x00])?[\\t\\n\\x0b\\x0c\\r \\x85\\xa0\\u1680\\u2000-\\u200a\\u2028\\u2029\\u202f\\u205f\\u3000]*$",
        "description": "A product name: 1-\#(limits.maxNameCharacters) Unicode code points after trimming white space (Unicode White_Space), no NUL (rejected on purpose: C tools and log lines cut strings there). The pattern states exactly that; white space around the name does not count towards the \#(limits.maxNameCharacters); with it the name is at most \#(limits.maxNameCharacters + limits.maxPaddingCharacters) code points (maxLength), so the schema bounds every body."
      },
      "Keyword": {
        "type": "string", "minLength": 1, "maxLength": \#(limits.maxKeywordCharacters + limits.maxPaddingCharacters), "pattern": "^(?![\\t\\n\\x0b\\x0c\\r \\x85\\xa0\\u1680\\u2000-\\u200a\\u2028\\u2029\\u202f\\u205f\\u3000\#(keywordClasses.invisible)]*$)[\\t\\n\\x0b\\x0c\\r \\x85\\xa0\\u1680\\u2000-\\u200a\\u2028\\u2029\\u202f\\u205f\\u3000]*[\\x20-\\x7e\#(keywordClasses.allowed)]{1,\#(limits.maxKeywordCharacters)}[\\t\\n\\x0b\\x0c\\r \\x85\\xa0\\u1680\\u2000-\\u200a\\u2028\\u2029\\u202f\\u205f\\u3000]*$",
        "description": "1-\#(limits.maxKeywordCharacters) Unicode code points after trimming white space, both as sent and once folded to NFKC as stored (the pattern counts them as sent; a few compatibility characters such as ㍿ fold to several, so a keyword of many can pass the pattern and still be refused), no control characters inside, none of the format, private-use, unassigned or noncharacter code points the server refuses, and at least one code point that shows something once folded (not only white space, combining marks or spacing accents such as ゛); the pattern lists the code points allowed and those that show nothing; with the white space around it at most \#(limits.maxKeywordCharacters + limits.maxPaddingCharacters) (maxLength)"
      },
      "QueueKey": {
        "type": "string", "minLength": 1, "maxLength": \#(label), "pattern": "^(?![\\t\\n\\x0b\\x0c\\r \\x85\\xa0\\u1680\\u2000-\\u200a\\u2028\\u2029\\u202f\\u205f\\u3000\#(keywordClasses.invisible)]*$)[\\t\\n\\x0b\\x0c\\r \\x85\\xa0\\u1680\\u2000-\\u200a\\u2028\\u2029\\u202f\\u205f\\u3000]*[\\x20-\\x7e\#(keywordClasses.allowed)]{1,\#(label)}[\\t\\n\\x0b\\x0c\\r \\x85\\xa0\\u1680\\u2000-\\u200a\\u2028\\u2029\\u202f\\u205f\\u3000]*$",
        "description": "An annotation-queue item id or annotator name, by the keyword character rules: 1-\#(label) Unicode code points as sent, trimmed of white space and folded to NFKC as stored (so ｂｏｂ and ' bob' are bob), no control, format, line or paragraph separator, private-use or unassigned code points, and at least one that shows something; spaces inside are kept"
      },
      "TextFlag": {
        "type": "string", "pattern": "^([Tt][Rr][Uu][Ee]|[Ff][Aa][Ll][Ss][Ee]|[Yy][Ee][Ss]|[Nn][Oo]|1|0|)$", "default": "false",
        "description": "true, 1, yes or an empty value mean true; false, 0 and no mean false (any letter case)"
      },
      "SuggestRequest": {
        "type": "object", "required": ["name"], "additionalProperties": false,
        "properties": {
          "name": {"$ref": "#/components/schemas/Name"},
          "k": {"type": ["integer", "null"], "minimum": 1, "maximum": \#(limits.maxK), "default": \#(limits.defaultK), "description": "null means the default, \#(limits.defaultK)"},
          "explain": {"type": ["boolean", "null"], "default": false, "description": "null means false (kept for clients that send it)"}
        }
      },
      "SuggestForm": {
        "type": "object", "required": ["name"], "additionalProperties": false,
        "properties": {
          "name": {"$ref": "#/components/schemas/Name"},
          "k": {"type": "integer", "minimum": 1, "maximum": \#(limits.maxK), "default": \#(limits.defaultK)},
          "explain": {"$ref": "#/components/schemas/TextFlag"}
        }
      },
      "Suggestion": {
        "type": "object", "required": ["keyword", "score", "source"],
        "properties": {
          "keyword": {"type": "string"},
          "score": {"type": "number", "description": "Higher is better, in answer order; a remembered keyword scores the model's best score plus its vote score"},
          "confidence": {"type": "number", "minimum": 0, "maximum": 1, "description": "The calibrated probability that the keyword is acceptable for the name; absent when the model has no calibration (calibration.json). For source memory, how well the decisions support it: each annotator taken as right with probability 0.95 (one annotator 0.95, two who agree 0.9972)"},
          "source": {"type": "string", "enum": ["model", "memory"], "description": "memory: annotators decided this keyword for a name with the same name key (pack sizes, multipliers, bracketed decorations and spacing aside); such keywords come first"},
          "remembered": {"type": "object", "required": ["name", "annotators"], "properties": {"name": {"type": "string", "description": "The decided name"}, "annotators": {"type": "integer", "minimum": 1, "description": "How many annotators decided for the keyword"}}, "description": "Only with explain, for source memory"},
          "weights": {"type": "array", "items": {"type": "object", "properties": {"token": {"type": "string"}, "weight": {"type": "number"}}}, "description": "Only with explain"}
        }
      },
      "AutoAccept": {"type": "boolean", "description": "True when the top suggestion's confidence clears the model's threshold for the configured top-1 precision (serve --auto-accept-precision, default 0.98) and, when the model gave it, it is the head of the name (no keyword written after it, and no describing word such as 味, 用 or 入り right after it, shows it to be a flavour, an ingredient or a use, and no variety or brand name elsewhere in the name spells another kind; a remembered decision needs no such check); always false without calibration"},
      "NoSuggestionReason": {"type": "string", "enum": ["no_content_tokens", "only_place_names"], "description": "Present exactly when suggestions is empty: no_content_tokens means nothing of the name is left after normalisation (送料無料, 1kg, ★★★, an emoji); only_place_names means the name says only where the product comes from (淡路島産, 産地：新潟, 長崎県) and none of the best keywords is written in it"},
      "SuggestResponse": {
        "type": "object", "required": ["name", "suggestions", "auto_accept", "model"],
        "properties": {
          "name": {"type": "string"},
          "tokens": {"type": "array", "items": {"type": "string"}, "description": "Only with explain"},
          "suggestions": {"type": "array", "items": {"$ref": "#/components/schemas/Suggestion"}},
          "auto_accept": {"$ref": "#/components/schemas/AutoAccept"},
          "reason": {"$ref": "#/components/schemas/NoSuggestionReason"},
          "model": {"type": "string"}
        }
      },
      "BatchRequest": {
        "type": "object", "required": ["names"], "additionalProperties": false,
        "description": "names × k is at most \#(limits.maxBatchSuggestions), or \#(limits.maxBatchExplainedSuggestions) with explain (k absent or null counts as \#(limits.defaultK)); more is 400 batch_too_large. maxItems and k's maximum do not imply it (\#(limits.maxBatchNames) × \#(limits.maxK)), and JSON Schema cannot state a product: stated exactly it is one alternative per distinct largest number of names (\#(productAlternatives) of them), more than test generators such as schemathesis can work with, so it stays here. An answer over \#(limits.maxBatchResponseBytes / (1024 * 1024)) MiB is 413 response_too_large.",
        "properties": {
          "names": {"type": "array", "maxItems": \#(limits.maxBatchNames), "items": {"$ref": "#/components/schemas/Name"}},
          "k": {"type": ["integer", "null"], "minimum": 1, "maximum": \#(limits.maxK), "default": \#(limits.defaultK), "description": "null means the default, \#(limits.defaultK)"},
          "explain": {"type": ["boolean", "null"], "default": false, "description": "null means false"}
        }
      },
      "BatchResponse": {
        "type": "object", "required": ["results"],
        "properties": {
          "results": {"type": "array", "items": {"type": "object", "required": ["name", "suggestions", "auto_accept"], "properties": {"name": {"type": "string"}, "tokens": {"type": "array", "items": {"type": "string"}}, "suggestions": {"type": "array", "items": {"$ref": "#/components/schemas/Suggestion"}}, "auto_accept": {"$ref": "#/components/schemas/AutoAccept"}, "reason": {"$ref": "#/components/schemas/NoSuggestionReason"}}}},
          "model": {"type": "string"}
        }
      },
      "KeywordList": {
        "type": "object", "required": ["keywords", "count", "version"],
        "properties": {"keywords": {"type": "array", "items": {"type": "string"}}, "count": {"type": "integer", "description": "Keywords in the whole list (at most \#(limits.maxKeywords))"}, "version": {"type": "string"}}
      },
      "KeywordPage": {
        "type": "object", "required": ["keywords", "count", "version", "matched", "offset", "limit"],
        "properties": {"keywords": {"type": "array", "maxItems": \#(limits.maxKeywordPage), "items": {"type": "string"}, "description": "At most limit keywords, in list order"}, "count": {"type": "integer", "description": "Keywords in the whole list (at most \#(limits.maxKeywords)), not in this page"}, "version": {"type": "string"},
                       "matched": {"type": "integer", "description": "Keywords that start with prefix (count without one)"}, "offset": {"type": "integer"}, "limit": {"type": "integer"}}
      },
      "KeywordChange": {
        "type": "object", "additionalProperties": false,
        "description": "A change with nothing to add or remove writes nothing and answers the current list; at most \#(limits.maxKeywordChanges) in add and remove together (400 too_many_keywords); the list holds at most \#(limits.maxKeywords) keywords (400 keyword_list_full); each 1-\#(limits.maxKeywordCharacters) Unicode code points after trimming, no control characters. null is the same as an empty list.",
        "properties": {
          "add": {"type": ["array", "null"], "maxItems": \#(limits.maxKeywordChanges), "items": {"$ref": "#/components/schemas/Keyword"}},
          "remove": {"type": ["array", "null"], "maxItems": \#(limits.maxKeywordChanges), "items": {"$ref": "#/components/schemas/Keyword"}},
          "actor": {"type": ["string", "null"], "minLength": 1, "maxLength": \#(label), "pattern": "^[^\\x00-\\x1f\\x7f-\\x9f]*$", "description": "Who makes the change, recorded with it in the PostgreSQL store's change log (the file store keeps no log)"}
        }
      },
      "FeedbackItem": {
        "type": "object", "required": ["name", "keyword", "action"], "additionalProperties": false,
        "properties": {
          "id": {"type": ["string", "null"], "minLength": 1, "maxLength": \#(label), "pattern": "^[^\\x00-\\x1f\\x7f-\\x9f]*$", "not": {"type": "string", "pattern": "^queue:"}, "description": "Client-chosen, 1-\#(label) code points without control characters, compared in Unicode NFC (stored so). Ids starting with queue: are the annotation queue's and are refused with 400 invalid_id (an import keeps them). A second item with the same id and the same decision (name, keyword, action, shown, model, annotator) is a retry: not stored again, it gets the first one's id. The same id with a different decision is refused with 409 id_conflict, whichever annotator sends it: ids are global, not per annotator"},
          "name": {"$ref": "#/components/schemas/Name"},
          "keyword": {"$ref": "#/components/schemas/Keyword"},
          "action": {"enum": ["accept", "correct", "reject"]},
          "shown": {"type": ["array", "null"], "maxItems": \#(limits.maxK), "items": {"$ref": "#/components/schemas/Keyword"}, "description": "The keywords shown, best first"},
          "model": {"type": ["string", "null"], "minLength": 1, "maxLength": \#(label), "pattern": "^[^\\x00-\\x1f\\x7f-\\x9f]*$", "description": "Model version that made the suggestions"},
          "annotator": {"type": ["string", "null"], "minLength": 1, "maxLength": \#(label), "pattern": "^[^\\x00-\\x1f\\x7f-\\x9f]*$"}
        }
      },
      "FeedbackBatch": {
        "type": "object", "required": ["items"], "additionalProperties": false,
        "properties": {"items": {"type": "array", "minItems": 1, "maxItems": \#(limits.maxFeedbackItems), "items": {"$ref": "#/components/schemas/FeedbackItem"}}}
      },
      "FeedbackCreated": {
        "type": "object", "required": ["id", "duplicate"],
        "properties": {"id": {"type": "integer", "minimum": 1}, "duplicate": {"type": "boolean", "description": "True when the client id was stored before"}}
      },
      "FeedbackBatchCreated": {
        "type": "object", "required": ["ids", "stored", "duplicates"],
        "properties": {"ids": {"type": "array", "items": {"type": "integer", "minimum": 1}, "description": "One per item, in order"}, "stored": {"type": "integer"}, "duplicates": {"type": "integer"}}
      },
      "FeedbackRecord": {
        "type": "object", "required": ["id", "received_at", "name", "keyword", "action", "shown"],
        "properties": {
          "id": {"type": "integer"}, "client_id": {"type": "string"}, "received_at": {"type": "string", "format": "date-time"},
          "name": {"type": "string"}, "keyword": {"type": "string"}, "action": {"enum": ["accept", "correct", "reject"]},
          "shown": {"type": "array", "items": {"type": "string"}}, "model": {"type": "string"}, "annotator": {"type": "string"}
        }
      },
      "TrainingLine": {
        "type": "object", "required": ["name", "keywords", "source"],
        "properties": {"name": {"type": "string"}, "keywords": {"type": "array", "items": {"type": "string"}, "minItems": 1, "maxItems": 1}, "source": {"const": "feedback"}}
      },
      "Error": {
        "type": "object", "required": ["error"],
        "properties": {"error": {"type": "object", "required": ["code", "message"], "properties": {"code": {"type": "string", "enum": \#(errorCodes)}, "message": {"type": "string"}}}}
      }
    }
  }
}
"""#
    }
}
