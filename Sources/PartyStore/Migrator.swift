extension SQLConnection {
    /// Applies the migrations this database does not have yet, each in its own transaction.
    func migrate(_ migrations: [String]) throws {
        if let prepare = dialect.prepareSchemaVersion { try execute(prepare) }
        let current = try schemaVersion
        guard current <= migrations.count else {
            throw DatabaseError(code: 0, message: "database schema \(current) is newer than this server (\(migrations.count))")
        }
        for (index, sql) in migrations.enumerated().dropFirst(current) {
            try transaction {
                try execute(sql)
                try execute(dialect.writeSchemaVersion(index + 1))
            }
        }
    }

    var schemaVersion: Int {
        get throws { Int(try run(dialect.readSchemaVersion, []).first?.integer("user_version") ?? 0) }
    }
}
