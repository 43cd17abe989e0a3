// Rows read by column with a type: a read throws when the column is missing, NULL where a value is needed, or not
// of the type, so a damaged or changed table is an error that names the column, never a silent 0.

/// A typed read of a row that failed: which column, and why.
struct PostgresRowError: Error, CustomStringConvertible, Equatable {
    var column: Int
    var problem: String

    var description: String { "column \(column + 1) of a result row \(problem)" }
}

/// One row of a result (each column as PostgreSQL's text, or nil for NULL).
struct PostgresRow: Equatable {
    let values: [String?]

    init(_ values: [String?]) {
        self.values = values
    }

    /// The column's text, or nil when it is NULL.
    func optionalString(_ column: Int) throws(PostgresRowError) -> String? {
        guard values.indices.contains(column) else {
            throw PostgresRowError(column: column, problem: "is missing (the row has \(values.count) columns)")
        }
        return values[column]
    }

    /// The column's text; NULL throws.
    func string(_ column: Int) throws(PostgresRowError) -> String {
        guard let text = try optionalString(column) else { throw PostgresRowError(column: column, problem: "is NULL") }
        return text
    }

    func int(_ column: Int) throws(PostgresRowError) -> Int { try number(column) }
    func int64(_ column: Int) throws(PostgresRowError) -> Int64 { try number(column) }
    func uint64(_ column: Int) throws(PostgresRowError) -> UInt64 { try number(column) }

    /// The column as an integer, or nil when it is NULL.
    func optionalInt64(_ column: Int) throws(PostgresRowError) -> Int64? {
        guard try optionalString(column) != nil else { return nil }
        return try number(column)
    }

    private func number<Number: FixedWidthInteger>(_ column: Int) throws(PostgresRowError) -> Number {
        let text = try string(column)
        guard let value = Number(text) else {
            throw PostgresRowError(column: column, problem: "is not an integer of its type: '\(text.prefix(40))'")
        }
        return value
    }
}

extension PostgresConnection {
    /// Runs `sql` (see `exec`) and gives its rows for typed reads.
    func rows(_ sql: String, _ parameters: [String?] = []) throws(PostgresError) -> [PostgresRow] {
        try exec(sql, parameters).map(PostgresRow.init)
    }
}
