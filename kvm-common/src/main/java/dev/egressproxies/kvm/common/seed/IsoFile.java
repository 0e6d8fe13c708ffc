package dev.egressproxies.kvm.common.seed;

import java.io.IOException;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.Objects;
import java.util.regex.Pattern;

/**
 * A file to place in the root directory of an ISO image: a name and its exact bytes.
 *
 * <p>Names are 1 to {@value #MAXIMUM_NAME_LENGTH} characters of lowercase ASCII letters, digits,
 * {@code .}, {@code _} and {@code -}, neither starting nor ending with a dot. Lowercase only, so
 * two valid names never differ by case alone (readers on case-insensitive systems would merge
 * them); no leading dot, because {@code .} and {@code ..} name directories; no trailing dot,
 * because the Linux kernel drops trailing dots from Joliet names. The length is the Joliet
 * limit of 64 UCS-2 characters per file identifier.
 *
 * <p>Instances are immutable: the content is copied in and out.
 */
public final class IsoFile {
    /** The longest file name accepted, in characters: Joliet's limit. */
    public static final int MAXIMUM_NAME_LENGTH = 64;

    private static final Pattern VALID_NAME = Pattern.compile("[a-z0-9_-]([a-z0-9._-]*[a-z0-9_-])?");

    private final String name;
    private final byte[] content;

    private IsoFile(String name, byte[] content) {
        this.name = requireValidName(name);
        this.content = Objects.requireNonNull(content, "content").clone();
    }

    /**
     * Creates a file holding {@code content}.
     *
     * @throws IllegalArgumentException when the name breaks the rules above
     */
    public static IsoFile of(String name, byte[] content) {
        return new IsoFile(name, content);
    }

    /**
     * Creates a file holding {@code text} encoded as UTF-8, without a byte order mark.
     *
     * @throws IllegalArgumentException when the name breaks the rules above
     */
    public static IsoFile ofUtf8(String name, String text) {
        return new IsoFile(name, Objects.requireNonNull(text, "text").getBytes(StandardCharsets.UTF_8));
    }

    /** Returns the file's name, as readers will show it. */
    public String name() {
        return name;
    }

    /** Returns a copy of the file's content. */
    public byte[] content() {
        return content.clone();
    }

    /** Returns the content's length in bytes. */
    public int size() {
        return content.length;
    }

    /** Writes the content to {@code output} without copying it first. */
    void writeContentTo(OutputStream output) throws IOException {
        output.write(content);
    }

    @Override
    public boolean equals(Object other) {
        return other instanceof IsoFile that && name.equals(that.name) && Arrays.equals(content, that.content);
    }

    @Override
    public int hashCode() {
        return 31 * name.hashCode() + Arrays.hashCode(content);
    }

    @Override
    public String toString() {
        return "IsoFile[" + name + ", " + content.length + " bytes]";
    }

    private static String requireValidName(String name) {
        Objects.requireNonNull(name, "name");
        if (name.isEmpty() || name.length() > MAXIMUM_NAME_LENGTH) {
            throw new IllegalArgumentException("file name '" + name + "' is " + name.length()
                    + " characters long: use 1 to " + MAXIMUM_NAME_LENGTH);
        }
        if (!VALID_NAME.matcher(name).matches()) {
            throw new IllegalArgumentException("file name '" + name + "' is not allowed: use lowercase"
                    + " letters a-z, digits, '.', '_' and '-', not starting or ending with '.'");
        }
        return name;
    }
}
