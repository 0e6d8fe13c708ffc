package dev.egressproxies.kvm.common.ssh;

import java.nio.file.Path;
import java.time.Duration;
import java.util.Objects;

/**
 * Everything needed to open an {@link SshTunnel} to one hypervisor: where sshd listens, who to log
 * in as, which key to use, how to check the host's key, which unix socket to forward, and the
 * timeouts that keep a dead or silent host from pinning a caller.
 */
public record SshTunnelSettings(
        String host,
        int port,
        String user,
        Path privateKeyFile,
        HostKeyPolicy hostKeyPolicy,
        String remoteSocketPath,
        Duration handshakeTimeout,
        Duration keepaliveInterval,
        int keepaliveMaxMissed) {

    /** The port sshd listens on unless told otherwise. */
    public static final int DEFAULT_PORT = 22;
    /** Long enough for a loaded host, short enough that a half-open one does not pin a worker. */
    public static final Duration DEFAULT_HANDSHAKE_TIMEOUT = Duration.ofSeconds(30);
    /** The interval of the reference implementation's keepalive loop. */
    public static final Duration DEFAULT_KEEPALIVE_INTERVAL = Duration.ofSeconds(15);
    /** One slow reply is forgiven; two missed in a row close the link (within 45 s by default). */
    public static final int DEFAULT_KEEPALIVE_MAX_MISSED = 2;

    /** Checks every field, so a tunnel is never attempted with settings that cannot work. */
    public SshTunnelSettings {
        requireText(host, "host");
        if (port < 1 || port > 65535) {
            throw new IllegalArgumentException("SSH port must be between 1 and 65535, got " + port);
        }
        requireText(user, "user");
        Objects.requireNonNull(privateKeyFile, "privateKeyFile");
        Objects.requireNonNull(hostKeyPolicy, "hostKeyPolicy");
        requireText(remoteSocketPath, "remoteSocketPath");
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

    /** Returns settings with the default handshake timeout and keepalive. */
    public static SshTunnelSettings of(
            String host, int port, String user, Path privateKeyFile, HostKeyPolicy hostKeyPolicy,
            String remoteSocketPath) {
        return new SshTunnelSettings(host, port, user, privateKeyFile, hostKeyPolicy, remoteSocketPath,
                DEFAULT_HANDSHAKE_TIMEOUT, DEFAULT_KEEPALIVE_INTERVAL, DEFAULT_KEEPALIVE_MAX_MISSED);
    }

    /** Returns a copy with another handshake timeout. */
    public SshTunnelSettings withHandshakeTimeout(Duration timeout) {
        return new SshTunnelSettings(host, port, user, privateKeyFile, hostKeyPolicy, remoteSocketPath,
                timeout, keepaliveInterval, keepaliveMaxMissed);
    }

    /** Returns a copy with another keepalive interval and number of tolerated missed replies. */
    public SshTunnelSettings withKeepalive(Duration interval, int maxMissed) {
        return new SshTunnelSettings(host, port, user, privateKeyFile, hostKeyPolicy, remoteSocketPath,
                handshakeTimeout, interval, maxMissed);
    }

    /** Returns a copy that forwards another unix socket of the host. */
    public SshTunnelSettings withRemoteSocketPath(String path) {
        return new SshTunnelSettings(host, port, user, privateKeyFile, hostKeyPolicy, path,
                handshakeTimeout, keepaliveInterval, keepaliveMaxMissed);
    }

    /** Returns {@code user@host:port}, the way log lines and error messages name the connection. */
    public String destination() {
        return user + "@" + host + ":" + port;
    }

    private static void requireText(String value, String name) {
        Objects.requireNonNull(value, name);
        if (value.isBlank()) {
            throw new IllegalArgumentException(name + " must not be blank");
        }
    }

    private static void requirePositive(Duration value, String name) {
        Objects.requireNonNull(value, name);
        if (value.isNegative() || value.isZero()) {
            throw new IllegalArgumentException(name + " must be positive, got " + value);
        }
    }
}
