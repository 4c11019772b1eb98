/// The files `musicvoting install` writes.
extension Installer {
    /// Every option as a commented line with its default (from the one option table), the data folder set.
    static var configText: String {
        var lines = ["# MusicVoting configuration: `name = value` lines, the names of `musicvoting --help`.",
                     "# Command-line flags win over MUSICVOTING_* variables, which win over this file.",
                     "# Restart after a change: systemctl restart musicvoting", ""]
        for option in ConfigurationOption.all where option.name != "config" {
            lines.append("# \(option.help) (default: \(option.defaultText))")
            if option.name == "data" {
                lines.append("data = \(dataPath)")
            } else {
                // A literal default is shown as the value; a described one ("off", "<first LAN IPv4>") as its placeholder.
                let literal = !option.defaultText.contains(" ") && !option.defaultText.contains("<") && option.defaultText != "off"
                lines.append("# \(option.name) = \(literal ? option.defaultText : option.value)")
            }
            lines.append("")
        }
        return lines.joined(separator: "\n")
    }

    /// Runs as the unprivileged user with a read-only system, writing only its data folder; restarts on failure.
    /// `systemctl restart` replaces it without a refused connection: SIGTERM starts its drain (docs/operations.md),
    /// systemd waits longer than the drain may take, and the listening socket is systemd's (`socketText`).
    static func unitText(drainSeconds: Int) -> String {
        """
        [Unit]
        Description=MusicVoting party jukebox
        Documentation=https://github.com/2526-4ahitm-itp/2526-4ahitm-music-voting
        After=network-online.target \(socketUnit)
        Wants=network-online.target
        Requires=\(socketUnit)

        [Service]
        Type=simple
        User=\(user)
        Group=\(user)
        ExecStart=\(binaryPath) --config \(configPath)
        KillSignal=SIGTERM
        TimeoutStopSec=\(stopTimeout(drainSeconds: drainSeconds))
        Restart=on-failure
        RestartSec=2
        LimitNOFILE=65536
        NoNewPrivileges=yes
        ProtectSystem=strict
        ProtectHome=read-only
        PrivateTmp=yes
        ReadWritePaths=\(dataPath)

        [Install]
        WantedBy=multi-user.target

        """
    }
}

extension Installer {
    static let socketUnit = "musicvoting.socket"

    /// systemd's wait for a stopping server: the drain's bound and time for the exit itself, so systemd never cuts a
    /// drain short with SIGKILL (the server ends itself at the bound).
    static func stopTimeout(drainSeconds: Int) -> Int { drainSeconds + 5 }

    /// systemd holds the listening socket and passes it to every server it starts (sd_listen_fds), so during
    /// `systemctl restart` connections wait in the socket's queue for the new binary instead of being refused.
    static func socketText(host: String, port: UInt16) -> String {
        let address = host.contains(":") ? "[\(host)]:\(port)" : "\(host):\(port)"
        // `::` takes IPv4 clients too, as the server's own socket does.
        let both = host.contains(":") ? "BindIPv6Only=both\n" : ""
        return """
            [Unit]
            Description=MusicVoting listening socket (kept open while the server is replaced)

            [Socket]
            ListenStream=\(address)
            \(both)Backlog=511

            [Install]
            WantedBy=sockets.target

            """
    }
}
