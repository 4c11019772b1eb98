/// The kit's observable models assign a property only when the value really changes: Observation reports every
/// write, so an equal write (a repeated `progress` event) would make a SwiftUI view redraw for nothing.
@MainActor
protocol AssignsChanges: AnyObject {}

extension AssignsChanges {
    func set<Value: Equatable>(_ keyPath: ReferenceWritableKeyPath<Self, Value>, _ value: Value) {
        if self[keyPath: keyPath] != value { self[keyPath: keyPath] = value }
    }
}
