package dev.egressproxies.kvm.common.ssh;

import java.nio.file.Path;
import java.util.Objects;

/** How an SSH tunnel decides whether to trust the key a host presents. */
public sealed interface HostKeyPolicy {

    /** Returns the policy that accepts only keys recorded for the host in the known_hosts file at {@code file}. */
    static HostKeyPolicy knownHosts(Path file) {
        return new KnownHostsFile(file, UnknownHosts.REFUSE);
    }

    /** Returns the insecure policy that accepts any host key, logging a warning at every connection. */
    static HostKeyPolicy insecureIgnoreHostKey() {
        return new InsecureIgnoreHostKey();
    }

    /**
     * What happens to a host that has no entry in known_hosts, as OpenSSH's
     * {@code StrictHostKeyChecking} says; a changed or revoked key is refused in every case.
     */
    enum UnknownHosts {
        /** {@code yes} (and {@code ask}, as there is nobody to ask): refused. */
        REFUSE,
        /** {@code no}: accepted with a warning, not recorded. */
        ACCEPT,
        /** {@code accept-new}: accepted with a warning and appended to the known_hosts file. */
        ACCEPT_AND_RECORD
    }

    /**
     * The policy that checks keys against an OpenSSH known_hosts file.
     *
     * @param file         the known_hosts file, read at every connection
     * @param unknownHosts what happens to a host the file does not list
     */
    record KnownHostsFile(Path file, UnknownHosts unknownHosts) implements HostKeyPolicy {
        /** Checks that both are given. */
        public KnownHostsFile {
            Objects.requireNonNull(file, "known_hosts file");
            Objects.requireNonNull(unknownHosts, "unknownHosts");
        }
    }

    /** The insecure policy that accepts whatever key the host presents. */
    record InsecureIgnoreHostKey() implements HostKeyPolicy {
    }
}
