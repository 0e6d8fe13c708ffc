package dev.egressproxies.kvm2.config;

import dev.egressproxies.kvm.common.config.ConfigChecks;
import dev.egressproxies.kvm.common.image.Archive;
import dev.egressproxies.kvm.common.image.Compression;
import dev.egressproxies.kvm.common.image.FetchLocation;
import dev.egressproxies.kvm.common.image.ImageSource;
import dev.egressproxies.kvm.common.xml.DiskFormat;
import java.util.Locale;
import java.util.regex.Pattern;

/**
 * An image of a {@code kvm2} provider entry's catalogue: where the file is published, what it is,
 * and the sha256 it must have. Only {@code url} is required:
 * <pre>{@code
 * images:
 *   debian-12:
 *     url: https://cloud.debian.org/.../debian-12-genericcloud-amd64.qcow2
 *     sha256: 0f1e...                 # of the file as published; pins the cached base image
 *     format: qcow2                   # qcow2 (default) or raw: the disk image's format
 *     compression: none               # none, xz, gzip, bzip2 or zstd; unset: what the URL's suffix implies
 *     archive: none                   # none or tar; unset: tar when the suffix (.tar.xz, .tgz) or a member says so
 *     archiveMember: disk.raw         # the tar member that is the disk; unset: the archive's only file
 *     firmware: uefi                  # uefi (default) or bios
 *     fetch: host                     # client or host; unset: the entry's fetch (default client)
 * }</pre>
 *
 * <p>The image is fetched into a host's storage pool the first time a VM on that host uses it and
 * decompressed on the way; the server must send a Content-Length. With a sha256 the cached base is
 * pinned: a base cached with another digest is refused rather than replaced, because the overlays of
 * existing VMs still name it as their backing file.
 *
 * @param url           the http or https URL of the published file
 * @param format        the disk image's format, {@code qcow2} or {@code raw}
 * @param sha256        the lowercase hex sha256 of the file as published, or {@code null}
 * @param compression   how the file is compressed, or {@code null} for what the URL's suffix implies
 * @param archive       {@code tar} when the (decompressed) file is a tar archive holding the disk,
 *                      {@code none} when it is the disk, or {@code null} for what the suffix implies
 * @param archiveMember the tar member that is the disk, or {@code null}
 * @param firmware      {@code uefi} or {@code bios}
 * @param fetch         {@code client} (egressctl downloads and uploads it), {@code host} (the
 *                      hypervisor downloads it itself, into a dir pool), or {@code null} for the
 *                      entry's {@code fetch}
 */
public record CatalogueImage(String url, String format, String sha256, String compression, String archive,
                             String archiveMember, String firmware, String fetch) {
    /** The format of most cloud images, and the default. */
    public static final String FORMAT_QCOW2 = "qcow2";
    /** UEFI boot with the host's loader and a per-VM copy of its variables template; the default. */
    public static final String FIRMWARE_UEFI = "uefi";
    /** Legacy BIOS boot. */
    public static final String FIRMWARE_BIOS = "bios";

    private static final Pattern SHA256 = Pattern.compile("[0-9a-f]{64}");
    /**
     * What a digest becomes when YAML reads it unquoted as a number: one of only digits (leading
     * zeros dropped, or just {@code 0}), or of digits and one {@code e} (a float in exponent form).
     */
    private static final Pattern READ_AS_NUMBER = Pattern.compile("[-+]?[0-9.]*(e[-+]?[0-9]+)?|[-+]?(infinity|nan)");
    private static final String QUOTE_IT = ". A digest without letters a-f (or with a single e) is read as a number"
            + " when unquoted: write it in quotes, sha256: \"...\"";
    private static final String EXAMPLE_URL =
            "https://cloud.debian.org/images/cloud/bookworm/latest/debian-12-genericcloud-amd64.qcow2";

    /** Applies defaults and rejects settings that cannot work, naming the setting to fix. */
    public CatalogueImage {
        ConfigChecks.requireWord("url", url, EXAMPLE_URL);
        format = format == null ? FORMAT_QCOW2 : ConfigChecks.parse("format", format, DiskFormat::parse).xmlName();
        if (sha256 != null) {
            sha256 = sha256.strip().toLowerCase(Locale.ROOT);
            if (!SHA256.matcher(sha256).matches()) {
                throw new IllegalArgumentException("sha256: '" + sha256 + "' is not 64 hex digits; give what"
                        + " 'sha256sum' prints for the file as published (before decompression)"
                        + (READ_AS_NUMBER.matcher(sha256).matches() ? QUOTE_IT : ""));
            }
        }
        if (compression != null) {
            compression = ConfigChecks.parse("compression", compression, Compression::parse).configName();
        }
        if (archive != null) {
            archive = ConfigChecks.requireOneOf("archive", archive.strip().toLowerCase(Locale.ROOT), "none", "tar");
        }
        if (archiveMember != null && "none".equals(archive)) {
            throw new IllegalArgumentException("archiveMember: set with archive: none; remove one of the two (a"
                    + " member names the disk inside a tar archive)");
        }
        firmware = firmware == null ? FIRMWARE_UEFI : ConfigChecks.requireOneOf("firmware", firmware, FIRMWARE_UEFI,
                FIRMWARE_BIOS);
        if (fetch != null) {
            fetch = ConfigChecks.parse("fetch", fetch, FetchLocation::parse).configName();
        }
        try {
            // Built once, so what the pipeline refuses is refused here, at configuration time.
            source(url, format, sha256, compression, archive, archiveMember);
        } catch (IllegalArgumentException refused) {
            throw new IllegalArgumentException("url: " + refused.getMessage(), refused);
        }
    }

    /** An image fetched where the entry's {@code fetch} says. */
    public CatalogueImage(String url, String format, String sha256, String compression, String archive,
                          String archiveMember, String firmware) {
        this(url, format, sha256, compression, archive, archiveMember, firmware, null);
    }

    /** Where the image is fetched: this image's {@code fetch}, else {@code entryDefault}. */
    public FetchLocation fetchLocation(FetchLocation entryDefault) {
        return fetch == null ? entryDefault : FetchLocation.parse(fetch);
    }

    /** What the fetch pipeline takes: the URL with every declaration, and the suffix for the rest. */
    public ImageSource source() {
        return source(url, format, sha256, compression, archive, archiveMember);
    }

    /** Whether VMs of this image boot with UEFI. */
    public boolean uefi() {
        return FIRMWARE_UEFI.equals(firmware);
    }

    private static ImageSource source(String url, String format, String sha256, String compression, String archive,
                                      String archiveMember) {
        ImageSource.Builder builder = ImageSource.builder(url).format(DiskFormat.parse(format));
        if (sha256 != null) {
            builder.sha256(sha256);
        }
        if (compression != null) {
            builder.compression(Compression.parse(compression));
        }
        if (archive != null) {
            builder.archive(archive.equals("tar") ? Archive.TAR : Archive.NONE);
        }
        if (archiveMember != null) {
            builder.archiveMember(archiveMember);
        }
        return builder.build();
    }
}
