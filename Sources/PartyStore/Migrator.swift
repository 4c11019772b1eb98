extension Database {
    /// Applies the migrations this file does not have yet, each in its own transaction.
    func migrate(_ migrations: [String]) throws {
        let current = try prepare("PRAGMA user_version").run().first?.integer("user_version") ?? 0
        guard current <= migrations.count else {
            throw DatabaseError(code: 0, message: "database schema \(current) is newer than this server (\(migrations.count))")
        }
        for (index, sql) in migrations.enumerated().dropFirst(Int(current)) {
            try transaction {
                try execute(sql)
                try execute("PRAGMA user_version = \(index + 1)")
            }
        }
    }

    var schemaVersion: Int {
        get throws { Int(try prepare("PRAGMA user_version").run().first?.integer("user_version") ?? 0) }
    }
}
