package dev.egressproxies.kvm;

import dev.egressproxies.kvm.config.KvmImage;
import java.util.regex.Pattern;

/**
 * The names of the base image volumes this backend keeps in a host's storage pool:
 * {@code KEY.SOURCE.base.FORMAT} and its {@code KEY.SOURCE.base.FORMAT.complete} marker, where
 * SOURCE is the image source's {@linkplain dev.egressproxies.kvm.common.image.ImageSource#identityTag
 * identity tag}: 16 hex digits of the sha256 of its URL, format and packaging.
 *
 * <p>The source is part of the name because {@code kvm} entries share a pool's bases: two entries
 * (or two keys) whose images have one source share one base, and an image whose URL changed, or
 * another entry's image of the same key from elsewhere, gets a base of its own instead of booting
 * bytes nobody chose. The old base stays for the VMs that back on it. The tag is a hash, so the
 * name shows nothing of the URL's path, query or user information.
 *
 * <p>They end in {@code .base.FORMAT} (and the marker's suffix), so they never collide with an
 * instance's overlay or seed, {@code ENTRY+NAME.qcow2} and {@code ENTRY+NAME.seed.iso} (kvm-common's
 * {@code VolumeNames} says why), and hold no '+', so they never collide with a {@code kvm2} base.
 * Bases named before the source was part of the name ({@code KEY.base.FORMAT}) are never reused;
 * {@link #isBase} still knows them, so {@code check} reports them once no overlay backs on them.
 */
final class BaseVolumeNames {
    /** Any {@code kvm} base, with or without a source tag: image keys hold no '+'. */
    private static final Pattern BASE = Pattern.compile("[A-Za-z0-9._-]+\\.base\\.(qcow2|raw)");

    private BaseVolumeNames() {
    }

    /** The cached base image of image {@code imageKey} downloaded from {@code image}'s source. */
    static String base(String imageKey, KvmImage image) {
        return imageKey + "." + image.source().identityTag() + ".base." + image.format();
    }

    /** The marker whose presence says that the base volume's upload finished. */
    static String baseComplete(String imageKey, KvmImage image) {
        return marker(base(imageKey, image));
    }

    /** The marker next to base volume {@code base}. */
    static String marker(String base) {
        return base + ".complete";
    }

    /** Whether {@code volume} is a {@code kvm} base volume, of any entry, named now or before sources were. */
    static boolean isBase(String volume) {
        return BASE.matcher(volume).matches();
    }
}
