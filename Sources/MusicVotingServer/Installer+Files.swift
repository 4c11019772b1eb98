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
    static var unitText: String {
        """
        [Unit]
        Description=MusicVoting party jukebox
        Documentation=https://github.com/2526-4ahitm-itp/2526-4ahitm-music-voting
        After=network-online.target
        Wants=network-online.target

        [Service]
        Type=simple
        User=\(user)
        Group=\(user)
        ExecStart=\(binaryPath) --config \(configPath)
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
