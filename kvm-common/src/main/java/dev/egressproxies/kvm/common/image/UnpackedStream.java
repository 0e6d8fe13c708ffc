package dev.egressproxies.kvm.common.image;

import dev.egressproxies.kvm.common.image.ImageFetchException.Reason;
import java.io.IOException;
import java.io.InputStream;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.OptionalLong;
import org.apache.commons.compress.archivers.tar.TarArchiveEntry;
import org.apache.commons.compress.archivers.tar.TarArchiveInputStream;

/**
 * The disk image as the consumer reads it, unpacked from the published bytes as the source
 * declares: the decoder for its compression, then the tar member when it is an archive.
 */
final class UnpackedStream extends InputStream {
    private static final int DRAIN_BUFFER_BYTES = 64 * 1024;
    /** How many names a message lists, so a huge archive cannot make a huge message. */
    private static final int NAMES_SHOWN = 10;
    /** How much of one name a message shows. */
    private static final int NAME_CHARACTERS_SHOWN = 100;

    private final InputStream content;
    private final OptionalLong length;
    private final InputStream decoded;
    private final VerifyingStream published;
    private final TarArchiveInputStream archive;
    private final TarArchiveEntry member;
    private final boolean memberNamed;
    private final String packaging;
    private final FetchAttempt attempt;
    private volatile long count;
    private volatile boolean finished;

    private UnpackedStream(InputStream decoded, VerifyingStream published, TarArchiveInputStream archive,
                           TarArchiveEntry member, boolean memberNamed, OptionalLong length, String packaging,
                           FetchAttempt attempt) {
        this.content = archive != null ? archive : decoded;
        this.length = length;
        this.decoded = decoded;
        this.published = published;
        this.archive = archive;
        this.member = member;
        this.memberNamed = memberNamed;
        this.packaging = packaging;
        this.attempt = attempt;
    }

    /**
     * Opens the image of {@code published}, reading as far as the decoder's header and, for an
     * archive, the member's header.
     *
     * @throws FetchAttempt.Failed why the image cannot be opened: the published bytes failed, or
     *     they are not what the source declares
     */
    static UnpackedStream open(ImageSource source, VerifyingStream published, FetchAttempt attempt) throws IOException {
        String packaging = source.packaging();
        try {
            InputStream decoded = source.compression().decoder(published);
            if (source.archive() == Archive.TAR) {
                @SuppressWarnings("resource") // Closed with the HTTP body it reads from, by the fetcher.
                TarArchiveInputStream archive = new TarArchiveInputStream(decoded);
                TarArchiveEntry member = findMember(archive, source.archiveMember(), attempt);
                return new UnpackedStream(decoded, published, archive, member, source.archiveMember().isPresent(),
                        OptionalLong.of(member.isSparse() ? member.getRealSize() : member.getSize()), packaging,
                        attempt);
            }
            OptionalLong length = source.compression() == Compression.NONE
                    ? OptionalLong.of(published.length()) : OptionalLong.empty();
            return new UnpackedStream(decoded, published, null, null, false, length, packaging, attempt);
        } catch (FetchAttempt.Failed failure) {
            throw failure;
        } catch (IOException | RuntimeException foreign) {
            throw notAsDeclared(foreign, packaging, attempt);
        } catch (LinkageError missingNativeLibrary) {
            // zstd-jni loads its native library on first use; a platform it has none for ends here.
            throw attempt.fail(attempt.permanent(Reason.CONTENT_INVALID, "the image from " + attempt.url() + " is "
                    + packaging + ", but the zstd decoder's native library could not be loaded on this machine ("
                    + attempt.url().describe(missingNativeLibrary) + "); publish the image with xz or gzip instead",
                    missingNativeLibrary));
        }
    }

    @Override
    public int read() throws IOException {
        byte[] one = new byte[1];
        return read(one, 0, 1) == -1 ? -1 : one[0] & 0xff;
    }

    @Override
    public int read(byte[] buffer, int offset, int wanted) throws IOException {
        if (finished) {
            return -1;
        }
        if (wanted == 0) {
            return 0;
        }
        if (length.isPresent() && count == length.getAsLong()) {
            // Only for a zero-length member: a longer content finished in the read of its last byte.
            finish();
            return -1;
        }
        int limit = length.isPresent() ? (int) Math.min(wanted, length.getAsLong() - count) : wanted;
        int read;
        try {
            read = content.read(buffer, offset, limit);
        } catch (FetchAttempt.Failed failure) {
            throw failure;
        } catch (IOException | RuntimeException foreign) {
            throw notAsDeclared(foreign, packaging, attempt);
        }
        if (read == -1) {
            if (length.isPresent()) {
                throw attempt.fail(attempt.permanent(Reason.CONTENT_INVALID, "the image in " + packaging + " from "
                        + attempt.url() + " ended after " + count + " of the " + length.getAsLong()
                        + " bytes its archive header announced; fix the file on the server", null));
            }
            finish();
            return -1;
        }
        count += read;
        if (length.isPresent() && count == length.getAsLong()) {
            finish();
        }
        return read;
    }

