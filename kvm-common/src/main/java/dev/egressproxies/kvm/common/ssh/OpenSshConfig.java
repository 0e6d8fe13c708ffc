package dev.egressproxies.kvm.common.ssh;

import dev.egressproxies.api.ErrorKind;
import dev.egressproxies.kvm.common.Call;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import org.apache.sshd.client.config.hosts.HostConfigEntry;

/** An OpenSSH client configuration file ({@code ~/.ssh/config}), parsed by MINA and read at every dial. */
public final class OpenSshConfig {
    /** Far above any real ssh_config, so a wrong path cannot exhaust the heap. */
    static final int MAXIMUM_BYTES = 1024 * 1024;

    private final Path file;
    private final List<HostConfigEntry> entries;

    private OpenSshConfig(Path file, List<HostConfigEntry> entries) {
        this.file = file;
        this.entries = entries;
    }

    /** The file OpenSSH reads for the user running this process. */
    public static Path defaultFile() {
        return Path.of(System.getProperty("user.home"), ".ssh", "config");
    }

    /** Reads {@code file}, missing meaning empty unless {@code required}; fails PERMANENT when unparsable. */
    public static OpenSshConfig read(Path file, boolean required, Call dial) {
        byte[] content = PrivateKeyFile.read(file, "ssh_config file", MAXIMUM_BYTES,
                ": point sshConfigFile at an OpenSSH client configuration",
                required ? "create it, or correct the entry's sshConfigFile" : null, dial);
        if (content == null) {
            return new OpenSshConfig(file, List.of());
        }
        try {
            return new OpenSshConfig(file, HostConfigEntry.readHostConfigEntries(new ByteArrayInputStream(content), true));
        } catch (IOException | RuntimeException e) {
            throw dial.failure(ErrorKind.PERMANENT, "ssh_config file " + file + " cannot be parsed (" + e.getMessage()
                    + "): fix the line it names; 'ssh -G HOST -F " + file + "' shows how OpenSSH reads it", e);
        }
    }

    public Path file() {
        return file;
    }

    /**
     * What the {@code Host} blocks matching {@code alias} set, the first value winning as in OpenSSH,
     * with {@code ~} and {@code %h %p %r %u %d} expanded in file names; fails PERMANENT on a value OpenSSH refuses.
     */
    public HostOptions options(String alias, Call dial) {
        HostConfigEntry entry = new HostConfigEntry(alias, null, 0, null);
        HostConfigEntry.findMatchingEntries(alias, entries).forEach(entry::collate);
        String hostName = entry.getHostName() == null ? alias : entry.getHostName().replace("%h", alias);
        List<Path> identityFiles = new ArrayList<>();
        for (String identity : entry.getIdentities()) {
            identityFiles.add(expand(identity, hostName, entry, dial));
        }
        List<Path> knownHostsFiles = new ArrayList<>();
        for (String name : HostConfigEntry.parseConfigValue(entry.getProperty("UserKnownHostsFile", ""))) {
            knownHostsFiles.add(expand(name, hostName, entry, dial));
        }
        String agent = entry.getProperty(HostConfigEntry.IDENTITY_AGENT);
        SshAlgorithms algorithms;
        try {
            algorithms = SshAlgorithms.fromOpenSshConfig(entry::getProperty);
        } catch (IllegalArgumentException e) {
            throw dial.failure(ErrorKind.PERMANENT, "ssh_config file " + file + " " + e.getMessage(), e);
        }
        return new HostOptions(entry.getHostName() == null ? null : hostName, entry.getPort() > 0 ? entry.getPort() : null,
                entry.getUsername(), List.copyOf(identityFiles), entry.getProxyJump(), List.copyOf(knownHostsFiles),
                unknownHosts(entry.getProperty("StrictHostKeyChecking"), dial),
                seconds("ConnectTimeout", entry.getProperty("ConnectTimeout"), dial),
                seconds("ServerAliveInterval", entry.getProperty("ServerAliveInterval"), dial),
                agent == null ? null : agent.equalsIgnoreCase("none") ? "none"
                        : agent.equals("SSH_AUTH_SOCK") ? agent : expand(agent, hostName, entry, dial).toString(),
                algorithms);
    }

    /**
     * The options of one host this tool honours, named after their ssh_config keywords (connectTimeout:
     * ConnectTimeout, aliveInterval: ServerAliveInterval, unknownHosts: StrictHostKeyChecking); null or
     * empty where the file says nothing. proxyJump is as written ({@code none} included); identityAgent
     * is a socket path, {@code none} or {@code SSH_AUTH_SOCK}; algorithms are KexAlgorithms, Ciphers,
     * MACs and HostKeyAlgorithms applied to this client's defaults.
     */
    public record HostOptions(String hostName, Integer port, String user, List<Path> identityFiles, String proxyJump,
                              List<Path> knownHostsFiles, HostKeyPolicy.UnknownHosts unknownHosts,
                              Duration connectTimeout, Duration aliveInterval, String identityAgent,
                              SshAlgorithms algorithms) {
    }

    private Path expand(String name, String hostName, HostConfigEntry entry, Call dial) {
        try {
            return Path.of(HostConfigEntry.resolveIdentityFilePath(name, hostName,
                    entry.getPort() > 0 ? entry.getPort() : SshTunnelSettings.DEFAULT_PORT,
                    Optional.ofNullable(entry.getUsername()).orElse(System.getProperty("user.name"))));
        } catch (IOException | RuntimeException e) {
            throw dial.failure(ErrorKind.PERMANENT, "ssh_config file " + file + " names the file '" + name
                    + "', which cannot be expanded (" + e.getMessage() + "): write a plain path", e);
        }
    }

    private HostKeyPolicy.UnknownHosts unknownHosts(String value, Call dial) {
        if (value == null) {
            return null;
        }
        return switch (value.toLowerCase(Locale.ROOT)) {
            case "yes", "ask" -> HostKeyPolicy.UnknownHosts.REFUSE;
            case "no", "off" -> HostKeyPolicy.UnknownHosts.ACCEPT;
            case "accept-new" -> HostKeyPolicy.UnknownHosts.ACCEPT_AND_RECORD;
            default -> throw dial.failure(ErrorKind.PERMANENT, "ssh_config file " + file + " sets StrictHostKeyChecking"
                    + " to '" + value + "': use yes, accept-new or no", null);
        };
    }

    private Duration seconds(String option, String value, Call dial) {
        if (value == null) {
            return null;
        }
        try {
            long seconds = Long.parseLong(value.trim());
            // OpenSSH reads 0 as "off"; this tool always bounds its handshakes and probes idle links.
            return seconds > 0 ? Duration.ofSeconds(seconds) : null;
        } catch (NumberFormatException e) {
            throw dial.failure(ErrorKind.PERMANENT, "ssh_config file " + file + " sets " + option + " to '" + value
                    + "': write a whole number of seconds", e);
        }
    }
}
