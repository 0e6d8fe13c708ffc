package dev.egressproxies.kvm;

import java.net.URI;

/**
 * How image URLs appear in messages and logs: scheme, host, port and path only, because user
 * information and query strings often carry credentials or signed tokens.
 */
final class UrlText {
    private UrlText() {
    }

    /** The URL without user information, with its query and fragment replaced by "?...". */
    static String redacted(URI uri) {
        StringBuilder text = new StringBuilder();
        text.append(uri.getScheme()).append("://").append(uri.getHost());
        if (uri.getPort() != -1) {
            text.append(':').append(uri.getPort());
        }
        text.append(uri.getRawPath() == null ? "" : uri.getRawPath());
        if (uri.getRawQuery() != null || uri.getRawFragment() != null) {
            text.append("?...");
        }
        return text.toString();
    }
}
