package dev.egressproxies.kvm.common.ssh;

import dev.egressproxies.api.ErrorKind;
import dev.egressproxies.api.ProviderException;
import dev.egressproxies.kvm.common.Call;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import org.apache.sshd.client.config.hosts.HostConfigEntry;

/**
 * An OpenSSH client configuration file ({@code ~/.ssh/config}), parsed by MINA, and what it says
 * about one host: the options this tool honours, each absent when no {@code Host} block sets it.
 * The file is read at every dial, like the key and known_hosts files.
 */
public final class OpenSshConfig {
    /** Far above any real ssh_config; a bound so a wrong path cannot exhaust the heap. */
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

    /**
     * Reads {@code file}; a missing file is an empty configuration unless {@code required}.
     *
     * @throws ProviderException of {@code dial}: TRANSIENT when a required file is missing or a file
     *     is unreadable, PERMANENT when it cannot be parsed
     */
    public static OpenSshConfig read(Path file, boolean required, Call dial) {
        byte[] content;
        try {
            content = PrivateKeyFile.readAtMost(file, MAXIMUM_BYTES).orElseThrow(() -> dial.permanent(
                    "ssh_config file " + file + " is larger than 1 MiB: point sshConfigFile at an OpenSSH client"
                            + " configuration"));
        } catch (NoSuchFileException e) {
            if (!required) {
                return new OpenSshConfig(file, List.of());
            }
            throw dial.transientFailure("ssh_config file " + file + " does not exist (yet): create it, or correct"
                    + " the entry's sshConfigFile", e);
        } catch (IOException e) {
            throw dial.transientFailure("ssh_config file " + file + " cannot be read (" + e
                    + "): check that this process may read it", e);
        }
        try {
            return new OpenSshConfig(file, HostConfigEntry.readHostConfigEntries(new ByteArrayInputStream(content), true));
        } catch (IOException | RuntimeException e) {
            throw dial.failure(ErrorKind.PERMANENT, "ssh_config file " + file + " cannot be parsed (" + e.getMessage()
                    + "): fix the line it names; 'ssh -G HOST -F " + file + "' shows how OpenSSH reads it", e);
        }
    }

    /** The file this configuration was read from. */
    public Path file() {
        return file;
    }

    /**
     * What the {@code Host} blocks matching {@code alias} set, the first value of each option
     * winning, as in OpenSSH; file names have {@code ~} and {@code %h %p %r %u %d} expanded.
     *
     * @throws ProviderException of {@code dial}, PERMANENT, when a value is not what OpenSSH allows
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
        return new HostOptions(entry.getHostName() == null ? null : hostName, entry.getPort() > 0 ? entry.getPort() : null,
                entry.getUsername(), List.copyOf(identityFiles), entry.getProxyJump(), List.copyOf(knownHostsFiles),
                unknownHosts(entry.getProperty("StrictHostKeyChecking"), dial),
                seconds("ConnectTimeout", entry.getProperty("ConnectTimeout"), dial),
                seconds("ServerAliveInterval", entry.getProperty("ServerAliveInterval"), dial),
                agent == null ? null : agent.equalsIgnoreCase("none") ? "none"
                        : agent.equals("SSH_AUTH_SOCK") ? agent : expand(agent, hostName, entry, dial).toString());
    }

    /**
     * The options of one host that this tool honours; null (or empty) where the file says nothing.
     *
     * @param hostName        {@code HostName}
     * @param port            {@code Port}
     * @param user            {@code User}
     * @param identityFiles   {@code IdentityFile}, in order
     * @param proxyJump       {@code ProxyJump}, as written ({@code none} included)
     * @param knownHostsFiles {@code UserKnownHostsFile}
     * @param unknownHosts    {@code StrictHostKeyChecking}
     * @param connectTimeout  {@code ConnectTimeout}
     * @param aliveInterval   {@code ServerAliveInterval}
     * @param identityAgent   {@code IdentityAgent}: a socket path, {@code none} or {@code SSH_AUTH_SOCK}
     */
    public record HostOptions(String hostName, Integer port, String user, List<Path> identityFiles, String proxyJump,
                              List<Path> knownHostsFiles, HostKeyPolicy.UnknownHosts unknownHosts,
                              Duration connectTimeout, Duration aliveInterval, String identityAgent) {
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
            if (seconds > 0) {
                return Duration.ofSeconds(seconds);
            }
            // OpenSSH reads 0 as "off"; this tool always bounds its handshakes and probes idle links.
            return null;
        } catch (NumberFormatException e) {
            throw dial.failure(ErrorKind.PERMANENT, "ssh_config file " + file + " sets " + option + " to '" + value
                    + "': write a whole number of seconds", e);
        }
    }
}
