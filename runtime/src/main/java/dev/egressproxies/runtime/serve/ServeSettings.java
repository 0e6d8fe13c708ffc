package dev.egressproxies.runtime.serve;

import dev.egressproxies.runtime.config.ConfigException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.UnknownHostException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;

/**
 * How {@code egressctl serve} runs, from its command line.
 *
 * @param listen          the API's address
 * @param resync          how often every entry is reconciled even without a change
 * @param grace           how long operations in flight may finish after SIGTERM or SIGINT
 * @param tlsCertificate  the PEM certificate chain for HTTPS, or null
 * @param tlsKey          the PEM (PKCS#8) private key for HTTPS, or null
 * @param tokenFile       the file holding the API token, or null
 * @param logFormat       text or JSON log lines
 * @param confirmDeletes  entries (or {@code all}) whose first held deletes are confirmed at start
 * @param perHost         how many operations may run at once against one host
 * @param backoff         the wait of a proxy after failures
 */
public record ServeSettings(InetSocketAddress listen, Duration resync, Duration grace,
                            Path tlsCertificate, Path tlsKey, Path tokenFile, LogFormat logFormat,
                            Set<String> confirmDeletes, int perHost, Backoff backoff) {
    /** The default address: loopback only. */
    public static final String DEFAULT_LISTEN = "127.0.0.1:8484";

    /**
     * Checks the settings together, before anything starts.
     *
     * @throws ConfigException naming every missing or conflicting setting
     */
    public ServeSettings {
        confirmDeletes = Set.copyOf(confirmDeletes);
        List<String> problems = new ArrayList<>();
        if (resync.compareTo(Duration.ofSeconds(1)) < 0) {
            problems.add("--resync " + resync + " is too short: use at least 1s");
        }
        if (grace.isNegative()) {
            problems.add("--grace is negative: use 0s or more");
        }
        if (perHost < 1) {
            problems.add("--per-host " + perHost + ": use at least 1");
        }
        if ((tlsCertificate == null) != (tlsKey == null)) {
            problems.add(tlsCertificate == null ? "--tls-key is set without --tls-cert: give both, or neither"
                    : "--tls-cert is set without --tls-key: give both, or neither");
        }
        if (!isLoopback(listen)) {
            if (tlsCertificate == null && tlsKey == null) {
                problems.add("--listen " + listen.getHostString() + " is not a loopback address, so serve needs TLS:"
                        + " set --tls-cert and --tls-key (PEM files)");
            }
            if (tokenFile == null) {
                problems.add("--listen " + listen.getHostString() + " is not a loopback address, so serve needs an API"
                        + " token: set --token-file (a file holding the token)");
            }
        }
        if (!problems.isEmpty()) {
            throw new ConfigException("egressctl serve cannot start: " + String.join("; ", problems));
        }
    }

    /** Whether the API listens on loopback only. */
    public boolean loopback() {
        return isLoopback(listen);
    }

    /**
     * Parses {@code HOST:PORT} ({@code [IPV6]:PORT} for IPv6 addresses); port 0 picks a free one.
     *
     * @throws ConfigException when it is not such an address
     */
    public static InetSocketAddress parseListen(String value) {
        int colon = value.lastIndexOf(':');
        String usage = "--listen '" + value + "' is not HOST:PORT, like " + DEFAULT_LISTEN + " or [::1]:8484";
        if (colon <= 0) {
            throw new ConfigException(usage);
        }
        String host = value.substring(0, colon);
        if (host.startsWith("[") && host.endsWith("]")) {
            host = host.substring(1, host.length() - 1);
        }
        int port;
        try {
            port = Integer.parseInt(value.substring(colon + 1));
        } catch (NumberFormatException e) {
            throw new ConfigException(usage);
        }
        if (port < 0 || port > 65535) {
            throw new ConfigException(usage + " (the port is 0 to 65535)");
        }
        try {
            return new InetSocketAddress(InetAddress.getByName(host), port);
        } catch (UnknownHostException e) {
            throw new ConfigException("--listen host '" + host + "' does not resolve: give an address such as 127.0.0.1");
        }
    }

    private static boolean isLoopback(InetSocketAddress address) {
        return address.getAddress() != null && address.getAddress().isLoopbackAddress();
    }
}
