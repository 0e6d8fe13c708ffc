package dev.egressproxies.kvm.common.image;

import java.io.InputStream;
import java.util.Objects;
import java.util.OptionalLong;

/**
 * The disk image a fetch hands its consumer: the bytes to write into the volume (decompressed and
 * unpacked), and their number when it is known before they arrive.
 *
 * <p>The length is known for an image published as it is (the Content-Length) and for a tar member
 * (its header says); it is unknown for a compressed image, whose formats state the length at the
 * end, if at all. Upload a known length with {@code LibvirtHost.uploadVolume(volume, stream,
 * length)}, an unknown one with {@code LibvirtHost.uploadVolumeUntilEnd(volume, stream)}.
 *
 * <p>The stream delivers its last byte, or its end when the length is unknown, only after every
 * published byte arrived and passed the length and digest checks; until then a failure shows as an
 * {@link java.io.IOException} from a read, so an upload fed from it aborts instead of finishing.
 * The stream belongs to the fetch: the consumer reads it but need not close it.
 *
 * @param stream the image's bytes
 * @param length their number, when known in advance
 */
public record ImageContent(InputStream stream, OptionalLong length) {

    /** Checks the parts. */
    public ImageContent {
        Objects.requireNonNull(stream, "stream");
        Objects.requireNonNull(length, "length");
    }
}
