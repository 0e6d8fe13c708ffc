package dev.egressproxies.kvm.common.image;

import java.net.URI;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;

/**
 * The parts of one image URL that must never be shown (user information, path, query, fragment),
 * and the means to blank them out of text the pipeline did not write itself, such as the message
 * of an exception the HTTP client or a decoder threw.
 *
 * <p>The pipeline's own messages never contain these parts in the first place (they name the image
 * by its {@link RedactedUrl}); this is for foreign text only, which it may mangle a little where a
 * secret is a common word.
 */
final class UrlSecrets {
    /** What stands in for a blanked-out part. */
    static final String MASK = "[redacted]";
    /**
     * Shorter parts are left alone: blanking one or two characters everywhere would mangle every
     * message, and so little of a secret reveals nothing.
     */
    private static final int SHORTEST_SECRET = 3;

    private final List<String> secrets;

    private UrlSecrets(List<String> secrets) {
        this.secrets = secrets;
    }

    /** The secrets of {@code url}. */
    static UrlSecrets of(URI url) {
        List<String> parts = new ArrayList<>();
        parts.add(url.toString());
        addUserInformation(parts, url.getRawUserInfo());
        addUserInformation(parts, url.getUserInfo());
        addPath(parts, url.getRawPath());
        addPath(parts, url.getPath());
        addQuery(parts, url.getRawQuery());
        addQuery(parts, url.getQuery());
        parts.add(url.getRawFragment());
        parts.add(url.getFragment());
        List<String> secrets = parts.stream()
                .filter(part -> part != null && part.length() >= SHORTEST_SECRET)
                .distinct()
                // Longest first, so a part that contains another is blanked whole.
                .sorted(Comparator.comparingInt(String::length).reversed())
                .toList();
        return new UrlSecrets(secrets);
    }

    /** {@code text} with every secret blanked out; null stays null. */
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

    private static void addUserInformation(List<String> parts, String userInformation) {
        if (userInformation == null) {
            return;
        }
        parts.add(userInformation);
        int colon = userInformation.indexOf(':');
        if (colon >= 0) {
            parts.add(userInformation.substring(0, colon));
            parts.add(userInformation.substring(colon + 1));
        }
    }

    private static void addQuery(List<String> parts, String query) {
        if (query == null) {
            return;
        }
        parts.add(query);
        // Each parameter and its value too: a message may quote one signed parameter alone.
        for (String parameter : query.split("&")) {
            parts.add(parameter);
            int equals = parameter.indexOf('=');
            if (equals >= 0) {
                parts.add(parameter.substring(equals + 1));
            }
        }
    }

    private static void addPath(List<String> parts, String path) {
        if (path == null || path.equals("/")) {
            return;
        }
        parts.add(path);
        // Without its leading slash too, as a message may quote a relative form.
        parts.add(path.startsWith("/") ? path.substring(1) : path);
    }
}
