package dev.egressproxies.kvm.common.image;

import dev.egressproxies.kvm.common.xml.DiskFormat;
import java.net.URI;
import java.net.URISyntaxException;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;
import java.util.List;
import java.util.Locale;
import java.util.Objects;
import java.util.Optional;
import java.util.regex.Pattern;

/**
 * Where an image is published and how to turn the published file into a disk image: its http or
 * https URL, the disk format of the image, the file's compression, whether it is a tar archive (and
 * which member is the disk), and the sha256 the published file must have.
 */
public record ImageSource(URI url, DiskFormat format, Compression compression, Archive archive,
                          Optional<String> archiveMember, Optional<String> sha256) {
    private static final Pattern SHA256_HEX = Pattern.compile("[0-9a-f]{64}");
    /** What a URL path's end implies when nothing is declared; longest first, so {@code .tar.gz} wins over {@code .gz}. */
    private static final List<Suffix> SUFFIXES = List.of(
            new Suffix(".tar.bz2", Compression.BZIP2, Archive.TAR),
            new Suffix(".tar.zst", Compression.ZSTD, Archive.TAR),
            new Suffix(".tar.xz", Compression.XZ, Archive.TAR),
            new Suffix(".tar.gz", Compression.GZIP, Archive.TAR),
            new Suffix(".tbz2", Compression.BZIP2, Archive.TAR),
            new Suffix(".tzst", Compression.ZSTD, Archive.TAR),
            new Suffix(".tbz", Compression.BZIP2, Archive.TAR),
            new Suffix(".tgz", Compression.GZIP, Archive.TAR),
            new Suffix(".txz", Compression.XZ, Archive.TAR),
            new Suffix(".tar", Compression.NONE, Archive.TAR),
            new Suffix(".bz2", Compression.BZIP2, Archive.NONE),
            new Suffix(".zst", Compression.ZSTD, Archive.NONE),
            new Suffix(".xz", Compression.XZ, Archive.NONE),
            new Suffix(".gz", Compression.GZIP, Archive.NONE));

    /**
     * Checks the source.
     *
     * @throws IllegalArgumentException when the URL is not http or https with a host, the sha256 is
     *     not 64 lowercase hex digits, or a member is named for an image that is no archive.
     */
    public ImageSource {
        Objects.requireNonNull(url, "url");
        Objects.requireNonNull(format, "format");
        Objects.requireNonNull(compression, "compression");
        Objects.requireNonNull(archive, "archive");
        Objects.requireNonNull(archiveMember, "archiveMember");
        Objects.requireNonNull(sha256, "sha256");
        requireHttp(url);
        sha256.ifPresent(ImageSource::requireSha256);
        archiveMember.ifPresent(member -> requireMember(member, archive));
    }

    /** A builder for the image published at {@code url}; see {@link Builder} for the defaults. */
    public static Builder builder(String url) {
        return new Builder(parse(url));
    }

    /**
     * The lowercase hex sha256 of what makes this source one sequence of bytes: the whole URL (user
     * information and query included), the disk format, the compression, the archive and its
     * member.
     */
    public String identitySha256() {
        String identity = "url=" + url + "\nformat=" + format.xmlName() + "\ncompression=" + compression.configName()
                + "\narchive=" + (archive == Archive.TAR ? "tar" : "none") + "\nmember=" + archiveMember.orElse("")
                + "\n";
        try {
            return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256")
                    .digest(identity.getBytes(StandardCharsets.UTF_8)));
        } catch (NoSuchAlgorithmException impossible) {
            // Every Java platform must provide SHA-256.
            throw new IllegalStateException(impossible);
        }
    }

    /**
     * The first 16 hex digits of {@link #identitySha256()}: what base volume names carry, short
     * enough for a name and long enough (64 bits) that two sources of one pool never meet.
     */
    public String identityTag() {
        return identitySha256().substring(0, 16);
    }

    /** The URL as it may be shown. */
    public RedactedUrl redactedUrl() {
        return RedactedUrl.of(url);
    }

    /** How the image is packed, for messages: "an xz-compressed tar archive". */
    String packaging() {
        String container = archive == Archive.TAR ? "tar archive" : "file";
        return switch (compression) {
            case NONE -> "an uncompressed " + container;
            case XZ -> "an xz-compressed " + container;
            case GZIP -> "a gzip-compressed " + container;
            case BZIP2 -> "a bzip2-compressed " + container;
            case ZSTD -> "a zstd-compressed " + container;
        };
    }

    @Override
    public String toString() {
        return "ImageSource[" + redactedUrl() + ", " + format.xmlName() + ", compression " + compression.configName()
                + (archive == Archive.TAR ? ", tar member " + archiveMember.orElse("(the only file)") : "")
                + (sha256.isPresent() ? ", sha256 " + sha256.get() : "") + "]";
    }

    private static URI parse(String url) {
        if (url == null || url.isBlank()) {
            throw new IllegalArgumentException("the image URL is empty; give an http or https URL");
        }
        try {
            return new URI(url.strip());
        } catch (URISyntaxException invalid) {
            // The reason and index only: the exception's own message repeats the whole URL.
            throw new IllegalArgumentException("the image URL is not a valid URL (" + invalid.getReason()
                    + " at index " + invalid.getIndex() + "); give an http or https URL");
        }
    }

    private static void requireHttp(URI url) {
        String scheme = url.getScheme() == null ? "" : url.getScheme().toLowerCase(Locale.ROOT);
        if (!scheme.equals("http") && !scheme.equals("https")) {
            throw new IllegalArgumentException("the image URL has scheme '" + scheme + "'; only http and https"
                    + " images can be fetched");
        }
        if (url.getHost() == null) {
            throw new IllegalArgumentException("the image URL names no host (or one that is not a valid host name);"
                    + " give a URL such as https://images.example.org/disk.qcow2");
        }
    }

    private static void requireSha256(String digest) {
        if (!SHA256_HEX.matcher(digest).matches()) {
            throw new IllegalArgumentException("the image sha256 '" + digest + "' is not 64 lowercase hex digits;"
                    + " give the output of sha256sum for the file as published (before decompression)");
        }
    }

    private static void requireMember(String member, Archive archive) {
        if (archive != Archive.TAR) {
            throw new IllegalArgumentException("the archive member '" + member + "' is named, but the image is no"
                    + " tar archive; declare the archive or remove the member");
        }
        if (member.isBlank() || member.indexOf('\0') >= 0) {
            throw new IllegalArgumentException("the archive member name is blank or holds a NUL character; name"
                    + " the disk image's path inside the archive, such as disk.raw");
        }
    }

    private record Suffix(String text, Compression compression, Archive archive) {
    }

    /**
     * Builds an {@link ImageSource}. Without declarations the format is qcow2, and compression and
     * archive are what the URL's path suffix implies; naming a member implies a tar archive.
     */
    public static final class Builder {
        private final URI url;
        private DiskFormat format = DiskFormat.QCOW2;
        private Compression compression;
        private Archive archive;
        private String archiveMember;
        private String sha256;

        private Builder(URI url) {
            this.url = url;
        }

        /** Declares the disk format of the image; qcow2 when not declared. */
        public Builder format(DiskFormat format) {
            this.format = Objects.requireNonNull(format, "format");
            return this;
        }

        /** Declares the compression, overriding what the URL suffix implies. */
        public Builder compression(Compression compression) {
            this.compression = Objects.requireNonNull(compression, "compression");
            return this;
        }

        /** Declares whether the file is a tar archive, overriding what the URL suffix implies. */
        public Builder archive(Archive archive) {
            this.archive = Objects.requireNonNull(archive, "archive");
            return this;
        }

        /** Names the tar member that is the image; implies a tar archive unless one is declared otherwise. */
        public Builder archiveMember(String member) {
            this.archiveMember = Objects.requireNonNull(member, "member");
            return this;
        }

        /** Pins the sha256 of the file as published, as 64 lowercase hex digits. */
        public Builder sha256(String hex) {
            this.sha256 = Objects.requireNonNull(hex, "sha256");
            return this;
        }

        /**
         * The source.
         *
         * @throws IllegalArgumentException as {@link ImageSource#ImageSource} says
         */
        public ImageSource build() {
            String name = url.getPath() == null ? "" : url.getPath().toLowerCase(Locale.ROOT);
            Suffix implied = SUFFIXES.stream().filter(suffix -> name.endsWith(suffix.text())).findFirst()
                    .orElse(new Suffix("", Compression.NONE, Archive.NONE));
            Archive resolvedArchive = archive != null ? archive : archiveMember != null ? Archive.TAR : implied.archive();
            Compression resolvedCompression = compression != null ? compression : implied.compression();
            return new ImageSource(url, format, resolvedCompression, resolvedArchive, Optional.ofNullable(archiveMember),
                    Optional.ofNullable(sha256));
        }
    }
}
