package dev.egressproxies.fake.state;

import java.net.InetAddress;
import java.net.UnknownHostException;
import java.time.Instant;

/**
 * Which process, on which host, did something to a state file: what its lock holder line and its
 * operation log record name.
 *
 * @param pid     the process ID
 * @param started when the process started, {@code null} when the OS does not tell; with the PID it
 *                tells a process from a later one that was given the same PID
 * @param host    the host name
 */
record ProcessIdentity(long pid, Instant started, String host) {
    /** This process; resolved once, as a host name lookup may be slow and none of it changes. */
    static final ProcessIdentity CURRENT = new ProcessIdentity(ProcessHandle.current().pid(),
            ProcessHandle.current().info().startInstant().orElse(null), hostName());

    private static String hostName() {
        String fromEnvironment = System.getenv().getOrDefault("HOSTNAME", "");
        if (!fromEnvironment.isBlank() && !fromEnvironment.contains(" ")) {
            return fromEnvironment;
        }
        try {
            return InetAddress.getLocalHost().getHostName();
        } catch (UnknownHostException unknown) {
            return "unknown-host";
        }
    }
}