    /** The image's length, when known before it arrives. */
    OptionalLong length() {
        return length;
    }

    /** How many image bytes were delivered. */
    long count() {
        return count;
    }

    /** Whether the content ended and everything after it was read and checked. */
    boolean finished() {
        return finished;
    }

    /** Reads and checks the rest of the archive, the decoder's end and the published bytes' end. */
    private void finish() throws IOException {
        try {
            if (archive != null) {
                finishArchive();
            }
            // The published bytes are all read even when the image ended before them: the digest covers them all.
            byte[] drain = new byte[DRAIN_BUFFER_BYTES];
            while (decoded.read(drain, 0, drain.length) != -1) {
                // Discarded: only the checks that reading runs matter here.
            }
            while (published.read(drain, 0, drain.length) != -1) {
                // Likewise.
            }
        } catch (FetchAttempt.Failed failure) {
            throw failure;
        } catch (IOException | RuntimeException foreign) {
            throw notAsDeclared(foreign, packaging, attempt);
        }
        if (!published.verified()) {
            // A read of -1 before the announced length throws in VerifyingStream, so this cannot happen.
            throw new IllegalStateException("the published bytes ended without being checked");
        }
        finished = true;
    }

    /**
     * The failure for a foreign exception below: the attempt's recorded one when there is one (a
     * closed body or a short read shows up in a decoder as whatever it makes of it), else the file
     * is not what the source declares.
     */
    private static FetchAttempt.Failed notAsDeclared(Throwable foreign, String packaging, FetchAttempt attempt)
            throws FetchAttempt.Failed {
        attempt.throwIfFailed();
        return attempt.fail(attempt.permanent(Reason.CONTENT_INVALID, "the image from " + attempt.url() + " is not "
                + packaging + " as declared (" + attempt.url().describe(foreign) + "); check the compression and"
                + " archive declared for it, or fix the file on the server", foreign));
    }

    /** Reads {@code archive} up to the member's data. */
    private static TarArchiveEntry findMember(TarArchiveInputStream archive, Optional<String> member,
                                              FetchAttempt attempt) throws IOException {
        Optional<String> wanted = member.map(UnpackedStream::normalized);
        List<String> seen = new ArrayList<>();
        TarArchiveEntry entry;
        while ((entry = archive.getNextEntry()) != null) {
            boolean named = wanted.isPresent() && wanted.get().equals(normalized(entry.getName()));
            if (named && !entry.isFile()) {
                throw attempt.fail(attempt.permanent(Reason.CONTENT_INVALID, "the archive from " + attempt.url()
                        + " holds '" + shown(entry.getName()) + "' as a " + kind(entry) + ", not a regular file;"
                        + " name the file itself as the archive member", null));
            }
            if (named || wanted.isEmpty() && entry.isFile()) {
                return entry;
            }
            remember(seen, entry);
        }
        throw attempt.fail(attempt.permanent(Reason.CONTENT_INVALID, wanted.isPresent()
                ? "the archive from " + attempt.url() + " has no regular file named '" + shown(wanted.get())
                        + "'; it holds " + (seen.isEmpty() ? "no regular file" : listed(seen))
                        + "; fix the archive member's name"
                : "the archive from " + attempt.url() + " holds no regular file; fix the image URL", null));
    }

    /** Reads the archive past the member: with no member named, another regular file is ambiguous. */
    private void finishArchive() throws IOException {
        List<String> others = new ArrayList<>();
        TarArchiveEntry next;
        while ((next = archive.getNextEntry()) != null) {
            remember(others, next);
        }
        if (!memberNamed && !others.isEmpty()) {
            throw attempt.fail(attempt.permanent(Reason.CONTENT_INVALID, "the archive from " + attempt.url()
                    + " holds more than one file (" + shown(member.getName()) + ", " + listed(others)
                    + "); name the one that is the disk image as the archive member", null));
        }
    }

    private static String normalized(String name) {
        String stripped = name;
        while (stripped.startsWith("./") || stripped.startsWith("/")) {
            stripped = stripped.substring(stripped.startsWith("./") ? 2 : 1);
        }
        return stripped;
    }

    private static void remember(List<String> names, TarArchiveEntry entry) {
        if (entry.isFile() && names.size() < NAMES_SHOWN + 1) {
            names.add(shown(entry.getName()));
        }
    }

    private static String listed(List<String> names) {
        String list = String.join(", ", names.subList(0, Math.min(names.size(), NAMES_SHOWN)));
        return names.size() > NAMES_SHOWN ? list + ", ..." : list;
    }

    private static String shown(String name) {
        return name.length() <= NAME_CHARACTERS_SHOWN ? name : name.substring(0, NAME_CHARACTERS_SHOWN) + "...";
    }

    private static String kind(TarArchiveEntry entry) {
        if (entry.isDirectory()) {
            return "directory";
        }
        if (entry.isSymbolicLink()) {
            return "symbolic link";
        }
        return entry.isLink() ? "hard link" : "special file";
    }
}
