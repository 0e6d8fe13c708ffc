package dev.egressproxies.kvm.common.ssh;

import java.nio.file.Path;
import java.util.List;
import java.util.Objects;

/**
 * One SSH server on the way to a hypervisor, a jump host or the hypervisor itself, logged in to
 * with its own user and keys and checked against its own host key policy, as OpenSSH does.
 *
 * @param keyFiles        the private key files offered, in order; may be empty when an agent holds the keys
 * @param defaultKeyFiles OpenSSH's default identities that exist, offered when no key file is named: each is
 *                        passed over (as OpenSSH does) when it cannot be used, rather than failing the dial
 * @param algorithms      the key exchanges, ciphers and MACs offered to this hop
 */
public record SshHop(String host, int port, String user, List<Path> keyFiles, HostKeyPolicy hostKeyPolicy,
                     List<Path> defaultKeyFiles, SshAlgorithms algorithms) {

    /** Checks every field, so a connection is never attempted with settings that cannot work. */
    public SshHop {
        requireText(host, "host");
        if (port < 1 || port > 65535) {
            throw new IllegalArgumentException("SSH port must be between 1 and 65535, got " + port);
        }
        requireText(user, "user");
        keyFiles = List.copyOf(keyFiles);
        Objects.requireNonNull(hostKeyPolicy, "hostKeyPolicy");
        defaultKeyFiles = List.copyOf(defaultKeyFiles);
        Objects.requireNonNull(algorithms, "algorithms");
    }

    /** A hop offered this client's default algorithms. */
    public SshHop(String host, int port, String user, List<Path> keyFiles, HostKeyPolicy hostKeyPolicy,
            List<Path> defaultKeyFiles) {
        this(host, port, user, keyFiles, hostKeyPolicy, defaultKeyFiles, SshAlgorithms.DEFAULT);
    }

    /** A hop without default identities: its keys are named, or the agent holds them. */
    public SshHop(String host, int port, String user, List<Path> keyFiles, HostKeyPolicy hostKeyPolicy) {
        this(host, port, user, keyFiles, hostKeyPolicy, List.of(), SshAlgorithms.DEFAULT);
    }

    /** {@code user@host:port}, as messages name the hop. */
    public String destination() {
        return user + "@" + (host.contains(":") ? "[" + host + "]" : host) + ":" + port;
    }

    static void requireText(String value, String name) {
        Objects.requireNonNull(value, name);
        if (value.isBlank()) {
            throw new IllegalArgumentException(name + " must not be blank");
        }
    }
}
