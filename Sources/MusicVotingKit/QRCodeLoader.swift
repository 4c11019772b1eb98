import Foundation
import Observation

/// The party's QR code: loading, then the PNG bytes or why it failed; never an invisible placeholder.
@MainActor
@Observable
public final class QRCodeLoader: AssignsChanges {
    public enum State: Equatable, Sendable { case loading, loaded(Data), failed(String) }
    public private(set) var state: State = .loading

    @ObservationIgnored let client: MusicVotingClient
    @ObservationIgnored let partyId: String

    public init(client: MusicVotingClient, partyId: String) { self.client = client; self.partyId = partyId }

    public func load() async {
        set(\.state, .loading)
        do {
            let png = try await client.qrCode(partyId)
            set(\.state, png.starts(with: [0x89, 0x50, 0x4E, 0x47]) ? .loaded(png) : .failed("not a PNG"))
        } catch {
            set(\.state, .failed(error.serverMessage ?? KitStrings()[.backendUnreachable]))
        }
    }
}
