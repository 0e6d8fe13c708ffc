package dev.egressproxies.kvm.common.image;

import java.io.IOException;
import java.net.URI;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;
import java.util.Objects;

/**
 * An image URL as it may be shown in messages, logs and span attributes: scheme, host and port.
 * User information, path, query and fragment are left out, because they carry credentials, signed
 * tokens or names that are nobody's business.
 */
public final class RedactedUrl {
    private static final String MASK = "[redacted]";
    private static final int SHORTEST_SECRET = 3;
    /** Deep enough for any real cause chain, and a guard against cyclic ones. */
    private static final int DEEPEST_CAUSE = 8;

    private final String scheme;
    private final String host;
    private final int port;
    private final List<String> secrets;

    private RedactedUrl(String scheme, String host, int port, List<String> secrets) {
        this.scheme = scheme;
        this.host = host;
        this.port = port;
        this.secrets = secrets;
    }

    /**
     * The redacted form of {@code url}.
     *
     * @throws IllegalArgumentException when the URL has no scheme or host
     */
    public static RedactedUrl of(URI url) {
        if (url.getScheme() == null || url.getHost() == null) {
            throw new IllegalArgumentException("the URL has no scheme or no host");
        }
        List<String> parts = new ArrayList<>(List.of(url.toString()));
        for (String userInformation : new String[] {url.getRawUserInfo(), url.getUserInfo()}) {
            addSplit(parts, userInformation, ":");
        }
        for (String path : new String[] {url.getRawPath(), url.getPath()}) {
            if (path != null && !path.equals("/")) {
                // Without its leading slash too, as a message may quote a relative form.
                parts.add(path);
                parts.add(path.startsWith("/") ? path.substring(1) : path);
            }
        }
        for (String query : new String[] {url.getRawQuery(), url.getQuery()}) {
            if (query != null) {
                // Each parameter and its value too: a message may quote one signed parameter alone.
                parts.add(query);
                for (String parameter : query.split("&")) {
                    parts.add(parameter);
                    addSplit(parts, parameter, "=");
                }
            }
        }
        parts.add(url.getRawFragment());
        parts.add(url.getFragment());
        List<String> secrets = parts.stream()
                .filter(part -> part != null && part.length() >= SHORTEST_SECRET)
                .distinct()
                // Longest first, so a part that contains another is blanked whole.
                .sorted(Comparator.comparingInt(String::length).reversed())
                .toList();
        return new RedactedUrl(url.getScheme().toLowerCase(Locale.ROOT), url.getHost().toLowerCase(Locale.ROOT),
                url.getPort(), secrets);
    }

    /** The scheme, lowercase ({@code http} or {@code https}). */
    public String scheme() {
        return scheme;
    }

    /** The host, lowercase; an IPv6 address keeps its brackets. */
    public String host() {
        return host;
    }

    /** The port given in the URL, or {@code -1} when it names none. */
    public int port() {
        return port;
    }

    /** {@code text} with every secret part of the URL blanked out; null stays null. */
    String scrub(String text) {
        if (text == null) {
            return null;
        }
        String scrubbed = text;
        for (String secret : secrets) {
            scrubbed = scrubbed.replace(secret, MASK);
        }
        return scrubbed;
    }

    /** What a message may quote of a foreign exception: its simple class name and scrubbed message. */
    String describe(Throwable foreign) {
        String message = foreign.getMessage();
        String simpleName = foreign.getClass().getSimpleName();
        return message == null || message.isBlank() ? simpleName : simpleName + ": " + scrub(message);
    }

    /**
     * A copy of {@code foreign} and its causes that keeps each one's class name, message and stack
     * trace, with the messages scrubbed; null for null.
     */
    IOException redact(Throwable foreign) {
        return copy(foreign, 0);
    }

    private IOException copy(Throwable original, int depth) {
        if (original == null || depth >= DEEPEST_CAUSE) {
            return null;
        }
        String message = original.getMessage() == null ? "" : ": " + scrub(original.getMessage());
        IOException copy = new IOException(original.getClass().getName() + message, copy(original.getCause(),
                depth + 1));
        copy.setStackTrace(original.getStackTrace());
        return copy;
    }

    private static void addSplit(List<String> parts, String text, String separator) {
        if (text == null) {
            return;
        }
        parts.add(text);
        int at = text.indexOf(separator);
        if (at >= 0) {
            if (separator.equals(":")) {
                parts.add(text.substring(0, at));
            }
            parts.add(text.substring(at + 1));
        }
    }

    @Override
    public boolean equals(Object other) {
        return other instanceof RedactedUrl that && scheme.equals(that.scheme) && host.equals(that.host)
                && port == that.port;
    }

    @Override
    public int hashCode() {
        return Objects.hash(scheme, host, port);
    }

    /** {@code scheme://host} or {@code scheme://host:port}. */
    @Override
    public String toString() {
        return scheme + "://" + host + (port == -1 ? "" : ":" + port);
    }
}
