package dev.egressproxies.kvm.common.instance;

import java.util.Objects;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * What a base volume is, as its name and marker tell: the image key, the redacted source and the
 * digest where the backend records them, the format, and whether it was named before bases carried
 * their source's tag.
 *
 * @param key    the image key ({@code url} for a kvm2 URL image); {@code ""} when the name holds none
 * @param source the source, redacted to scheme, host and port; {@code ""} when unknown
 * @param sha256 the published file's sha256; {@code ""} when not recorded
 * @param format {@code qcow2} or {@code raw}
 * @param legacy named before bases carried their source ({@code KEY.base.FORMAT}): never used again
 */
public record BaseFacts(String key, String source, String sha256, String format, boolean legacy) {
    /** {@code [ENTRY+]KEY[.TAG].base.FORMAT}, TAG 16 hex digits. */
    private static final Pattern NAME = Pattern.compile("(?:[^+]*\\+)?(.+?)(\\.[0-9a-f]{16})?\\.base\\.(qcow2|raw)");

    public BaseFacts {
        Objects.requireNonNull(key, "key");
        Objects.requireNonNull(source, "source");
        Objects.requireNonNull(sha256, "sha256");
        Objects.requireNonNull(format, "format");
    }

    /** What the name alone says: key, format, and whether it has a source tag. */
    public static BaseFacts fromName(String volume) {
        Matcher name = NAME.matcher(volume);
        if (!name.matches()) {
            return new BaseFacts("", "", "", "", false);
        }
        return new BaseFacts(name.group(1), "", "", name.group(3), name.group(2) == null);
    }

    /** The 16 hex digits of the source's identity tag in the name, or {@code ""} for a legacy name. */
    public static String tagOf(String volume) {
        Matcher name = NAME.matcher(volume);
        return name.matches() && name.group(2) != null ? name.group(2).substring(1) : "";
    }

    /** These facts with the source and digest a marker or the configuration told. */
    public BaseFacts with(String knownSource, String knownSha256) {
        return new BaseFacts(key, knownSource, knownSha256, format, legacy);
    }
}
