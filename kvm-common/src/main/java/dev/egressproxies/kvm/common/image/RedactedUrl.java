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
    /** Longest first, so a part that contains another is blanked whole. */
    private final List<String> secrets;

    private RedactedUrl(URI url, List<String> parts) {
        this.scheme = url.getScheme().toLowerCase(Locale.ROOT);
        this.host = url.getHost().toLowerCase(Locale.ROOT);
        this.port = url.getPort();
        this.secrets = parts.stream().filter(part -> part != null && part.length() >= SHORTEST_SECRET).distinct()
                .sorted(Comparator.comparingInt(String::length).reversed()).toList();
    }

    /** The redacted form of {@code url}; IllegalArgumentException when it has no scheme or host. */
    public static RedactedUrl of(URI url) {
        if (url.getScheme() == null || url.getHost() == null) {
            throw new IllegalArgumentException("the URL has no scheme or no host");
        }
        List<String> parts = new ArrayList<>(List.of(url.toString()));
        for (String userInformation : new String[] {url.getRawUserInfo(), url.getUserInfo()}) {
            if (userInformation != null) {
                parts.add(userInformation);
                parts.addAll(List.of(userInformation.split(":", 2)));
            }
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
                    parts.add(parameter.substring(parameter.indexOf('=') + 1));
                }
            }
        }
        parts.add(url.getRawFragment());
        parts.add(url.getFragment());
        return new RedactedUrl(url, parts);
    }

    /** The host, lowercase; an IPv6 address keeps its brackets. */
    public String host() {
        return host;
    }

    /** {@code text} with every secret part of the URL blanked out; null stays null. */
    String scrub(String text) {
        String scrubbed = text;
        for (int i = 0; scrubbed != null && i < secrets.size(); i++) {
            scrubbed = scrubbed.replace(secrets.get(i), MASK);
        }
        return scrubbed;
    }

    /** What a message may quote of a foreign exception: its simple class name and scrubbed message. */
    String describe(Throwable foreign) {
        String message = foreign.getMessage();
        String simpleName = foreign.getClass().getSimpleName();
        return message == null || message.isBlank() ? simpleName : simpleName + ": " + scrub(message);
    }

    /** {@code foreign} and its causes, copied with their class names and stack traces, messages scrubbed. */
    IOException redact(Throwable foreign) {
        return redact(foreign, 0);
    }

    private IOException redact(Throwable original, int depth) {
        if (original == null || depth >= DEEPEST_CAUSE) {
            return null;
        }
        String message = original.getMessage() == null ? "" : ": " + scrub(original.getMessage());
        IOException copy = new IOException(original.getClass().getName() + message, redact(original.getCause(),
                depth + 1));
        copy.setStackTrace(original.getStackTrace());
        return copy;
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
