// The API's error codes. Together with the HTTP core's protocol codes they are every code a client can see,
// and the OpenAPI document lists exactly these.
import HTTPCore

extension ErrorCode {
    public static let badPercentEncoding = ErrorCode("bad_percent_encoding")
    public static let batchTooLarge = ErrorCode("batch_too_large")
    public static let corsOriginNotAllowed = ErrorCode("cors_origin_not_allowed")
    public static let duplicateField = ErrorCode("duplicate_field")
    public static let emptyName = ErrorCode("empty_name")
    public static let hostNotAllowed = ErrorCode("host_not_allowed")
    public static let internalError = ErrorCode("internal_error")
    public static let invalidAdd = ErrorCode("invalid_add")
    public static let invalidNames = ErrorCode("invalid_names")
    public static let invalidRemove = ErrorCode("invalid_remove")
    public static let invalidExplain = ErrorCode("invalid_explain")
    public static let invalidK = ErrorCode("invalid_k")
    public static let invalidKeyword = ErrorCode("invalid_keyword")
    public static let invalidName = ErrorCode("invalid_name")
    public static let invalidUtf8 = ErrorCode("invalid_utf8")
    public static let invalidPage = ErrorCode("invalid_page")
    public static let keywordListFull = ErrorCode("keyword_list_full")
    public static let keywordUpdateFailed = ErrorCode("keyword_update_failed")
    public static let malformedJson = ErrorCode("malformed_json")
    public static let methodNotAllowed = ErrorCode("method_not_allowed")
    public static let missingName = ErrorCode("missing_name")
    public static let missingNames = ErrorCode("missing_names")
    public static let modelUnavailable = ErrorCode("model_unavailable")
    public static let nameTooLong = ErrorCode("name_too_long")
    public static let notFound = ErrorCode("not_found")
    public static let notReady = ErrorCode("not_ready")
    public static let responseTooLarge = ErrorCode("response_too_large")
    public static let tooManyKeywords = ErrorCode("too_many_keywords")
    public static let tooManyValues = ErrorCode("too_many_values")
    public static let unauthorized = ErrorCode("unauthorized")
    public static let unknownField = ErrorCode("unknown_field")
    public static let unsupportedMediaType = ErrorCode("unsupported_media_type")
    // Store and feedback.
    public static let emptyItems = ErrorCode("empty_items")
    public static let feedbackExportFailed = ErrorCode("feedback_export_failed")
    public static let feedbackFailed = ErrorCode("feedback_failed")
    public static let invalidAction = ErrorCode("invalid_action")
    public static let invalidActor = ErrorCode("invalid_actor")
    public static let invalidAnnotator = ErrorCode("invalid_annotator")
    public static let invalidFormat = ErrorCode("invalid_format")
    public static let invalidId = ErrorCode("invalid_id")
    public static let idConflict = ErrorCode("id_conflict")
    public static let invalidIfMatch = ErrorCode("invalid_if_match")
    public static let invalidItem = ErrorCode("invalid_item")
    public static let invalidItems = ErrorCode("invalid_items")
    public static let invalidModel = ErrorCode("invalid_model")
    public static let invalidShown = ErrorCode("invalid_shown")
    public static let invalidLimit = ErrorCode("invalid_limit")
    public static let invalidSince = ErrorCode("invalid_since")
    public static let storeUnavailable = ErrorCode("store_unavailable")
    public static let tooManyItems = ErrorCode("too_many_items")
    public static let versionMismatch = ErrorCode("version_mismatch")
    // The annotation queue.
    public static let invalidN = ErrorCode("invalid_n")
    public static let invalidOrder = ErrorCode("invalid_order")
    public static let invalidLease = ErrorCode("invalid_lease")
    public static let invalidIds = ErrorCode("invalid_ids")
    public static let invalidKeywords = ErrorCode("invalid_keywords")
    public static let unknownItem = ErrorCode("unknown_item")
    public static let notLeased = ErrorCode("not_leased")
    public static let itemClosed = ErrorCode("item_closed")
    public static let nothingToUndo = ErrorCode("nothing_to_undo")
    public static let cannotUndo = ErrorCode("cannot_undo")
    public static let queueFailed = ErrorCode("queue_failed")
    public static let wrongAnnotator = ErrorCode("wrong_annotator")
    public static let tooManyDecisions = ErrorCode("too_many_decisions")

    /// Every code the API answers with, beyond the HTTP core's.
    public static let apiCodes: [ErrorCode] = [
        .badPercentEncoding,
        .batchTooLarge,
        .corsOriginNotAllowed,
        .duplicateField,
        .emptyName,
        .hostNotAllowed,
        .internalError,
        .invalidAdd,
        .invalidNames,
        .invalidRemove,
        .invalidExplain,
        .invalidK,
        .invalidKeyword,
        .invalidName,
        .invalidUtf8,
        .invalidPage,
        .keywordListFull,
        .keywordUpdateFailed,
        .malformedJson,
        .methodNotAllowed,
        .missingName,
        .missingNames,
        .modelUnavailable,
        .nameTooLong,
        .notFound,
        .notReady,
        .responseTooLarge,
        .tooManyKeywords,
        .tooManyValues,
        .unauthorized,
        .unknownField,
        .unsupportedMediaType,
        .emptyItems,
        .feedbackExportFailed,
        .feedbackFailed,
        .invalidAction,
        .invalidActor,
        .invalidAnnotator,
        .invalidFormat,
        .invalidId,
        .idConflict,
        .invalidIfMatch,
        .invalidItem,
        .invalidItems,
        .invalidModel,
        .invalidShown,
        .invalidLimit,
        .invalidSince,
        .storeUnavailable,
        .tooManyItems,
        .versionMismatch,
    ]

    /// The queue routes' codes (part of `all`).
    public static let queueCodes: [ErrorCode] = [
        .invalidN, .invalidOrder, .invalidLease, .invalidIds, .invalidKeywords, .unknownItem, .notLeased, .itemClosed,
        .nothingToUndo, .cannotUndo, .queueFailed, .wrongAnnotator,
        .tooManyDecisions,
    ]

    /// Every code a client of this service can see.
    public static var all: [ErrorCode] { protocolCodes + apiCodes + queueCodes }
}
