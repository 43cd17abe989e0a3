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
        "summary": "The current keyword list",
        "responses": {
          "200": {"description": "Keywords", "content": {"application/json": {"schema": {"$ref": "#/components/schemas/KeywordList"}}}},
          "503": {"$ref": "#/components/responses/Error"}
        }
      },
      "post": {
        "summary": "Add and remove keywords; persisted atomically to the overlay file, effective at once",
        "security": [{}, {"bearer": []}],
        "requestBody": {"required": true, "content": {"application/json": {"schema": {"$ref": "#/components/schemas/KeywordChange"}}}},
        "responses": {
          "200": {"description": "The new list", "content": {"application/json": {"schema": {"$ref": "#/components/schemas/KeywordList"}}}},
          "400": {"$ref": "#/components/responses/Error"}, "401": {"$ref": "#/components/responses/Error"},
          "415": {"$ref": "#/components/responses/Error"}, "500": {"$ref": "#/components/responses/Error"},
          "503": {"$ref": "#/components/responses/Error"}
        }
      }
    },
    "/healthz": {"get": {"summary": "Liveness", "responses": {"200": {"description": "Alive", "content": {"application/json": {"schema": {"type": "object", "properties": {"status": {"const": "ok"}}, "required": ["status"]}}}}}}},
    "/readyz": {"get": {"summary": "Readiness: 200 once the model is loaded, 503 before", "responses": {"200": {"description": "Ready", "content": {"application/json": {"schema": {"type": "object", "properties": {"status": {"const": "ready"}, "model": {"type": "string"}}}}}}, "503": {"$ref": "#/components/responses/Error"}}}},
    "/metrics": {"get": {"summary": "Prometheus metrics", "responses": {"200": {"description": "Text exposition format 0.0.4", "content": {"text/plain": {"schema": {"type": "string"}}}}}}},
    "/openapi.json": {"get": {"summary": "This document", "responses": {"200": {"description": "OpenAPI 3.1", "content": {"application/json": {"schema": {"type": "object"}}}}}}},
    "/": {"get": {"summary": "Admin page", "responses": {"200": {"description": "HTML", "content": {"text/html": {"schema": {"type": "string"}}}}}}}
  },
  "components": {
    "securitySchemes": {"bearer": {"type": "http", "scheme": "bearer", "description": "Required for POST /v1/keywords when KWSUGGEST_ADMIN_TOKEN is set"}},
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
      "Error": {
        "type": "object", "required": ["error"],
        "properties": {"error": {"type": "object", "required": ["code", "message"], "properties": {"code": {"type": "string", "enum": \#(errorCodes)}, "message": {"type": "string"}}}}
      }
    }
  }
}
"""#
}
