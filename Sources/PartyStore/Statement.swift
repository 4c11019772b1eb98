import Foundation
import CSQLite

/// A value bound to a `?` parameter (`$n` on PostgreSQL). All SQL is parameterized.
package enum SQLValue {
    case text(String)
    case integer(Int64)
    case real(Double)
    case null

    static func optional(_ text: String?) -> SQLValue { text.map(SQLValue.text) ?? .null }
    static func optional(_ date: Date?) -> SQLValue { date.map { .real($0.timeIntervalSince1970) } ?? .null }
    static func optional(_ number: Int64?) -> SQLValue { number.map(SQLValue.integer) ?? .null }
    static func date(_ date: Date) -> SQLValue { .real(date.timeIntervalSince1970) }
    static func bool(_ flag: Bool) -> SQLValue { .integer(flag ? 1 : 0) }
}

/// Owns one prepared statement; finalized in deinit.
final class Statement {
    private let handle: OpaquePointer
    private let sql: String
    private unowned let database: Database
    /// Result column name → index, read once: rows are read by column name.
    private let columns: [String: Int]

    init(handle: OpaquePointer, sql: String, database: Database) {
        self.handle = handle
        self.sql = sql
        self.database = database
        var columns: [String: Int] = [:]
        for index in 0..<Int(sqlite3_column_count(handle)) {
            if let name = sqlite3_column_name(handle, Int32(index)) { columns[String(cString: name)] = index }
        }
        self.columns = columns
    }

    deinit { sqlite3_finalize(handle) }

    /// Binds `values`, steps to the end, and returns every row.
    @discardableResult
    func run(_ values: [SQLValue] = []) throws(DatabaseError) -> [Row] {
        sqlite3_reset(handle)
        sqlite3_clear_bindings(handle)
        for (offset, value) in values.enumerated() {
            let index = Int32(offset + 1)
            let status: Int32
            switch value {
            case .text(let text): status = mv_sqlite_bind_text(handle, index, text)
            case .integer(let number): status = sqlite3_bind_int64(handle, index, number)
            case .real(let number): status = sqlite3_bind_double(handle, index, number)
            case .null: status = sqlite3_bind_null(handle, index)
            }
            guard status == SQLITE_OK else { throw database.error(status, sql: sql) }
        }
        var rows: [Row] = []
        while true {
            let status = sqlite3_step(handle)
            if status == SQLITE_DONE { break }
            guard status == SQLITE_ROW else {
                let failure = database.error(status, sql: sql)
                sqlite3_reset(handle)
                throw failure
            }
            rows.append(Row(statement: handle, columns: columns))
        }
        sqlite3_reset(handle)
        return rows
    }
}

/// One result row, copied out of SQLite or PostgreSQL, read by column name (a missing name reads as NULL).
package struct Row {
    private let values: [SQLValue]
    private let columns: [String: Int]

    init(values: [SQLValue], columns: [String: Int]) {
        self.values = values
        self.columns = columns
    }

    init(statement: OpaquePointer, columns: [String: Int]) {
        self.columns = columns
        values = (0..<sqlite3_column_count(statement)).map { column in
            switch sqlite3_column_type(statement, column) {
            case SQLITE_INTEGER: return .integer(sqlite3_column_int64(statement, column))
            case SQLITE_FLOAT: return .real(sqlite3_column_double(statement, column))
            case SQLITE_NULL: return .null
            default: return .text(String(cString: sqlite3_column_text(statement, column)))
            }
        }
    }

    private func value(_ column: String) -> SQLValue { columns[column].map { values[$0] } ?? .null }

    package func text(_ column: String) -> String? {
        if case .text(let text) = value(column) { return text }
        return nil
    }

    package func integer(_ column: String) -> Int64? {
        switch value(column) {
        case .integer(let number): return number
        case .real(let number): return Int64(Int(saturating: number))
        default: return nil
        }
    }

    package func date(_ column: String) -> Date? {
        switch value(column) {
        case .real(let number): return Date(timeIntervalSince1970: number)
        case .integer(let number): return Date(timeIntervalSince1970: Double(number))
        default: return nil
        }
    }

    package func bool(_ column: String) -> Bool { integer(column) == 1 }

    package func real(_ column: String) -> Double? {
        switch value(column) {
        case .real(let number): return number
        case .integer(let number): return Double(number)
        default: return nil
        }
    }
}
