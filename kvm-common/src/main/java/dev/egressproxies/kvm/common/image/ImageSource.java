package dev.egressproxies.kvm.common.image;

import dev.egressproxies.kvm.common.xml.DiskFormat;
import java.net.URI;
import java.net.URISyntaxException;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;
import java.util.Locale;
import java.util.Objects;
import java.util.Optional;
import java.util.regex.Pattern;
import java.util.stream.Stream;

/**
 * Where an image is published (an http or https URL) and how its file becomes a disk image: the disk
 * format, the compression, the tar member if it is an archive, and the sha256 the file must have.
 */
public record ImageSource(URI url, DiskFormat format, Compression compression, Archive archive,
                          Optional<String> archiveMember, Optional<String> sha256) {
    private static final Pattern SHA256_HEX = Pattern.compile("[0-9a-f]{64}");

    /** Checks the URL (http or https, with a host), the sha256 (64 lowercase hex digits) and the member. */
    public ImageSource {
        Objects.requireNonNull(url, "url");
        Objects.requireNonNull(format, "format");
        Objects.requireNonNull(compression, "compression");
        Objects.requireNonNull(archive, "archive");
        Objects.requireNonNull(archiveMember, "archiveMember");
        Objects.requireNonNull(sha256, "sha256");
        String scheme = url.getScheme() == null ? "" : url.getScheme().toLowerCase(Locale.ROOT);
        if (!scheme.equals("http") && !scheme.equals("https")) {
            throw new IllegalArgumentException("the image URL has scheme '" + scheme + "'; only http and https"
                    + " images can be fetched");
        }
        if (url.getHost() == null) {
            throw new IllegalArgumentException("the image URL names no host (or one that is not a valid host name);"
                    + " give a URL such as https://images.example.org/disk.qcow2");
        }
        if (sha256.isPresent() && !SHA256_HEX.matcher(sha256.get()).matches()) {
            throw new IllegalArgumentException("the image sha256 '" + sha256.get() + "' is not 64 lowercase hex"
                    + " digits; give the output of sha256sum for the file as published (before decompression)");
        }
        if (archiveMember.isPresent() && archive != Archive.TAR) {
            throw new IllegalArgumentException("the archive member '" + archiveMember.get() + "' is named, but the"
                    + " image is no tar archive; declare the archive or remove the member");
        }
        if (archiveMember.isPresent() && (archiveMember.get().isBlank() || archiveMember.get().indexOf('\0') >= 0)) {
            throw new IllegalArgumentException("the archive member name is blank or holds a NUL character; name"
                    + " the disk image's path inside the archive, such as disk.raw");
        }
    }

    /** A builder for the image published at {@code url}; see {@link Builder} for the defaults. */
    public static Builder builder(String url) {
        if (url == null || url.isBlank()) {
            throw new IllegalArgumentException("the image URL is empty; give an http or https URL");
        }
        try {
            return new Builder(new URI(url.strip()));
        } catch (URISyntaxException invalid) {
            // The reason and index only: the exception's own message repeats the whole URL.
            throw new IllegalArgumentException("the image URL is not a valid URL (" + invalid.getReason()
                    + " at index " + invalid.getIndex() + "); give an http or https URL");
        }
    }

    /** The lowercase hex sha256 of all that makes this source one sequence of bytes, the whole URL included. */
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

    /** The first 16 hex digits of {@link #identitySha256()}, for base volume names: 64 bits never collide in a pool. */
    public String identityTag() {
        return identitySha256().substring(0, 16);
    }

    /** The URL as it may be shown. */
    public RedactedUrl redactedUrl() {
        return RedactedUrl.of(url);
    }

    /** How the image is packed, for messages: "an xz-compressed tar archive". */
    String packaging() {
        return (compression == Compression.NONE ? "an uncompressed " : (compression == Compression.XZ ? "an " : "a ")
                + compression.configName() + "-compressed ") + (archive == Archive.TAR ? "tar archive" : "file");
    }

    @Override
    public String toString() {
        return "ImageSource[" + redactedUrl() + ", " + format.xmlName() + ", compression " + compression.configName()
                + (archive == Archive.TAR ? ", tar member " + archiveMember.orElse("(the only file)") : "")
                + (sha256.isPresent() ? ", sha256 " + sha256.get() : "") + "]";
    }

    /** Builds a source: qcow2 unless declared, compression and archive as the URL's path suffix implies. */
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

        /** The source, checked as {@link ImageSource#ImageSource} says. */
        public ImageSource build() {
            String name = url.getPath() == null ? "" : url.getPath().toLowerCase(Locale.ROOT);
            // Tar suffixes first: a .tar.gz also ends in .gz.
            Optional<Compression> tar = Stream.of(Compression.values())
                    .filter(candidate -> candidate.tarSuffixes.stream().anyMatch(name::endsWith)).findFirst();
            Compression implied = tar.orElseGet(() -> Stream.of(Compression.values())
                    .filter(candidate -> candidate != Compression.NONE && name.endsWith(candidate.fileSuffix()))
                    .findFirst().orElse(Compression.NONE));
            return new ImageSource(url, format, compression != null ? compression : implied,
                    archive != null ? archive : archiveMember != null || tar.isPresent() ? Archive.TAR : Archive.NONE,
                    Optional.ofNullable(archiveMember), Optional.ofNullable(sha256));
        }
    }
}
