package dev.egressproxies.kvm.common.ssh;

import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Objects;
import java.util.stream.Collectors;
import java.util.stream.Stream;

/**
 * Everything needed to open an {@link SshTunnel} to one hypervisor.
 *
 * @param target             the hypervisor's sshd
 * @param jumps              the jump hosts in connection order ({@code ProxyJump}); empty for a direct connection
 * @param agentSocket        the ssh-agent whose keys every hop is offered; null for none
 * @param passphraseFile     the file whose first line decrypts key files; null for none
 * @param remoteSocketPath   the unix socket on the hypervisor that the tunnel reaches
 * @param handshakeTimeout   the limit for connecting and logging in, all hops together
 * @param keepaliveInterval  how often an idle connection is probed
 * @param keepaliveMaxMissed how many probes in a row may go unanswered before the link is closed
 */
public record SshTunnelSettings(SshHop target, List<SshHop> jumps, Path agentSocket, Path passphraseFile,
        String remoteSocketPath, Duration handshakeTimeout, Duration keepaliveInterval, int keepaliveMaxMissed) {
    public static final int DEFAULT_PORT = 22;
    /** Long enough for a loaded host, short enough that a half-open one does not pin a worker. */
    public static final Duration DEFAULT_HANDSHAKE_TIMEOUT = Duration.ofSeconds(30);
    public static final Duration DEFAULT_KEEPALIVE_INTERVAL = Duration.ofSeconds(15);
    /** One slow reply is forgiven; two missed in a row close the link (within 45 s by default). */
    public static final int DEFAULT_KEEPALIVE_MAX_MISSED = 2;

    /** Checks every field, so a tunnel is never attempted with settings that cannot work. */
    public SshTunnelSettings {
        Objects.requireNonNull(target, "target");
        jumps = List.copyOf(jumps);
        SshHop.requireText(remoteSocketPath, "remoteSocketPath");
        if (!remoteSocketPath.startsWith("/")) {
            throw new IllegalArgumentException(
                    "the remote socket path must be absolute, like /var/run/libvirt/libvirt-sock; got " + remoteSocketPath);
        }
        requirePositive(handshakeTimeout, "handshakeTimeout");
        requirePositive(keepaliveInterval, "keepaliveInterval");
        if (keepaliveMaxMissed < 1) {
            throw new IllegalArgumentException("keepaliveMaxMissed must be at least 1, got " + keepaliveMaxMissed);
        }
    }

    /** Settings of a direct connection with one key file, no agent, and the default timeout and keepalive. */
    public static SshTunnelSettings of(String host, int port, String user, Path privateKeyFile,
            HostKeyPolicy hostKeyPolicy, String remoteSocketPath) {
        return new SshTunnelSettings(new SshHop(host, port, user, List.of(privateKeyFile), hostKeyPolicy), List.of(),
                null, null, remoteSocketPath, DEFAULT_HANDSHAKE_TIMEOUT, DEFAULT_KEEPALIVE_INTERVAL,
                DEFAULT_KEEPALIVE_MAX_MISSED);
    }

    /** Returns a copy with another handshake timeout. */
    public SshTunnelSettings withHandshakeTimeout(Duration timeout) {
        return new SshTunnelSettings(target, jumps, agentSocket, passphraseFile, remoteSocketPath, timeout, keepaliveInterval,
                keepaliveMaxMissed);
    }

    /** Returns a copy with another keepalive interval and number of tolerated missed replies. */
    public SshTunnelSettings withKeepalive(Duration interval, int maxMissed) {
        return new SshTunnelSettings(target, jumps, agentSocket, passphraseFile, remoteSocketPath, handshakeTimeout, interval,
                maxMissed);
    }

    /** Returns a copy that forwards another unix socket of the host. */
    public SshTunnelSettings withRemoteSocketPath(String path) {
        return new SshTunnelSettings(target, jumps, agentSocket, passphraseFile, path, handshakeTimeout, keepaliveInterval,
                keepaliveMaxMissed);
    }

    /** Returns a copy that passes through {@code hops}, in that order, before the hypervisor. */
    public SshTunnelSettings withJumps(List<SshHop> hops) {
        return new SshTunnelSettings(target, hops, agentSocket, passphraseFile, remoteSocketPath, handshakeTimeout, keepaliveInterval,
                keepaliveMaxMissed);
    }

    /** Returns a copy whose hops are also offered the keys of the ssh-agent listening on {@code socket}. */
    public SshTunnelSettings withAgent(Path socket) {
        return new SshTunnelSettings(target, jumps, socket, passphraseFile, remoteSocketPath, handshakeTimeout, keepaliveInterval,
                keepaliveMaxMissed);
    }

    /** Returns a copy that decrypts key files with the passphrase in {@code file}. */
    public SshTunnelSettings withPassphraseFile(Path file) {
        return new SshTunnelSettings(target, jumps, agentSocket, file, remoteSocketPath, handshakeTimeout,
                keepaliveInterval, keepaliveMaxMissed);
    }

    /** The hops in the order they are connected: the jump hosts, then the hypervisor. */
    public List<SshHop> hops() {
        return Stream.concat(jumps.stream(), Stream.of(target)).toList();
    }

    /** {@code user@host:port} of the hypervisor, then the jump hosts if any, as messages name the connection. */
    public String destination() {
        return target.destination() + (jumps.isEmpty() ? ""
                : " (through " + jumps.stream().map(SshHop::destination).collect(Collectors.joining(", ")) + ")");
    }

    /** The effective values, as {@code check} prints them. */
    public String effectiveValues() {
        String keys = target.keyFiles().stream().map(Path::toString).collect(Collectors.joining(", "));
        if (keys.isEmpty() && !target.defaultKeyFiles().isEmpty()) {
            keys = "OpenSSH's default " + target.defaultKeyFiles().stream().map(Path::toString)
                    .collect(Collectors.joining(", "));
        }
        String hostKeys = target.hostKeyPolicy() instanceof HostKeyPolicy.KnownHostsFile knownHosts
                ? "known_hosts " + knownHosts.file() + switch (knownHosts.unknownHosts()) {
                    case REFUSE -> "";
                    case ACCEPT -> " (unknown hosts accepted)";
                    case ACCEPT_AND_RECORD -> " (unknown hosts accepted and recorded)";
                }
                : "any host key accepted (insecureIgnoreHostKey)";
        return destination() + "; keys " + (keys.isEmpty() ? "none" : keys)
                + (agentSocket == null ? "" : " and the agent's at " + agentSocket) + "; " + hostKeys
                + "; handshake timeout " + handshakeTimeout.toSeconds() + " s, keepalive every "
                + keepaliveInterval.toSeconds() + " s"
                + (target.algorithms().isDefault() ? "" : "; from ssh_config " + target.algorithms().written());
    }

    private static void requirePositive(Duration value, String name) {
        Objects.requireNonNull(value, name);
        if (value.isNegative() || value.isZero()) {
            throw new IllegalArgumentException(name + " must be positive, got " + value);
        }
    }
}
