package dev.egressproxies.kvm.common.ssh;

import java.nio.file.Path;
import java.util.Objects;

/**
 * How an SSH tunnel decides whether to trust the key a host presents.
 *
 * <p>The default and only safe choice is {@link #knownHosts(Path)}: the key must match an entry of
 * an OpenSSH known_hosts file ({@code [host]:port} for ports other than 22). {@link
 * #insecureIgnoreHostKey()} accepts any key; it is an explicit opt-in for throwaway test machines,
 * because it lets anyone who can intercept the connection pose as the hypervisor and read or
 * change everything sent to libvirt.
 */
public sealed interface HostKeyPolicy {

    /** Returns the policy that checks host keys against the known_hosts file at {@code file}. */
    static HostKeyPolicy knownHosts(Path file) {
        return new KnownHostsFile(file);
    }

    /** Returns the insecure policy that accepts any host key, logging a warning at every connection. */
    static HostKeyPolicy insecureIgnoreHostKey() {
        return new InsecureIgnoreHostKey();
    }

    /**
     * The policy that accepts only keys recorded for the host in an OpenSSH known_hosts file. The
     * file is read at every connection, so fixing it heals the next attempt.
     */
    record KnownHostsFile(Path file) implements HostKeyPolicy {
        /** Checks that a file is given. */
        public KnownHostsFile {
            Objects.requireNonNull(file, "known_hosts file");
        }
    }

    /** The insecure policy that accepts whatever key the host presents. */
    record InsecureIgnoreHostKey() implements HostKeyPolicy {
    }
}
