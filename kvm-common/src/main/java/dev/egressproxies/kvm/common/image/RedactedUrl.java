package dev.egressproxies.kvm.common.image;

import java.net.URI;
import java.util.Locale;
import java.util.Objects;

/**
 * The part of an image URL that may appear in messages, logs and span attributes: scheme, host
 * and port. User information, path, query and fragment are left out, because they carry
 * credentials, signed tokens or names that are nobody's business.
 *
 * @param scheme the scheme, lowercase ({@code http} or {@code https})
 * @param host   the host, lowercase; an IPv6 address keeps its brackets
 * @param port   the port given in the URL, or {@code -1} when it names none
 */
public record RedactedUrl(String scheme, String host, int port) {

    /** Checks that the parts are there. */
    public RedactedUrl {
        Objects.requireNonNull(scheme, "scheme");
        Objects.requireNonNull(host, "host");
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
        return new RedactedUrl(url.getScheme().toLowerCase(Locale.ROOT), url.getHost().toLowerCase(Locale.ROOT),
                url.getPort());
    }

    /** {@code scheme://host} or {@code scheme://host:port}. */
    @Override
    public String toString() {
        return scheme + "://" + host + (port == -1 ? "" : ":" + port);
    }
}
