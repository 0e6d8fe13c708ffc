package dev.egressproxies.kvm.common.seed;

import java.time.Instant;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Objects;
import java.util.Set;
import java.util.regex.Pattern;

/**
 * What an ISO image holds: a volume label, the time it is recorded as made, and the files of
 * its single, root directory.
 *
 * <p>The label is 1 to {@value #MAXIMUM_LABEL_LENGTH} characters of ASCII letters, digits,
 * {@code _} and {@code -}: Joliet keeps it as given (16 UCS-2 characters is its limit), the
 * primary volume descriptor gets it uppercased with {@code -} as {@code _}, the only form
 * ECMA-119 d-characters allow. File names are unique; together the files hold at most
 * {@value #MAXIMUM_CONTENT_BYTES} bytes, and there are at most {@value #MAXIMUM_FILE_COUNT}
 * of them, which keeps the image small enough to build in memory.
 *
 * @param label      the volume label, such as {@code cidata}
 * @param recordedAt when the volume and its files are recorded as made; with the label and
 *                   files it fixes every byte of the image. Years 1900 to 2155 (UTC)
 * @param files      the root directory's files, in any order; the image does not depend on it
 */
public record IsoVolume(String label, Instant recordedAt, List<IsoFile> files) {
    /** The longest label accepted, in characters: the Joliet volume identifier's capacity. */
    public static final int MAXIMUM_LABEL_LENGTH = 16;
    /** The largest total content accepted, in bytes (32 MiB). */
    public static final int MAXIMUM_CONTENT_BYTES = 32 * 1024 * 1024;
    /** The most files accepted. */
    public static final int MAXIMUM_FILE_COUNT = 1024;

    private static final Pattern VALID_LABEL = Pattern.compile("[A-Za-z0-9_-]{1," + MAXIMUM_LABEL_LENGTH + "}");

    /**
     * Validates and copies the parts.
     *
     * @throws IllegalArgumentException when the label, the time, the file count, a duplicate
     *                                  name or the total size breaks the rules above
     */
    public IsoVolume {
        Objects.requireNonNull(label, "label");
        Objects.requireNonNull(recordedAt, "recordedAt");
        files = List.copyOf(files);
        if (!VALID_LABEL.matcher(label).matches()) {
            throw new IllegalArgumentException("volume label '" + label + "' is not allowed: use 1 to "
                    + MAXIMUM_LABEL_LENGTH + " ASCII letters, digits, '_' and '-'");
        }
        RecordingTime.requireRepresentable(recordedAt);
        if (files.size() > MAXIMUM_FILE_COUNT) {
            throw new IllegalArgumentException("an ISO volume holds at most " + MAXIMUM_FILE_COUNT
                    + " files here, not " + files.size());
        }
        Set<String> names = new HashSet<>();
        long contentBytes = 0;
        for (IsoFile file : files) {
            if (!names.add(file.name())) {
                throw new IllegalArgumentException("file name '" + file.name()
                        + "' appears twice: every file in the volume needs its own name");
            }
            contentBytes += file.size();
        }
        if (contentBytes > MAXIMUM_CONTENT_BYTES) {
            throw new IllegalArgumentException("the files hold " + contentBytes + " bytes, over the limit of "
                    + MAXIMUM_CONTENT_BYTES + " for an ISO volume built in memory: shrink them");
        }
    }

    /**
     * Returns the label in the form ECMA-119 allows in the primary volume descriptor:
     * d-characters (7.4.1), so uppercase, with {@code -} replaced by {@code _}.
     */
    String primaryVolumeIdentifier() {
        return label.toUpperCase(Locale.ROOT).replace('-', '_');
    }
}
