package dev.egressproxies.kvm.common.image;

import dev.egressproxies.kvm.common.image.ImageFetchException.Reason;
import java.io.IOException;
import java.io.InputStream;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.regex.Pattern;
import org.apache.commons.compress.archivers.tar.TarArchiveEntry;
import org.apache.commons.compress.archivers.tar.TarArchiveInputStream;

/**
 * The disk image as the consumer reads it, unpacked from the published bytes as the source
 * declares: the decoder for its compression, then the tar member when it is an archive.
 */
final class UnpackedStream extends InputStream {
    private static final int DRAIN_BUFFER_BYTES = 64 * 1024;
    /** How many names, and how much of each, a message shows: a huge archive must not make a huge message. */
    private static final int NAMES_SHOWN = 10;
    private static final int NAME_CHARACTERS_SHOWN = 100;
    private static final Pattern LEADING_DOTS_AND_SLASHES = Pattern.compile("^(\\./|/)+");

    private final VerifyingStream published;
    private final FetchAttempt attempt;
    private final String packaging;
    private final Optional<String> memberName;
    private final InputStream decoded;
    private final TarArchiveInputStream archive;
    private final TarArchiveEntry member;
    private final OptionalLong length;
    private volatile long count;
    private volatile boolean finished;

    /** Opens the image, reading the decoder's header and any archive member's; fails as the attempt's failure. */
    @SuppressWarnings("resource") // The archive is closed with the HTTP body it reads from, by the fetcher.
    UnpackedStream(ImageSource source, VerifyingStream published, FetchAttempt attempt) throws IOException {
        this.published = published;
        this.attempt = attempt;
        this.packaging = source.packaging();
        this.memberName = source.archiveMember();
        try {
            decoded = source.compression().decoder(published);
            archive = source.archive() == Archive.TAR ? new TarArchiveInputStream(decoded) : null;
            member = archive == null ? null : findMember();
        } catch (IOException | RuntimeException foreign) {
            throw notAsDeclared(foreign);
        } catch (LinkageError missingNativeLibrary) {
            // zstd-jni loads its native library on first use; a platform it has none for ends here.
            throw attempt.fail(attempt.permanent(Reason.CONTENT_INVALID, "the image from " + attempt.url() + " is "
                    + packaging + ", but the zstd decoder's native library could not be loaded on this machine ("
                    + attempt.url().describe(missingNativeLibrary) + "); publish the image with xz or gzip instead",
                    missingNativeLibrary));
        }
        length = member != null ? OptionalLong.of(member.isSparse() ? member.getRealSize() : member.getSize())
                : source.compression() == Compression.NONE ? OptionalLong.of(published.length()) : OptionalLong.empty();
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
            read = (archive != null ? archive : decoded).read(buffer, offset, limit);
        } catch (IOException | RuntimeException foreign) {
            throw notAsDeclared(foreign);
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

    OptionalLong length() {
        return length;
    }

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
            for (InputStream rest : List.of(decoded, published)) {
                while (rest.read(drain, 0, drain.length) != -1) {
                    // Discarded: only the checks that reading runs matter here.
                }
            }
        } catch (IOException | RuntimeException foreign) {
            throw notAsDeclared(foreign);
        }
        if (!published.verified()) {
            // A read of -1 before the announced length throws in VerifyingStream, so this cannot happen.
            throw new IllegalStateException("the published bytes ended without being checked");
        }
        finished = true;
    }

    /** A decoder reports a closed or short body as whatever it makes of it: a recorded failure comes first. */
    private IOException notAsDeclared(Throwable foreign) throws IOException {
        attempt.throwIfFailed();
        return attempt.fail(attempt.permanent(Reason.CONTENT_INVALID, "the image from " + attempt.url() + " is not "
                + packaging + " as declared (" + attempt.url().describe(foreign) + "); check the compression and"
                + " archive declared for it, or fix the file on the server", foreign));
    }

    /** Reads the archive up to the member's data. */
    private TarArchiveEntry findMember() throws IOException {
        Optional<String> wanted = memberName.map(UnpackedStream::normalized);
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
        if (memberName.isEmpty() && !others.isEmpty()) {
            throw attempt.fail(attempt.permanent(Reason.CONTENT_INVALID, "the archive from " + attempt.url()
                    + " holds more than one file (" + shown(member.getName()) + ", " + listed(others)
                    + "); name the one that is the disk image as the archive member", null));
        }
    }

    private static String normalized(String name) {
        return LEADING_DOTS_AND_SLASHES.matcher(name).replaceFirst("");
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
        return entry.isDirectory() ? "directory" : entry.isSymbolicLink() ? "symbolic link"
                : entry.isLink() ? "hard link" : "special file";
    }
}
