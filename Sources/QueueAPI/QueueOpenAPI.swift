// The annotation queue's part of /openapi.json: its paths and schemas, with the numbers its decoding uses.
import APICore
import TeamQueue

package enum QueueOpenAPI {
    private static let caps = QueueBodyCaps(APILimits())
    private static let values = QueueValueCaps(APILimits())

    private static func body(_ cap: Int, _ valueCap: Int) -> String {
        "A body over \(cap) bytes is 413 body_too_large (before it is read when Content-Length says so), the largest the schema allows. A JSON body of more than \(valueCap) values is 400 too_many_values."
    }

    private static let errors = #"""
          "400": {"$ref": "#/components/responses/Error"}, "401": {"$ref": "#/components/responses/Error"},
          "413": {"$ref": "#/components/responses/Error"}, "415": {"$ref": "#/components/responses/Error"},
          "500": {"$ref": "#/components/responses/Error"}, "503": {"$ref": "#/components/responses/Error"}
"""#

    private static let conflict = ##""409": {"description": "The item is not in this annotator's lease (not_leased), is already labelled or flagged (item_closed), there is nothing to undo (nothing_to_undo), or the latest decision cannot be undone because its item was renamed since, is labelled or flagged by others even without it, or is held by another annotator (cannot_undo); nothing was changed", "content": {"application/json": {"schema": {"$ref": "#/components/schemas/Error"}}}}"##
    private static let decisionConflict = ##""409": {"description": "The item is not in this annotator's lease (not_leased) or is already labelled or flagged (item_closed), a feedback record imported from an archive holds one of the label's feedback ids with another decision (id_conflict), or the annotator has made \##(QueuePolicy().maxDecisionsPerItem) decisions on one of the items already, undone ones included (too_many_decisions: a bound on what a decide-and-undo loop can add to the logs); nothing was changed", "content": {"application/json": {"schema": {"$ref": "#/components/schemas/Error"}}}}"##

    /// Members of `paths`, each followed by a comma.
    package static let paths = #"""
    "/v1/queue/items": {
      "post": {
        "summary": "Put products in the annotation queue: each is suggested now, labelled by the model when auto-accepted, queued otherwise",
        "description": "The same id with the same name is a duplicate and changes nothing; the same id with a new name (a renamed product) is queued again under it. serve --queue-audit also queues that share of auto-accepted items for a person to check, and --queue-overlap routes that share of queued items to two annotators (a third when they disagree). \#(body(caps.items, values.items))",
        "security": [{}, {"bearer": []}],
        "requestBody": {"required": true, "content": {"application/json": {"schema": {"$ref": "#/components/schemas/QueueItems"}}}},
        "responses": {
          "200": {"description": "What happened to the items", "content": {"application/json": {"schema": {"$ref": "#/components/schemas/QueueItemsResult"}}}},
\#(errors)
        }
      }
    },
    "/v1/queue/lease": {
      "post": {
        "summary": "Take up to n items to work on; no other annotator gets them until they are decided or the lease expires (10 minutes)",
        "description": "Overlap items are leased to two annotators at once, by design. With keyword, only items whose top suggestion is that keyword (review by keyword). An empty items list means nothing is left for this annotator, or the annotator already holds serve --lease-cap items (100 by default) over all their leases: a lease past the cap gets only what fits, and earlier leases are kept. \#(body(caps.lease, values.lease))",
        "security": [{}, {"bearer": []}],
        "requestBody": {"required": true, "content": {"application/json": {"schema": {"$ref": "#/components/schemas/QueueLeaseRequest"}}}},
        "responses": {
          "200": {"description": "The lease", "content": {"application/json": {"schema": {"$ref": "#/components/schemas/QueueLease"}}}},
          "403": {"description": "The token is an annotator's (serve --annotators) and the body names another annotator (wrong_annotator): an annotator acts only as themselves", "content": {"application/json": {"schema": {"$ref": "#/components/schemas/Error"}}}},
\#(errors)
        }
      }
    },
    "/v1/queue/decisions": {
      "post": {
        "summary": "Label leased items (one with id, many with ids), or skip or flag one",
        "description": "All items or none. Every label keyword is also a feedback record: accept when it was among the item's suggestions, correct otherwise. A skipped item goes back to the queue and is not leased to the same annotator for an hour; a flagged one is set aside. \#(body(caps.decisions, values.decisions))",
        "security": [{}, {"bearer": []}],
        "requestBody": {"required": true, "content": {"application/json": {"schema": {"$ref": "#/components/schemas/QueueDecision"}}}},
        "responses": {
          "200": {"description": "Recorded", "content": {"application/json": {"schema": {"$ref": "#/components/schemas/QueueDecided"}}}},
          "403": {"description": "The token is an annotator's (serve --annotators) and the body names another annotator (wrong_annotator): an annotator acts only as themselves", "content": {"application/json": {"schema": {"$ref": "#/components/schemas/Error"}}}},
          "404": {"description": "No queued item has that id (unknown_item)", "content": {"application/json": {"schema": {"$ref": "#/components/schemas/Error"}}}},
          \#(decisionConflict),
\#(errors)
        }
      }
    },
    "/v1/queue/undo": {
      "post": {
        "summary": "Revert the annotator's latest decision (up to 10 back); the item returns to their lease",
        "description": "The feedback records the decision wrote are withdrawn: they leave the training export. \#(body(caps.undo, values.undo))",
        "security": [{}, {"bearer": []}],
        "requestBody": {"required": true, "content": {"application/json": {"schema": {"$ref": "#/components/schemas/QueueUndo"}}}},
        "responses": {
          "200": {"description": "The item that was reverted, and the lease it is back in", "content": {"application/json": {"schema": {"$ref": "#/components/schemas/QueueUndone"}}}},
          "403": {"description": "The token is an annotator's (serve --annotators) and the body names another annotator (wrong_annotator): an annotator acts only as themselves", "content": {"application/json": {"schema": {"$ref": "#/components/schemas/Error"}}}},
          \#(conflict),
\#(errors)
        }
      }
    },
    "/v1/queue/stats": {
      "get": {
        "summary": "Progress, each annotator's pace, the audit of auto-accepted labels and the agreement on overlap items",
        "security": [{}, {"bearer": []}],
        "responses": {
          "200": {"description": "Figures", "content": {"application/json": {"schema": {"$ref": "#/components/schemas/QueueStats"}}}},
          "401": {"$ref": "#/components/responses/Error"}, "500": {"$ref": "#/components/responses/Error"},
          "503": {"$ref": "#/components/responses/Error"}
        }
      }
    },
    "/v1/queue/keywords": {
      "get": {
        "summary": "Per first-suggested keyword: items waiting, labelled by the model, audited and labelled by people, and whether the model may label it now",
        "description": "Ordered by queued, largest first (then by keyword). Counts are per item's first suggested keyword: queued is what waits now (leased or not), auto_accepted what the model labelled, labelled every label a person gave such an item (audits included) and top1_precision how often that label held the keyword; audited and audit_precision the audits of the model's labels. auto_accept is the rule's state for the serving model: on (its items are auto-accepted at some confidence), off (its or its category's decisions show it below the target precision) or learning (not enough evidence yet). Other parameter names are 400 unknown_field (names starting with _ are ignored).",
        "security": [{}, {"bearer": []}],
        "parameters": [
          {"name": "limit", "in": "query", "schema": {"type": "integer", "minimum": 1, "maximum": \#(QueueHandlers.maxKeywordPage), "default": \#(QueueHandlers.defaultKeywordPage)}},
          {"name": "offset", "in": "query", "schema": {"type": "integer", "minimum": 0, "maximum": 2147483647, "default": 0}}
        ],
        "responses": {
          "200": {"description": "One page of keywords", "content": {"application/json": {"schema": {"$ref": "#/components/schemas/QueueKeywords"}}}},
          "400": {"$ref": "#/components/responses/Error"}, "401": {"$ref": "#/components/responses/Error"},
          "500": {"$ref": "#/components/responses/Error"}, "503": {"$ref": "#/components/responses/Error"}
        }
      }
    },
    "/v1/queue/flagged": {
      "get": {
        "summary": "Every flagged item (set aside by an annotator) as JSON lines, in the order they were flagged",
        "description": "Streamed (chunked transfer coding) from the store page by page. An item leaves the list when its flag is undone. If the store fails midway the connection closes before the last chunk.",
        "security": [{}, {"bearer": []}],
        "parameters": [
          {"name": "since", "in": "query", "description": "Only items flagged at or after this UTC time", "schema": {"type": "string", "pattern": "^(?:[0-9]{4}-(?:(?:0[13578]|1[02])-(?:0[1-9]|[12][0-9]|3[01])|(?:0[469]|11)-(?:0[1-9]|[12][0-9]|30)|02-(?:0[1-9]|1[0-9]|2[0-8]))|(?:[0-9]{2}(?:0[48]|[2468][048]|[13579][26])|(?:[02468][048]|[13579][26])00)-02-29)T(?:[01][0-9]|2[0-3]):[0-5][0-9]:[0-5][0-9](?:\\.[0-9]{1,3})?Z$"}}
        ],
        "responses": {
          "200": {"description": "One FlagLine object per line", "content": {"application/x-ndjson": {"schema": {"type": "string"}}}},
          "400": {"$ref": "#/components/responses/Error"}, "401": {"$ref": "#/components/responses/Error"},
          "500": {"$ref": "#/components/responses/Error"}, "503": {"$ref": "#/components/responses/Error"}
        }
      }
    },
    "/v1/labels/export": {
      "get": {
        "summary": "Every labelled item once, with its current label, as JSON lines in the order the labels were made",
        "description": "Streamed (chunked transfer coding) from the store page by page. If the store fails midway the connection closes before the last chunk.",
        "security": [{}, {"bearer": []}],
        "parameters": [
          {"name": "since", "in": "query", "description": "Only labels made at or after this UTC time", "schema": {"type": "string", "pattern": "^(?:[0-9]{4}-(?:(?:0[13578]|1[02])-(?:0[1-9]|[12][0-9]|3[01])|(?:0[469]|11)-(?:0[1-9]|[12][0-9]|30)|02-(?:0[1-9]|1[0-9]|2[0-8]))|(?:[0-9]{2}(?:0[48]|[2468][048]|[13579][26])|(?:[02468][048]|[13579][26])00)-02-29)T(?:[01][0-9]|2[0-3]):[0-5][0-9]:[0-5][0-9](?:\\.[0-9]{1,3})?Z$"}}
        ],
        "responses": {
          "200": {"description": "One LabelLine object per line", "content": {"application/x-ndjson": {"schema": {"type": "string"}}}},
          "400": {"$ref": "#/components/responses/Error"}, "401": {"$ref": "#/components/responses/Error"},
          "500": {"$ref": "#/components/responses/Error"}, "503": {"$ref": "#/components/responses/Error"}
        }
      }
    },
"""#

    /// Members of `schemas`, each followed by a comma.
    package static let schemas = #"""
      "Label": {"type": "string", "minLength": 1, "maxLength": 200, "pattern": "^[^\\x00-\\x1f\\x7f-\\x9f]*$", "description": "1-200 Unicode code points without control characters"},
      "QueueItems": {
        "type": "object", "required": ["items"], "additionalProperties": false,
        "properties": {"items": {"type": "array", "minItems": 1, "maxItems": \#(QueueDecoding.maxItems), "items": {
          "type": "object", "required": ["id", "name"], "additionalProperties": false,
          "properties": {"id": {"$ref": "#/components/schemas/QueueKey"}, "name": {"$ref": "#/components/schemas/Name"}}
        }}}
      },
      "QueueItemsResult": {
        "type": "object", "required": ["queued", "auto_accepted", "from_memory", "duplicates"],
        "properties": {"queued": {"type": "integer", "minimum": 0}, "auto_accepted": {"type": "integer", "minimum": 0}, "from_memory": {"type": "integer", "minimum": 0, "description": "Items labelled by the decision memory: their name was decided before, under the same name key, and its decisions agree"}, "duplicates": {"type": "integer", "minimum": 0}}
      },
      "QueueLeaseRequest": {
        "type": "object", "required": ["annotator"], "additionalProperties": false,
        "properties": {
          "annotator": {"$ref": "#/components/schemas/QueueKey"},
          "n": {"type": ["integer", "null"], "minimum": 1, "maximum": \#(QueueDecoding.maxLease), "default": 10},
          "order": {"enum": ["uncertain", "confident", "oldest", null], "default": "uncertain", "description": "uncertain: lowest top confidence first; confident: highest first; oldest: in the order items arrived"},
          "keyword": {"oneOf": [{"$ref": "#/components/schemas/Keyword"}, {"type": "null"}], "description": "Only items whose top suggestion is this keyword"}
        }
      },
      "QueueLease": {
        "type": "object", "required": ["lease", "expires_at", "items"],
        "properties": {
          "lease": {"type": "string"}, "expires_at": {"type": "string", "format": "date-time"},
          "items": {"type": "array", "items": {"type": "object", "required": ["id", "name", "suggestions"], "properties": {
            "id": {"type": "string"}, "name": {"type": "string"},
            "suggestions": {"type": "array", "items": {"type": "object", "required": ["keyword", "confidence"], "properties": {"keyword": {"type": "string"}, "confidence": {"type": ["number", "null"], "minimum": 0, "maximum": 1}}}}
          }}}
        }
      },
      "QueueDecision": {
        "description": "A label for one item (id) or many (ids), or a skip or a flag of one item (id). A field a variant does not take may be absent or null.",
        "oneOf": [
          {"type": "object", "required": ["lease", "annotator", "id", "keywords"], "additionalProperties": false,
           "properties": {"lease": {"$ref": "#/components/schemas/Label"}, "annotator": {"$ref": "#/components/schemas/QueueKey"},
                          "id": {"$ref": "#/components/schemas/QueueKey"}, "ids": {"type": "null"},
                          "keywords": {"$ref": "#/components/schemas/LabelKeywords"}, "action": {"type": "null"}}},
          {"type": "object", "required": ["lease", "annotator", "ids", "keywords"], "additionalProperties": false,
           "properties": {"lease": {"$ref": "#/components/schemas/Label"}, "annotator": {"$ref": "#/components/schemas/QueueKey"},
                          "id": {"type": "null"}, "ids": {"type": "array", "minItems": 1, "maxItems": \#(QueueDecoding.maxItems), "items": {"$ref": "#/components/schemas/QueueKey"}},
                          "keywords": {"$ref": "#/components/schemas/LabelKeywords"}, "action": {"type": "null"}}},
          {"type": "object", "required": ["lease", "annotator", "id", "action"], "additionalProperties": false,
           "properties": {"lease": {"$ref": "#/components/schemas/Label"}, "annotator": {"$ref": "#/components/schemas/QueueKey"},
                          "id": {"$ref": "#/components/schemas/QueueKey"}, "ids": {"type": "null"},
                          "keywords": {"type": "null"}, "action": {"enum": ["skip", "flag"]}}}
        ]
      },
      "LabelKeywords": {"type": "array", "minItems": 1, "maxItems": \#(QueueDecoding.maxLabelKeywords), "items": {"$ref": "#/components/schemas/Keyword"}},
      "QueueDecided": {
        "type": "object", "required": ["decided", "feedback"],
        "properties": {"decided": {"type": "integer", "minimum": 1, "description": "Items decided"}, "feedback": {"type": "array", "items": {"type": "integer", "minimum": 1}, "description": "Ids of the feedback records the labels wrote"}}
      },
      "QueueUndo": {"type": "object", "required": ["annotator"], "additionalProperties": false, "properties": {"annotator": {"$ref": "#/components/schemas/QueueKey"}}},
      "QueueUndone": {"type": "object", "required": ["id", "lease"], "properties": {"id": {"type": "string"}, "lease": {"type": "string"}}},
      "QueueStats": {
        "type": "object", "required": ["items", "annotators", "auto_accept", "agreement"],
        "properties": {
          "items": {"type": "object", "required": ["queued", "leased", "labelled", "flagged"], "properties": {"queued": {"type": "integer"}, "leased": {"type": "integer"}, "labelled": {"type": "integer"}, "flagged": {"type": "integer"}}},
          "annotators": {"type": "object", "additionalProperties": {"type": "object", "required": ["decisions", "median_seconds"], "properties": {"decisions": {"type": "integer"}, "median_seconds": {"type": ["number", "null"]}}}},
          "auto_accept": {"type": "object", "required": ["count", "audited", "audit_precision"], "properties": {"count": {"type": "integer"}, "audited": {"type": "integer"}, "audit_precision": {"type": ["number", "null"], "description": "Share of audited items whose annotator kept the model's keyword; null before any audit"}}},
          "agreement": {"type": "object", "required": ["overlap_items", "agreed"], "properties": {"overlap_items": {"type": "integer", "description": "Overlap items labelled by two annotators"}, "agreed": {"type": "integer"}}}
        }
      },
      "QueueKeywords": {
        "type": "object", "required": ["keywords", "count"],
        "properties": {
          "keywords": {"type": "array", "items": {"type": "object", "required": ["keyword", "category", "queued", "auto_accepted", "audited", "audit_precision", "labelled", "top1_precision", "auto_accept"], "properties": {
            "keyword": {"type": "string"}, "category": {"type": ["string", "null"]},
            "queued": {"type": "integer", "minimum": 0}, "auto_accepted": {"type": "integer", "minimum": 0},
            "audited": {"type": "integer", "minimum": 0}, "audit_precision": {"type": ["number", "null"], "minimum": 0, "maximum": 1},
            "labelled": {"type": "integer", "minimum": 0}, "top1_precision": {"type": ["number", "null"], "minimum": 0, "maximum": 1},
            "auto_accept": {"enum": ["on", "off", "learning"]}
          }}},
          "count": {"type": "integer", "minimum": 0, "description": "Keywords in all pages"}
        }
      },
      "FlagLine": {
        "type": "object", "required": ["id", "name", "flagged_by", "at", "suggestions"],
        "properties": {
          "id": {"type": "string"}, "name": {"type": "string"}, "flagged_by": {"type": "string"},
          "at": {"type": "string", "format": "date-time"},
          "suggestions": {"type": "array", "items": {"type": "object", "required": ["keyword", "confidence"], "properties": {"keyword": {"type": "string"}, "confidence": {"type": ["number", "null"]}}}}
        }
      },
      "LabelLine": {
        "type": "object", "required": ["id", "name", "keywords", "decided_by", "annotator", "model", "at"],
        "properties": {
          "id": {"type": "string"}, "name": {"type": "string"}, "keywords": {"type": "array", "items": {"type": "string"}},
          "decided_by": {"enum": ["model", "annotator", "memory"], "description": "memory: the name was decided before under the same name key, by the annotators listed"}, "annotator": {"type": ["string", "null"]}, "model": {"type": ["string", "null"]},
          "at": {"type": "string", "format": "date-time"},
          "annotators": {"type": "array", "items": {"type": "string"}, "description": "Only for decided_by memory: whose decisions the label repeats"}
        }
      },
"""#
}
