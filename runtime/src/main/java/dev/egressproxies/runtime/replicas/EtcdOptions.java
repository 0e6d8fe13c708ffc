package dev.egressproxies.runtime.replicas;

import dev.egressproxies.runtime.config.ConfigException;
import java.io.IOException;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * How to reach an etcd cluster, as {@code --etcd} and its companion options give it: the members'
 * client URLs, TLS (a CA, and a client certificate and key), a user whose password is read from a
 * file, and the key prefix under which egressctl keeps its keys.
 *
 * @param endpoints    the members' client URLs, all {@code http} or all {@code https}
 * @param ca           the CA bundle that signs the members' certificates; {@code null} for the JDK's
 * @param certificate  the client certificate (PEM), or {@code null}
 * @param key          its unencrypted PKCS#8 key (PEM), or {@code null}
 * @param user         the etcd user, or {@code null} when etcd's authentication is off
 * @param passwordFile the file holding the user's password (its first line), or {@code null}
 * @param prefix       the key prefix, ending with {@code /}
 */
public record EtcdOptions(List<URI> endpoints, Path ca, Path certificate, Path key, String user,
                          Path passwordFile, String prefix) {
    /** The key prefix when none is given. */
    public static final String DEFAULT_PREFIX = "/egressctl/";

    /** Checks the options together; nothing is contacted. */
    public EtcdOptions {
        endpoints = List.copyOf(endpoints);
        if (endpoints.isEmpty()) {
            throw new ConfigException("--etcd names no member: give the client URLs, comma-separated, like"
                    + " https://10.0.0.1:2379,https://10.0.0.2:2379");
        }
        long secure = endpoints.stream().filter(url -> "https".equals(url.getScheme())).count();
        if (secure != 0 && secure != endpoints.size()) {
            throw new ConfigException("--etcd mixes http and https members (" + endpoints + "): a cluster serves"
                    + " its clients one way; give every URL the same scheme");
        }
        if ((certificate == null) != (key == null)) {
            throw new ConfigException("--etcd-cert and --etcd-key go together: give both (the client certificate and"
                    + " its key) or neither");
        }
        if (secure == 0 && (ca != null || certificate != null)) {
            throw new ConfigException("--etcd-ca, --etcd-cert and --etcd-key are for https members, and --etcd names"
                    + " http ones (" + endpoints + "): use https:// URLs, or leave the TLS options out");
        }
        if ((user == null) != (passwordFile == null)) {
            throw new ConfigException("--etcd-user and --etcd-password-file go together: give the user and the file"
                    + " that holds its password, or neither");
        }
        prefix = prefix == null || prefix.isEmpty() ? DEFAULT_PREFIX : prefix;
        if (!prefix.startsWith("/") || !prefix.endsWith("/")) {
            throw new ConfigException("--etcd-prefix '" + prefix + "' must start and end with '/', like "
                    + DEFAULT_PREFIX);
        }
    }

    /**
     * Parses {@code --etcd}'s comma-separated list of client URLs.
     *
     * @throws ConfigException naming the URL that is not an http(s) URL with host and port
     */
    public static List<URI> parseEndpoints(String list) {
        List<URI> endpoints = new ArrayList<>();
        for (String part : list.split(",")) {
            String text = part.strip();
            if (text.isEmpty()) {
                continue;
            }
            URI url = null;
            try {
                url = URI.create(text);
            } catch (IllegalArgumentException notAUri) {
                // reported below, as any other text that is not such a URL
            }
            String scheme = url == null || url.getScheme() == null ? "" : url.getScheme().toLowerCase(Locale.ROOT);
            if (!scheme.equals("http") && !scheme.equals("https") || url.getHost() == null || url.getPort() < 0) {
                throw new ConfigException("--etcd '" + text + "' is not an http(s) URL with host and port: give a"
                        + " member's client URL, like https://10.0.0.1:2379");
            }
            endpoints.add(URI.create(scheme + "://" + url.getHost() + ":" + url.getPort()));
        }
        return endpoints;
    }

    /** Whether the members serve TLS. */
    boolean tls() {
        return "https".equals(endpoints.get(0).getScheme());
    }

    /**
     * The user's password: the first line of the password file.
     *
     * @throws ConfigException when the file cannot be read or is empty
     */
    String password() {
        try {
            String password = Files.readAllLines(passwordFile, StandardCharsets.UTF_8).stream().findFirst().orElse("");
            if (password.isEmpty()) {
                throw new ConfigException("--etcd-password-file " + passwordFile + " is empty: its first line is"
                        + " the password of --etcd-user " + user);
            }
            return password;
        } catch (IOException e) {
            throw new ConfigException("--etcd-password-file " + passwordFile + " cannot be read: " + e.getMessage());
        }
    }
}
