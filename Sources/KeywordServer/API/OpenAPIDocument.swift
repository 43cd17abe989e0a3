// The OpenAPI 3.1 description served at GET /openapi.json. Kept by hand next to the handlers it describes;
// a test checks that it is valid JSON and lists every route the router serves.
import HTTPCore
import StrictJSON

enum OpenAPIDocument {
    /// The error codes a client can see, from the one catalogue (`ErrorCode.all`), as a JSON array.
    private static var errorCodes: String {
        var json = JSONWriter(capacity: 1024)
        json.array { json in
            for code in ErrorCode.all.map(\.rawValue).sorted() { json.string(code) }
        }
        return String(decoding: json.bytes, as: UTF8.self)
    }

    static let json = #"""
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
        "requestBody": {"required": true, "content": {"application/json": {"schema": {"$ref": "#/components/schemas/SuggestRequest"}}}},
        "responses": {
          "200": {"description": "Suggestions", "content": {"application/json": {"schema": {"$ref": "#/components/schemas/SuggestResponse"}}}},
          "400": {"$ref": "#/components/responses/Error"}, "411": {"$ref": "#/components/responses/Error"},
          "413": {"$ref": "#/components/responses/Error"}, "415": {"$ref": "#/components/responses/Error"},
          "503": {"$ref": "#/components/responses/Error"}
        }
      },
      "get": {
        "summary": "Top-k keywords for one product name (query form, for curl)",
        "parameters": [
          {"name": "name", "in": "query", "required": true, "schema": {"type": "string", "minLength": 1, "maxLength": 1000}},
          {"name": "k", "in": "query", "schema": {"type": "integer", "minimum": 1, "maximum": 50, "default": 5}},
          {"name": "explain", "in": "query", "schema": {"type": "boolean", "default": false}}
        ],
        "responses": {
          "200": {"description": "Suggestions", "content": {"application/json": {"schema": {"$ref": "#/components/schemas/SuggestResponse"}}}},
          "400": {"$ref": "#/components/responses/Error"}, "503": {"$ref": "#/components/responses/Error"}
        }
      }
    },
    "/v1/suggest/batch": {
      "post": {
        "summary": "Top-k keywords for up to 1000 names",
        "requestBody": {"required": true, "content": {"application/json": {"schema": {"$ref": "#/components/schemas/BatchRequest"}}}},
        "responses": {
          "200": {"description": "One result per name, in order", "content": {"application/json": {"schema": {"$ref": "#/components/schemas/BatchResponse"}}}},
          "400": {"$ref": "#/components/responses/Error"}, "413": {"$ref": "#/components/responses/Error"},
          "415": {"$ref": "#/components/responses/Error"}, "503": {"$ref": "#/components/responses/Error"}
        }
      }
    },
    "/v1/keywords": {
      "get": {
        "summary": "The current keyword list; its version is also the ETag",
        "responses": {
          "200": {"description": "Keywords", "headers": {"ETag": {"$ref": "#/components/headers/ETag"}}, "content": {"application/json": {"schema": {"$ref": "#/components/schemas/KeywordList"}}}},
          "503": {"$ref": "#/components/responses/Error"}
        }
      },
      "post": {
        "summary": "Add and remove keywords; durable in the store before the answer, served by this replica at once",
        "security": [{}, {"bearer": []}],
        "parameters": [
          {"name": "If-Match", "in": "header", "description": "The list version (ETag of GET /v1/keywords) the change is made against; a stale one gets 412", "schema": {"type": "string"}}
        ],
        "requestBody": {"required": true, "content": {"application/json": {"schema": {"$ref": "#/components/schemas/KeywordChange"}}}},
        "responses": {
          "200": {"description": "The new list", "headers": {"ETag": {"$ref": "#/components/headers/ETag"}}, "content": {"application/json": {"schema": {"$ref": "#/components/schemas/KeywordList"}}}},
          "400": {"$ref": "#/components/responses/Error"}, "401": {"$ref": "#/components/responses/Error"},
          "412": {"description": "If-Match named a version that is no longer current (code version_mismatch); the ETag header holds the current one", "headers": {"ETag": {"$ref": "#/components/headers/ETag"}}, "content": {"application/json": {"schema": {"$ref": "#/components/schemas/Error"}}}},
          "415": {"$ref": "#/components/responses/Error"}, "500": {"$ref": "#/components/responses/Error"},
          "503": {"description": "The model is loading (not_ready) or the store cannot be reached (store_unavailable); nothing was changed", "content": {"application/json": {"schema": {"$ref": "#/components/schemas/Error"}}}}
        }
      }
    },
    "/v1/feedback": {
      "post": {
        "summary": "Record annotator decisions: one item, or {\"items\": [...]} of up to 1000 (stored all or none)",
        "security": [{}, {"bearer": []}],
        "requestBody": {"required": true, "content": {"application/json": {"schema": {"oneOf": [{"$ref": "#/components/schemas/FeedbackItem"}, {"$ref": "#/components/schemas/FeedbackBatch"}]}}}},
        "responses": {
          "201": {"description": "Stored (or found stored under the same client id)", "content": {"application/json": {"schema": {"oneOf": [{"$ref": "#/components/schemas/FeedbackCreated"}, {"$ref": "#/components/schemas/FeedbackBatchCreated"}]}}}},
          "400": {"$ref": "#/components/responses/Error"}, "401": {"$ref": "#/components/responses/Error"},
          "413": {"$ref": "#/components/responses/Error"}, "415": {"$ref": "#/components/responses/Error"},
          "500": {"$ref": "#/components/responses/Error"}, "503": {"$ref": "#/components/responses/Error"}
        }
      }
    },
    "/v1/feedback/export": {
      "get": {
        "summary": "Stored feedback as JSON lines, oldest first: training data (accepts and corrections) by default, every record with format=raw",
        "security": [{}, {"bearer": []}],
        "parameters": [
          {"name": "since", "in": "query", "description": "Only records with a greater id (the Feedback-Last-Id of the previous export)", "schema": {"type": "integer", "minimum": 0, "maximum": 9223372036854775807, "default": 0}},
          {"name": "format", "in": "query", "schema": {"enum": ["training", "raw"], "default": "training"}}
        ],
        "responses": {
          "200": {
            "description": "One JSON object per line: TrainingLine objects, or FeedbackRecord objects with format=raw",
            "headers": {"Feedback-Last-Id": {"description": "Id of the last record read (since, when none)", "schema": {"type": "string", "pattern": "^[0-9]+$"}}},
            "content": {"application/x-ndjson": {"schema": {"type": "string"}}}
          },
          "400": {"$ref": "#/components/responses/Error"}, "401": {"$ref": "#/components/responses/Error"},
          "500": {"$ref": "#/components/responses/Error"}, "503": {"$ref": "#/components/responses/Error"}
        }
      }
    },
    "/healthz": {"get": {"summary": "Liveness", "responses": {"200": {"description": "Alive", "content": {"application/json": {"schema": {"type": "object", "properties": {"status": {"const": "ok"}}, "required": ["status"]}}}}}}},
    "/readyz": {"get": {"summary": "Readiness: 200 once the model is loaded, 503 before", "responses": {"200": {"description": "Ready", "content": {"application/json": {"schema": {"type": "object", "properties": {"status": {"const": "ready"}, "model": {"type": "string"}, "store": {"enum": ["ok", "unavailable"], "description": "unavailable while the database cannot be reached: suggestions still work, changes answer 503"}, "store_kind": {"enum": ["file", "postgres"]}}}}}}, "503": {"$ref": "#/components/responses/Error"}}}},
    "/metrics": {"get": {"summary": "Prometheus metrics", "responses": {"200": {"description": "Text exposition format 0.0.4", "content": {"text/plain": {"schema": {"type": "string"}}}}}}},
    "/openapi.json": {"get": {"summary": "This document", "responses": {"200": {"description": "OpenAPI 3.1", "content": {"application/json": {"schema": {"type": "object"}}}}}}},
    "/": {"get": {"summary": "Admin page", "responses": {"200": {"description": "HTML", "content": {"text/html": {"schema": {"type": "string"}}}}}}}
  },
  "components": {
    "securitySchemes": {"bearer": {"type": "http", "scheme": "bearer", "description": "Required for POST /v1/keywords, POST /v1/feedback and GET /v1/feedback/export when KWSUGGEST_ADMIN_TOKEN is set"}},
    "headers": {"ETag": {"description": "The keyword list version, quoted", "schema": {"type": "string"}}},
    "responses": {
      "Error": {"description": "Error", "content": {"application/json": {"schema": {"$ref": "#/components/schemas/Error"}}}}
    },
    "schemas": {
      "SuggestRequest": {
        "type": "object", "required": ["name"], "additionalProperties": false,
        "properties": {
          "name": {"type": "string", "minLength": 1, "maxLength": 1000, "description": "1-1000 characters after trimming"},
          "k": {"type": "integer", "minimum": 1, "maximum": 50, "default": 5},
          "explain": {"type": "boolean", "default": false}
        }
      },
      "Suggestion": {
        "type": "object", "required": ["keyword", "score"],
        "properties": {
          "keyword": {"type": "string"},
          "score": {"type": "number"},
          "weights": {"type": "array", "items": {"type": "object", "properties": {"token": {"type": "string"}, "weight": {"type": "number"}}}, "description": "Only with explain"}
        }
      },
      "SuggestResponse": {
        "type": "object", "required": ["name", "suggestions", "model"],
        "properties": {
          "name": {"type": "string"},
          "tokens": {"type": "array", "items": {"type": "string"}, "description": "Only with explain"},
          "suggestions": {"type": "array", "items": {"$ref": "#/components/schemas/Suggestion"}},
          "model": {"type": "string"}
        }
      },
      "BatchRequest": {
        "type": "object", "required": ["names"], "additionalProperties": false,
        "properties": {
          "names": {"type": "array", "maxItems": 1000, "items": {"type": "string", "minLength": 1, "maxLength": 1000}},
          "k": {"type": "integer", "minimum": 1, "maximum": 50, "default": 5},
          "explain": {"type": "boolean", "default": false}
        }
      },
      "BatchResponse": {
        "type": "object", "required": ["results"],
        "properties": {
          "results": {"type": "array", "items": {"type": "object", "properties": {"name": {"type": "string"}, "suggestions": {"type": "array", "items": {"$ref": "#/components/schemas/Suggestion"}}}}},
          "model": {"type": "string"}
        }
      },
      "KeywordList": {
        "type": "object", "required": ["keywords", "count", "version"],
        "properties": {"keywords": {"type": "array", "items": {"type": "string"}}, "count": {"type": "integer"}, "version": {"type": "string"}}
      },
      "KeywordChange": {
        "type": "object", "additionalProperties": false,
        "properties": {"add": {"type": "array", "items": {"type": "string"}}, "remove": {"type": "array", "items": {"type": "string"}}}
      },
      "FeedbackItem": {
        "type": "object", "required": ["name", "keyword", "action"], "additionalProperties": false,
        "properties": {
          "id": {"type": ["string", "null"], "minLength": 1, "maxLength": 200, "description": "Client-chosen; a second item with the same id is not stored again and gets the first one's id"},
          "name": {"type": "string", "minLength": 1, "maxLength": 1000, "description": "The product name, 1-1000 characters after trimming"},
          "keyword": {"type": "string", "minLength": 1, "maxLength": 100, "description": "The keyword accepted, typed (correct) or rejected; 1-100 characters after trimming"},
          "action": {"enum": ["accept", "correct", "reject"]},
          "shown": {"type": ["array", "null"], "maxItems": 50, "items": {"type": "string", "minLength": 1, "maxLength": 100}, "description": "The keywords shown, best first"},
          "model": {"type": ["string", "null"], "minLength": 1, "maxLength": 200, "description": "Model version that made the suggestions"},
          "annotator": {"type": ["string", "null"], "minLength": 1, "maxLength": 200}
        }
      },
      "FeedbackBatch": {
        "type": "object", "required": ["items"], "additionalProperties": false,
        "properties": {"items": {"type": "array", "minItems": 1, "maxItems": 1000, "items": {"$ref": "#/components/schemas/FeedbackItem"}}}
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
