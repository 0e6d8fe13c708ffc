package dev.egressproxies.kvm.common.image;

import dev.egressproxies.kvm.common.image.ImageFetchException.Reason;
import java.io.IOException;
import java.io.InputStream;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import org.apache.commons.compress.archivers.tar.TarArchiveEntry;
import org.apache.commons.compress.archivers.tar.TarArchiveInputStream;

/**
 * The one regular file of a tar stream that is the disk image: the member of the configured name,
 * or, when none is named, the archive's only regular file. Its data is streamed as it passes;
 * members before it are read past, and the rest of the archive is checked when its data ends.
 *
 * <p>Names compare without a leading {@code ./} or {@code /}, since tar writes either depending on
 * how it was called. GNU and PAX sparse members (a raw disk archived with {@code tar -S}) are
 * expanded, holes as zeros.
 */
final class TarMember {
    /** How many names a message lists, so a huge archive cannot make a huge message. */
    private static final int NAMES_SHOWN = 10;
    /** How much of one name a message shows. */
    private static final int NAME_CHARACTERS_SHOWN = 100;

    private final TarArchiveInputStream archive;
    private final Optional<String> wanted;
    private final TarArchiveEntry entry;
    private final FailureLatch latch;
    private final FetchFailures failures;

    private TarMember(TarArchiveInputStream archive, Optional<String> wanted, TarArchiveEntry entry, FailureLatch latch,
                      FetchFailures failures) {
        this.archive = archive;
        this.wanted = wanted;
        this.entry = entry;
        this.latch = latch;
        this.failures = failures;
    }

    /**
     * Reads {@code tar} up to the member's data.
     *
     * @throws IOException a {@link FailureLatch.PipelineFailure} when the archive has no such
     *                     member, or the decoder's own exception when the stream is no tar archive
     */
    static TarMember find(InputStream tar, Optional<String> member, FailureLatch latch, FetchFailures failures)
            throws IOException {
        @SuppressWarnings("resource") // Closed with the HTTP body it reads from, by the fetcher.
        TarArchiveInputStream archive = new TarArchiveInputStream(tar);
        Optional<String> wanted = member.map(TarMember::normalized);
        List<String> seen = new ArrayList<>();
        TarArchiveEntry entry;
        while ((entry = archive.getNextEntry()) != null) {
            boolean named = wanted.isPresent() && wanted.get().equals(normalized(entry.getName()));
            if (named && !entry.isFile()) {
                throw latch.record(failures.permanent(Reason.CONTENT_INVALID, "the archive from " + failures.url()
                        + " holds '" + shown(entry.getName()) + "' as a " + kind(entry) + ", not a regular file;"
                        + " name the file itself as the archive member", null));
            }
            if (named || wanted.isEmpty() && entry.isFile()) {
                return new TarMember(archive, wanted, entry, latch, failures);
            }
            remember(seen, entry);
        }
        throw latch.record(failures.permanent(Reason.CONTENT_INVALID, wanted.isPresent()
                ? "the archive from " + failures.url() + " has no regular file named '" + shown(wanted.get())
                        + "'; it holds " + (seen.isEmpty() ? "no regular file" : listed(seen))
                        + "; fix the archive member's name"
                : "the archive from " + failures.url() + " holds no regular file; fix the image URL", null));
    }

    /** The member's data; ends (-1) where the member ends. */
    InputStream data() {
        return archive;
    }

    /** The member's length once unpacked (a sparse member's expanded length). */
    long length() {
        return entry.isSparse() ? entry.getRealSize() : entry.getSize();
    }

    /**
     * Reads the rest of the archive, past the member: when no member was named, another regular file
     * makes the choice ambiguous, which is PERMANENT.
     */
    void finishArchive() throws IOException {
        List<String> others = new ArrayList<>();
        TarArchiveEntry next;
        while ((next = archive.getNextEntry()) != null) {
            if (next.isFile()) {
                remember(others, next);
            }
        }
        if (wanted.isEmpty() && !others.isEmpty()) {
            throw latch.record(failures.permanent(Reason.CONTENT_INVALID, "the archive from " + failures.url()
                    + " holds more than one file (" + shown(entry.getName()) + ", " + listed(others)
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
