package dev.egressproxies.kvm.common.image;

import java.util.List;
import java.util.Locale;

/**
 * What the end of an image URL's path says about the file: its compression and whether it is a
 * tar archive, for example {@code .qcow2.xz} (xz), {@code .img.gz} (gzip), {@code .tar.xz} and
 * {@code .tgz} (a compressed tar archive).
 *
 * @param compression the compression the suffix implies, {@link Compression#NONE} when none
 * @param archive     whether the suffix names a tar archive
 */
record ImpliedPackaging(Compression compression, Archive archive) {
    /** Longest first, so {@code .tar.gz} wins over {@code .gz}. */
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

    /** What a URL path ending like {@code path} implies; neither compression nor archive for anything else. */
    static ImpliedPackaging of(String path) {
        String name = path == null ? "" : path.toLowerCase(Locale.ROOT);
        for (Suffix suffix : SUFFIXES) {
            if (name.endsWith(suffix.text())) {
                return new ImpliedPackaging(suffix.compression(), suffix.archive());
            }
        }
        return new ImpliedPackaging(Compression.NONE, Archive.NONE);
    }

    private record Suffix(String text, Compression compression, Archive archive) {
    }
}
