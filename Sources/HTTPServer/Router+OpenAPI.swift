import JSONKit

extension Router {
    /// An OpenAPI 3.1 document generated from the registered routes, so it cannot drift from them.
    public func openAPI(title: String, version: String, securitySchemes: [(String, String)]) -> JSON {
        var order: [String] = []
        var operations: [String: [(String, JSON)]] = [:]
        for route in registered where !route.pattern.hasSuffix("*}") {
            if operations[route.pattern] == nil { order.append(route.pattern) }
            let parameters: [JSON] = route.segments.filter { $0.hasPrefix("{") }.map { segment in
                .object([("name", .string(String(segment.dropFirst().dropLast()))), ("in", "path"), ("required", true),
                         ("schema", ["type": "string"])])
            }
            var operation: [(String, JSON)] = [("summary", .string(route.summary))]
            if !parameters.isEmpty { operation.append(("parameters", .array(parameters))) }
            if let security = route.security { operation.append(("security", .array([.object([(security, .array([]))])]))) }
            operation.append(("responses", [
                "default": ["description": "See SPEC.md; errors are {\"error\": message, \"code\"?}",
                            "content": ["application/json": ["schema": ["$ref": "#/components/schemas/Error"]]]],
            ]))
            operations[route.pattern, default: []].append((route.method.lowercased(), .object(operation)))
        }
        let schemes: [(String, JSON)] = securitySchemes.map { name, description in
            (name, ["type": "http", "scheme": "bearer", "description": .string(description)])
        }
        return [
            "openapi": "3.1.0",
            "info": ["title": .string(title), "version": .string(version)],
            "paths": .object(order.map { ($0, .object(operations[$0] ?? [])) }),
            "components": [
                "securitySchemes": .object(schemes),
                "schemas": ["Error": ["type": "object", "required": ["error"],
                                      "properties": ["error": ["type": "string"], "code": ["type": "string"]]]],
            ],
        ]
    }
}
