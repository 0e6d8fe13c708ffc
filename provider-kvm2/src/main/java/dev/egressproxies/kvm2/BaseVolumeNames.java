package dev.egressproxies.kvm2;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;
import java.util.regex.Pattern;

/**
 * The names of the base volumes this backend keeps in a host's storage pool, and of their markers:
 * {@code ENTRY+KEY.base.FORMAT} and {@code ENTRY+KEY.base.FORMAT.sha256}.
 *
 * <p>The provider entry's name is part of the name, so two entries (or a {@code kvm} entry, whose
 * base volumes have no '+') never share one file; '+' appears in neither entry names nor image
 * keys, so no two (entry, key) pairs give one name. A URL image's key is {@code url-} and the
 * first 20 hex digits of the URL's sha256, so the name never carries the URL or its secrets. Names
 * are sanitised to letters, digits, '.', '_', '+' and '-' (anything else becomes '_') and kept
 * short enough for any file system, with a hash of the whole name where they are cut.
 */
final class BaseVolumeNames {
    /** Well below the 255 bytes of a file name, so the marker's suffix always fits. */
    private static final int LONGEST = 200;
    private static final Pattern UNSAFE = Pattern.compile("[^A-Za-z0-9._+-]");

    private BaseVolumeNames() {
    }

    /** The base volume of image {@code key} of provider entry {@code entry}, in {@code format}. */
    static String base(String entry, String key, String format) {
        String name = UNSAFE.matcher(entry + "+" + key).replaceAll("_");
        if (name.length() > LONGEST) {
            name = name.substring(0, LONGEST - 21) + "-" + hexDigest(entry + "+" + key).substring(0, 20);
        }
        return name + ".base." + format;
    }

    /** The marker next to {@code base}, which holds the sha256 of the published file once the base is complete. */
    static String marker(String base) {
        return base + ".sha256";
    }

    /** The key a URL image's base volume is named after: the URL itself never appears. */
    static String urlKey(String url) {
        return "url-" + hexDigest(url).substring(0, 20);
    }

    private static String hexDigest(String text) {
        try {
            return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256")
                    .digest(text.getBytes(StandardCharsets.UTF_8)));
        } catch (NoSuchAlgorithmException impossible) {
            // Every Java platform must provide SHA-256.
            throw new IllegalStateException(impossible);
        }
    }
}
