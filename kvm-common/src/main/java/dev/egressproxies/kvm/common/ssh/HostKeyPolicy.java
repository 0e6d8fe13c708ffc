package dev.egressproxies.kvm.common.ssh;

import java.nio.file.Path;
import java.util.Objects;

/** How an SSH tunnel decides whether to trust the key a host presents. */
public sealed interface HostKeyPolicy {

    /** Accepts only keys recorded for the host in the known_hosts file at {@code file}. */
    static HostKeyPolicy knownHosts(Path file) {
        return new KnownHostsFile(file, UnknownHosts.REFUSE);
    }

    /** Accepts any host key, logging a warning at every connection (test machines only). */
    static HostKeyPolicy insecureIgnoreHostKey() {
        return new InsecureIgnoreHostKey();
    }

    /**
     * What happens to a host that known_hosts does not list, as {@code StrictHostKeyChecking} says;
     * a changed or revoked key is refused in every case.
     */
    enum UnknownHosts {
        /** {@code yes}, and {@code ask} as there is nobody to ask. */
        REFUSE,
        /** {@code no}: accepted with a warning. */
        ACCEPT,
        /** {@code accept-new}: accepted with a warning and appended to the file. */
        ACCEPT_AND_RECORD
    }

    /** Checks keys against an OpenSSH known_hosts file, read at every connection. */
    record KnownHostsFile(Path file, UnknownHosts unknownHosts) implements HostKeyPolicy {
        public KnownHostsFile {
            Objects.requireNonNull(file, "known_hosts file");
            Objects.requireNonNull(unknownHosts, "unknownHosts");
        }
    }

    /** Accepts whatever key the host presents. */
    record InsecureIgnoreHostKey() implements HostKeyPolicy {
    }
}
