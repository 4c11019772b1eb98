import Foundation
import Metrics
import CPostgreSQL

/// Owns one libpq connection (`PGconn`), closed in deinit. Not thread-safe by itself: `PartyStore` is its one
/// serial owner, as for SQLite. A statement with parameters is prepared once per session (`PQsendPrepare`) and
/// then executed by name, every value a text parameter: PostgreSQL plans it once, not at every call (planning was
/// about half of its time per like).
package final class PostgreSQLConnection: SQLConnection {
    private let handle: OpaquePointer
    /// The store's SQL in PostgreSQL's spelling (`$1 …`), translated once per distinct statement.
    private var translations: [String: String] = [:]
    /// This session's prepared statements by SQL text and parameter types (a NULL's type is inferred, an integer's
    /// is not), each under a name of its own; emptied when the session is opened again, which forgets them.
    private var prepared: [PreparedKey: String] = [:]
    private var preparedSession = 0
    private var preparedNames = 0
    /// Statements past this many distinct texts run unprepared (a list of `?` per item makes a text per length).
    static let preparedLimit = 400

    private struct PreparedKey: Hashable {
        let sql: String
        let types: [Oid]
    }

    /// How many statements this session holds prepared (tests).
    package var preparedCount: Int { preparedSession == sessions ? prepared.count : 0 }
    private(set) var changes = 0
    private(set) var writeVersion: Int64 = 0
    func noteWritten() { writeVersion += 1 }
    var dialect: SQLDialect { .postgreSQL }

    /// Faults: how long a statement waits for the server's answer before the session counts as lost. A
    /// server that stopped answering (SIGSTOP, a network partition) never closes the socket, and libpq's blocking
    /// calls would wait forever under the state lock: every request of the instance with them. `nil` waits as long
    /// as it takes (the migrations at start-up).
    static let answerDeadline: TimeInterval = 3
    package var answerDeadline: TimeInterval? = PostgreSQLConnection.answerDeadline {
        didSet { applyStatementTimeout() }
    }
    /// The server ends a statement that runs or waits for a lock this long (`statement_timeout`), a sixth before the
    /// answer deadline: a slow statement (a long lock, a big delete) then fails with its own answer (57014) and the
    /// request with a 503, while the session lives on. Only a server that does not answer at all costs the session.
    static func statementTimeout(for deadline: TimeInterval?) -> Int { deadline.map { Int($0 * 1000 * 5 / 6) } ?? 0 }
    /// After a lost session, requests fail at once for this long before the next attempt to reconnect: against a
    /// hung server each attempt waits out `connect_timeout` under the state lock.
    static let reconnectPause: TimeInterval = 2
    private var lastLost: Date?

    /// Connects to `url` (`postgres://user:password@host:port/database?…`, libpq's URI form).
    /// `applicationName` names the session in `pg_stat_activity` (the doorbell's and the upkeep's own).
    package init(url: String, applicationName: String = "musicvoting") throws(DatabaseError) {
        // "If any key word is repeated, the last value is used": anything in the URL wins over ours.
        // connect_timeout bounds a (re)connect to a server that accepts TCP but never answers (2 is libpq's least);
        // keepalives and tcp_user_timeout end a session whose peer is gone from the network, so that the doorbell,
        // which waits on the socket without a statement, notices a partition in seconds, not after hours.
        let options: KeyValuePairs<String, String> = [
            "connect_timeout": "2", "keepalives": "1", "keepalives_idle": "5", "keepalives_interval": "2",
            "keepalives_count": "3", "tcp_user_timeout": "9000", "application_name": applicationName,
            "options": "-c statement_timeout=\(Self.statementTimeout(for: Self.answerDeadline))", "dbname": url,
        ]
        let raw = Self.withCStrings(options.map(\.key) + [nil]) { keywords in
            Self.withCStrings(options.map(\.value) + [nil]) { values in PQconnectdbParams(keywords, values, 1) }
        }
        guard let raw, PQstatus(raw) == CONNECTION_OK else {
            let message = raw.map { Self.oneLine(PQerrorMessage($0)) } ?? "out of memory"
            PQfinish(raw)
            throw DatabaseError(code: 0, message: message, sqlState: "08001")
        }
        handle = raw
        // Notices ("relation already exists, skipping") stay out of the server's standard error.
        try execute("SET client_min_messages = warning")
    }

    deinit { PQfinish(handle) }

    @discardableResult
    package func run(_ sql: String, _ values: [SQLValue]) throws(DatabaseError) -> [Row] {
        try run(sql, values, preparingAnew: true)
    }

    private func run(_ sql: String, _ values: [SQLValue], preparingAnew: Bool) throws(DatabaseError) -> [Row] {
        let statement = translations[sql] ?? translate(sql)
        reconnectIfLost()
        // Integers and doubles say their type; text and NULL let the server infer it from the column (Oid 0).
        let types: [Oid] = values.map {
            switch $0 {
            case .integer: 20
            case .real: 701
            case .text, .null: 0
            }
        }
        let texts: [String?] = values.map {
            switch $0 {
            case .text(let text): text
            case .integer(let number): String(number)
            case .real(let number): String(number)
            case .null: nil
            }
        }
        guard let name = try preparedName(sql: sql, statement: statement, types: types) else {
            let sent = Self.withCStrings(texts) { parameters in
                PQsendQueryParams(handle, statement, Int32(values.count), types, parameters, nil, nil, 0)
            }
            return try check(try awaitResult(sent: sent, sql: sql), sql: sql)
        }
        let sent = Self.withCStrings(texts) { parameters in PQsendQueryPrepared(handle, name, Int32(values.count), parameters, nil, nil, 0) }
        do {
            return try check(try awaitResult(sent: sent, sql: sql), sql: sql)
        } catch where error.sqlState == "0A000" || error.sqlState == "26000" {
            // The statement's plan no longer fits the schema (another instance migrated it: "cached plan must not
            // change result type"), or the server forgot it: prepared anew under a new name, at once outside a
            // transaction (where nothing of the statement took effect), else at the next call.
            prepared[PreparedKey(sql: sql, types: types)] = nil
            if preparingAnew, !isInTransaction { return try run(sql, values, preparingAnew: false) }
            throw error
        }
    }

    /// The name `statement` is prepared under in this session, preparing it first (one round trip, once); nil when
    /// it runs unprepared (`preparedLimit`).
    private func preparedName(sql: String, statement: String, types: [Oid]) throws(DatabaseError) -> String? {
        if preparedSession != sessions {
            prepared.removeAll()
            preparedSession = sessions
        }
        let key = PreparedKey(sql: sql, types: types)
        if let name = prepared[key] { return name }
        guard prepared.count < Self.preparedLimit else { return nil }
        preparedNames += 1
        let name = "mv\(preparedNames)"
        try check(try awaitResult(sent: PQsendPrepare(handle, name, statement, Int32(types.count), types), sql: sql), sql: sql)
        prepared[key] = name
        return name
    }

    /// `run`, tried once more when a session that looked open had ended (a database restart since the last call: its
    /// first statement finds out). Outside a transaction only, where nothing of the statement took effect.
    @discardableResult
    package func runReconnecting(_ sql: String, _ values: [SQLValue]) throws(DatabaseError) -> [Row] {
        do { return try run(sql, values) } catch where error.isConnectionFailure && !isInTransaction && !isConnected {
            return try run(sql, values)
        }
    }

    func insert(_ sql: String, _ values: [SQLValue]) throws(DatabaseError) -> Int64 {
        let returning = sql + " " + (dialect.returningID ?? "")
        guard let id = try run(returning, values).first?.integer("id") else {
            throw DatabaseError(code: 0, message: "the insert returned no id", sql: returning, sqlState: "")
        }
        return id
    }

    package func execute(_ sql: String) throws(DatabaseError) {
        reconnectIfLost()
        try check(try awaitResult(sent: PQsendQuery(handle, sql), sql: sql), sql: sql)
    }

    func control(_ sql: String) throws(DatabaseError) { try execute(sql) }

    package var isInTransaction: Bool { [PQTRANS_INTRANS, PQTRANS_INERROR, PQTRANS_ACTIVE].contains(PQtransactionStatus(handle)) }

    /// A failed statement aborts a PostgreSQL transaction, and COMMIT then rolls back without an error.
    package func checkCommittable() throws(DatabaseError) {
        guard PQtransactionStatus(handle) != PQTRANS_INERROR else {
            throw DatabaseError(code: 0, message: "a statement in this transaction failed", sqlState: "25P02")
        }
    }

    /// PostgreSQL manages its own log.
    func checkpoint() {}

    private func translate(_ sql: String) -> String {
        let statement = dialect.parameters(sql)
        translations[sql] = statement
        return statement
    }

    /// A connection the server dropped (a restart) is opened again between transactions, never inside one:
    /// there the statements that already ran are gone, so the transaction has to fail. Not again within
    /// `reconnectPause` of losing it: meanwhile the statement fails at once on the closed connection (a 503).
    private func reconnectIfLost() {
        guard !isInTransaction, PQstatus(handle) == CONNECTION_BAD else { return }
        if let lastLost, Date().timeIntervalSince(lastLost) < Self.reconnectPause { return }
        lastLost = reset() ? nil : Date()
    }

    /// The result of what was just sent (`PQsendQuery…`; for several statements the first error, else the last
    /// result), waiting in poll(2) on the socket until `answerDeadline`. Past it the session is given up: its socket
    /// is shut, so libpq sees the connection end, and the next statement reconnects (after `reconnectPause`).
    private func awaitResult(sent: Int32, sql: String) throws(DatabaseError) -> OpaquePointer? {
        guard sent == 1 else { return nil }
        let started = DispatchTime.now().uptimeNanoseconds
        defer {
            StoreMetrics.postgreSQLRoundTrips.add()
            StoreMetrics.postgreSQLRoundTripDuration.observeNanoseconds(since: started, now: DispatchTime.now().uptimeNanoseconds)
        }
        let deadline = answerDeadline.map { Date().addingTimeInterval($0) }
        var kept: OpaquePointer?
        while true {
            while PQisBusy(handle) == 1 {
                guard waitForAnswer(until: deadline) else {
                    if let kept { PQclear(kept) }
                    abandonSession()
                    throw DatabaseError(code: 0, message: "no answer from the database within \(answerDeadline ?? 0) s",
                                        sql: sql, sqlState: "08006")
                }
                if PQconsumeInput(handle) == 0 { break }
            }
            guard let result = PQgetResult(handle) else { return kept }
            if let previous = kept {
                if [PGRES_COMMAND_OK, PGRES_TUPLES_OK].contains(PQresultStatus(previous)) { PQclear(previous) } else {
                    PQclear(result)
                    continue
                }
            }
            kept = result
        }
    }

    /// Whether the socket has something to read before `deadline` (nil: no deadline). A poll(2) error counts as
    /// readable: PQconsumeInput then reports what is wrong.
    private func waitForAnswer(until deadline: Date?) -> Bool {
        var descriptor = pollfd(fd: PQsocket(handle), events: Int16(POLLIN), revents: 0)
        guard descriptor.fd >= 0 else { return true }
        while true {
            var milliseconds: Int32 = -1
            if let deadline {
                let remaining = deadline.timeIntervalSinceNow
                guard remaining > 0 else { return false }
                milliseconds = Int32((remaining * 1000).rounded(.up))
            }
            let ready = poll(&descriptor, 1, milliseconds)
            if ready > 0 || (ready < 0 && errno != EINTR) { return true }
        }
    }

    /// Ends a session that stopped answering on this side: libpq reads the end of the stream, marks the connection
    /// bad and drops its socket; what it held on the server ends when the server sees the close.
    private func abandonSession() {
        let socket = PQsocket(handle)
        if socket >= 0 { shutdown(socket, Int32(SHUT_RDWR)) }
        _ = PQconsumeInput(handle)
        while let result = PQgetResult(handle) { PQclear(result) }
        lastLost = Date()
    }

    // MARK: Listening (the doorbell's connection)

    /// The socket to wait on for notifications (`PQsocket`), -1 without a connection.
    package var socket: Int32 { PQsocket(handle) }

    package var isConnected: Bool { PQstatus(handle) == CONNECTION_OK }

    /// The server's process for this session (`PQbackendPID`): notifications it sent itself carry it.
    package var backendPID: Int32 { PQbackendPID(handle) }

    /// Opens the connection again (`PQreset`); whether it is up now. A new session: LISTEN again.
    package func reset() -> Bool {
        PQreset(handle)
        sessions += 1
        if answerDeadline != Self.answerDeadline { applyStatementTimeout() }
        return isConnected
    }

    /// This session's `statement_timeout` for the answer deadline it has now (none while it has none: migrations).
    private func applyStatementTimeout() {
        guard isConnected else { return }
        do { try execute("SET statement_timeout = \(Self.statementTimeout(for: answerDeadline))") } catch {
            // The session is lost: the next statement reconnects, and `reset` sets it again.
        }
    }

    /// Counts the sessions this connection opened: a LISTEN holds only as long as the session it was sent in.
    package private(set) var sessions = 1

    /// Reads what arrived on the socket and returns the notifications it carried: "PQconsumeInput … If there was
    /// some kind of trouble, returns 0"; a server that ended the session leaves the connection bad.
    package func receiveNotifications() throws(DatabaseError) -> [(channel: String, payload: String, senderPID: Int32)] {
        guard PQconsumeInput(handle) == 1, isConnected else {
            throw DatabaseError(code: 0, message: Self.oneLine(PQerrorMessage(handle)), sqlState: "08006")
        }
        var received: [(String, String, Int32)] = []
        while let notification = PQnotifies(handle) {
            received.append((String(cString: notification.pointee.relname), String(cString: notification.pointee.extra),
                             notification.pointee.be_pid))
            PQfreemem(notification)
        }
        return received
    }

    /// The rows of a successful result, or its error with SQLSTATE and the SQL; frees the result either way.
    @discardableResult
    private func check(_ result: OpaquePointer?, sql: String) throws(DatabaseError) -> [Row] {
        guard let result else {
            throw DatabaseError(code: 0, message: Self.oneLine(PQerrorMessage(handle)), sql: sql, sqlState: "08006")
        }
        defer { PQclear(result) }
        let status = PQresultStatus(result)
        guard status == PGRES_COMMAND_OK || status == PGRES_TUPLES_OK else {
            let message = mv_pq_primary_message(result).map { String(cString: $0) } ?? Self.oneLine(PQresultErrorMessage(result))
            // A lost connection's errors come from libpq itself, without a SQLSTATE: name them as PostgreSQL would.
            let sqlState = mv_pq_sqlstate(result).map { String(cString: $0) } ?? (isConnected ? "" : "08006")
            throw DatabaseError(code: 0, message: message, sql: sql, sqlState: sqlState)
        }
        changes = Int(String(cString: PQcmdTuples(result))) ?? 0
        if changes > 0 && !String(cString: PQcmdStatus(result)).hasPrefix("SELECT") { writeVersion += Int64(changes) }
        return Self.rows(of: result)
    }

    /// Every row, read by column name; integers, doubles and booleans by the column's type, the rest as text.
    private static func rows(of result: OpaquePointer) -> [Row] {
        let fields = PQnfields(result)
        var columns: [String: Int] = [:]
        for field in 0..<fields { columns[String(cString: PQfname(result, field))] = Int(field) }
        let types = (0..<fields).map { PQftype(result, $0) }
        return (0..<PQntuples(result)).map { row in
            Row(values: (0..<fields).map { field in
                if PQgetisnull(result, row, field) == 1 { return .null }
                let text = String(cString: PQgetvalue(result, row, field))
                switch types[Int(field)] {
                case 20, 21, 23: return Int64(text).map(SQLValue.integer) ?? .text(text)  // int8, int2, int4
                case 700, 701: return Double(text).map(SQLValue.real) ?? .text(text)     // float4, float8
                case 16: return .integer(text == "t" ? 1 : 0)                             // bool
                default: return .text(text)
                }
            }, columns: columns)
        }
    }

    /// libpq's messages span lines ("…failed: Connection refused\n\tIs the server running…"): one line for a log.
    private static func oneLine(_ message: UnsafePointer<CChar>?) -> String {
        guard let message else { return "unknown error" }
        return String(cString: message).split(whereSeparator: \.isNewline)
            .map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }.joined(separator: " ")
    }

    /// C copies of `strings` (nil stays NULL) for the length of `body`.
    private static func withCStrings<Result>(_ strings: [String?], _ body: ([UnsafePointer<CChar>?]) -> Result) -> Result {
        let copies = strings.map { $0.flatMap { strdup($0) } }
        defer { copies.forEach { free($0) } }
        return body(copies.map { $0.map { UnsafePointer($0) } })
    }
}

extension PostgreSQLConnection {
    /// `body` in one transaction (a savepoint inside another), rolled back when it throws: for the sessions of the
    /// instances' shared concerns, which keep their own connections.
    package func inTransaction<T>(_ body: () throws -> T) throws -> T {
        try transaction(body)
    }
}
