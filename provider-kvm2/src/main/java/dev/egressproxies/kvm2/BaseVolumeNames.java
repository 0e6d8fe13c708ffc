package dev.egressproxies.kvm2;

import dev.egressproxies.kvm.common.image.ImageSource;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;
import java.util.regex.Pattern;

/**
 * The names of the base volumes this backend keeps in a host's storage pool, and of their markers:
 * {@code ENTRY+KEY.SOURCE.base.FORMAT} and {@code ENTRY+KEY.SOURCE.base.FORMAT.sha256}, where
 * SOURCE is the image source's {@linkplain ImageSource#identityTag identity tag}, 16 hex digits of
 * the sha256 of its URL, format and packaging (not its pinned digest: a changed pin for the same
 * source is refused, see {@link CachedBase}).
 *
 * <p>The provider entry's name is part of the name, so two entries (or a {@code kvm} entry, whose
 * base volumes have no '+') never share one file; '+' appears in neither entry names nor image
 * keys, so no two (entry, key) pairs give one name. The source is part of it, so an image whose URL
 * (or format, or packaging) changed is fetched into a new base while the old one stays for the VMs
 * backing on it. A URL image's key is {@code url}: its URL is all its source. The tag is a hash, so
 * the name never carries the URL or its secrets. Names are sanitised to letters, digits, '.', '_',
 * '+' and '-' (anything else becomes '_') and kept short enough for any file system, with a hash of
 * the whole name where they are cut.
 *
 * <p>Bases named before the source was part of the name ({@code ENTRY+KEY.base.FORMAT}) are never
 * reused; {@link #isBase} still knows them, so {@code check} reports them once no overlay backs on
 * them.
 */
final class BaseVolumeNames {
    /** Well below the 255 bytes of a file name, so the tag and the marker's suffix always fit. */
    private static final int LONGEST = 180;
    /** The key of every URL image. */
    static final String URL_KEY = "url";
    private static final Pattern UNSAFE = Pattern.compile("[^A-Za-z0-9._+-]");
    private static final Pattern BASE = Pattern.compile("[A-Za-z0-9._+-]+\\.base\\.(qcow2|raw)");

    private BaseVolumeNames() {
    }

    /** The base volume of image {@code key} of provider entry {@code entry}, fetched from {@code source}. */
    static String base(String entry, String key, ImageSource source) {
        String name = UNSAFE.matcher(entry + "+" + key).replaceAll("_");
        if (name.length() > LONGEST) {
            name = name.substring(0, LONGEST - 21) + "-" + hexDigest(entry + "+" + key).substring(0, 20);
        }
        return name + "." + source.identityTag() + ".base." + source.format().xmlName();
    }

    /** The marker next to {@code base}, which holds the sha256 of the published file once the base is complete. */
    static String marker(String base) {
        return base + ".sha256";
    }

    /** Whether {@code volume} is a base volume of provider entry {@code entry}, named now or before sources were. */
    static boolean isBase(String entry, String volume) {
        return volume.startsWith(UNSAFE.matcher(entry).replaceAll("_") + "+") && BASE.matcher(volume).matches();
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
