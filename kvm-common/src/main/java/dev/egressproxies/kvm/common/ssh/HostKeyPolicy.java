package dev.egressproxies.kvm.common.ssh;

import java.nio.file.Path;
import java.util.Objects;

/** How an SSH tunnel decides whether to trust the key a host presents. */
public sealed interface HostKeyPolicy {

    /** Returns the policy that checks host keys against the known_hosts file at {@code file}. */
    static HostKeyPolicy knownHosts(Path file) {
        return new KnownHostsFile(file);
    }

    /** Returns the insecure policy that accepts any host key, logging a warning at every connection. */
    static HostKeyPolicy insecureIgnoreHostKey() {
        return new InsecureIgnoreHostKey();
    }

    /** The policy that accepts only keys recorded for the host in an OpenSSH known_hosts file. */
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
