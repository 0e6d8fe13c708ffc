package dev.egressproxies.kvm.common.config;

import dev.egressproxies.kvm.common.host.HostDialer;
import dev.egressproxies.kvm.common.ssh.HostKeyPolicy;
import dev.egressproxies.kvm.common.ssh.SshHostDialer;
import dev.egressproxies.kvm.common.ssh.SshTunnelSettings;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.function.Function;
import java.util.stream.Collectors;

/**
 * How a KVM provider entry logs in to its hosts over SSH: the checked form of the entry's
 * {@code sshKeyFile}, {@code knownHostsFile}, {@code insecureIgnoreHostKey},
 * {@code handshakeTimeout} and {@code keepaliveInterval} settings, and the production dialer built
 * from them.
 */
public record SshAccess(Path sshKeyFile, Path knownHostsFile, Boolean insecureIgnoreHostKey,
                        Duration handshakeTimeout, Duration keepaliveInterval) {
    /** Long enough for a loaded host, short enough that a half-open one does not pin a caller. */
    public static final Duration DEFAULT_HANDSHAKE_TIMEOUT = Duration.ofSeconds(30);
    /** Notices a dead link within a few intervals rather than at the TCP stack's leisure. */
    public static final Duration DEFAULT_KEEPALIVE_INTERVAL = Duration.ofSeconds(15);

    /** Applies defaults and rejects settings that cannot work, naming the setting to fix and how. */
    public SshAccess {
        if (sshKeyFile == null || sshKeyFile.toString().isBlank()) {
            throw new IllegalArgumentException("sshKeyFile: required; the unencrypted private key (ed25519, RSA or"
                    + " ECDSA) that logs in to every host, for example /etc/egress/kvm/id_ed25519");
        }
        insecureIgnoreHostKey = insecureIgnoreHostKey != null && insecureIgnoreHostKey;
        boolean knownHostsGiven = knownHostsFile != null && !knownHostsFile.toString().isBlank();
        if (insecureIgnoreHostKey && knownHostsGiven) {
            throw new IllegalArgumentException("knownHostsFile: set together with insecureIgnoreHostKey: true, which"
                    + " ignores it; remove one of the two (keep knownHostsFile unless this is a test machine)");
        }
        if (!insecureIgnoreHostKey && !knownHostsGiven) {
            throw new IllegalArgumentException("knownHostsFile: required, so the hosts' SSH keys can be checked;"
                    + " write it with 'ssh-keyscan -p PORT HOST', or set insecureIgnoreHostKey: true on test"
                    + " machines only");
        }
        handshakeTimeout = ConfigChecks.positive("handshakeTimeout", handshakeTimeout, DEFAULT_HANDSHAKE_TIMEOUT);
        keepaliveInterval = ConfigChecks.positive("keepaliveInterval", keepaliveInterval, DEFAULT_KEEPALIVE_INTERVAL);
    }

    /**
     * The SSH tunnel settings of one host: its address, port, user and socket with this entry's
     * key, host-key policy and timeouts.
     */
    public SshTunnelSettings tunnelSettings(HostSettings host) {
        HostKeyPolicy hostKeys = insecureIgnoreHostKey
                ? HostKeyPolicy.insecureIgnoreHostKey()
                : HostKeyPolicy.knownHosts(knownHostsFile);
        return SshTunnelSettings.of(host.address(), host.port(), host.user(), sshKeyFile, hostKeys, host.socket())
                .withHandshakeTimeout(handshakeTimeout)
                .withKeepalive(keepaliveInterval, SshTunnelSettings.DEFAULT_KEEPALIVE_MAX_MISSED);
    }

    /**
     * The production dialer of the hosts: per host, kvm-common's SSH tunnel forwarding the host's
     * libvirt socket, and libvirt-java connected to the forwarded socket. Nothing is dialled here;
     * the key and known_hosts files are read at each dial.
     */
    public HostDialer dialer(List<HostSettings> hosts) {
        Map<String, HostSettings> byName = hosts.stream()
                .collect(Collectors.toUnmodifiableMap(HostSettings::name, Function.identity()));
        return new SshHostDialer(endpoint -> tunnelSettings(byName.get(endpoint.name())));
    }

    /**
     * How long one dial may take: the SSH handshake and then libvirt's own handshake get the
     * handshake budget twice over; each caller still waits no longer than its own deadline.
     */
    public Duration dialTimeout() {
        return handshakeTimeout.multipliedBy(2);
    }
}
