package dev.egressproxies.kvm.config;

import dev.egressproxies.kvm.common.config.ConfigChecks;
import dev.egressproxies.kvm.common.image.Archive;
import dev.egressproxies.kvm.common.image.Compression;
import dev.egressproxies.kvm.common.image.FetchLocation;
import dev.egressproxies.kvm.common.image.ImageSource;
import dev.egressproxies.kvm.common.xml.DiskFormat;
import java.net.URI;
import java.net.URISyntaxException;
import java.util.Locale;

/**
 * An image of a {@code kvm} provider entry: where to download the cloud image that VMs boot from,
 * and its disk format, for example
 * {@code debian-12: {url: https://cloud.debian.org/.../debian-12-genericcloud-amd64.qcow2}}.
 *
 * <p>The image is downloaded into a host's storage pool the first time a VM on that host uses
 * it, and reused afterwards; the server must send a Content-Length, because the volume's size is
 * declared before the upload.
 *
 * @param url    the http or https URL of the image
 * @param format the image's disk format, {@code qcow2} (the default) or {@code raw}
 * @param fetch  {@code client} (egressctl downloads and uploads it), {@code host} (the hypervisor
 *               downloads it itself, into a dir pool), or {@code null} for the entry's {@code fetch}
 */
public record KvmImage(String url, String format, String fetch) {
    /** The format of most cloud images, and the default. */
    public static final String FORMAT_QCOW2 = "qcow2";
    /** An uncompressed disk image. */
    public static final String FORMAT_RAW = "raw";

    /** Applies the default format and rejects URLs that cannot be downloaded. */
    public KvmImage {
        check(url);
        format = format == null ? FORMAT_QCOW2 : ConfigChecks.parse("format", format, DiskFormat::parse).xmlName();
        if (fetch != null) {
            fetch = ConfigChecks.parse("fetch", fetch, FetchLocation::parse).configName();
        }
    }

    /** An image fetched where the entry's {@code fetch} says. */
    public KvmImage(String url, String format) {
        this(url, format, null);
    }

    /** Where the image is fetched: this image's {@code fetch}, else {@code entryDefault}. */
    public FetchLocation fetchLocation(FetchLocation entryDefault) {
        return fetch == null ? entryDefault : FetchLocation.parse(fetch);
    }

    /** The image's disk format, as kvm-common's volume XML takes it. */
    public DiskFormat diskFormat() {
        return DiskFormat.parse(format);
    }

    /**
     * The image as kvm-common's fetch pipeline takes it: the file as published, whatever its URL's
     * suffix says neither decompressed nor unpacked, and without a pinned digest.
     */
    public ImageSource source() {
        return ImageSource.builder(url).format(diskFormat()).compression(Compression.NONE).archive(Archive.NONE)
                .build();
    }

    private static void check(String url) {
        String example = "https://cloud.debian.org/images/cloud/bookworm/latest/debian-12-genericcloud-amd64.qcow2";
        ConfigChecks.requireWord("url", url, example);
        URI uri;
        try {
            uri = new URI(url);
        } catch (URISyntaxException invalid) {
            throw new IllegalArgumentException("url: '" + url + "' is not a URL (" + invalid.getReason()
                    + "); for example " + example, invalid);
        }
        String scheme = uri.getScheme() == null ? "" : uri.getScheme().toLowerCase(Locale.ROOT);
        if (!scheme.equals("http") && !scheme.equals("https") || uri.getHost() == null) {
            throw new IllegalArgumentException("url: '" + url + "' is not an http or https URL with a host; for"
                    + " example " + example);
        }
    }
}
