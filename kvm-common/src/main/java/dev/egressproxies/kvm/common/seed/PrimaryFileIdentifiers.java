package dev.egressproxies.kvm.common.seed;

import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;

/**
 * The names files get in the primary (plain ECMA-119) directory: interchange level 1
 * identifiers, unique within the directory.
 *
 * <p>Level 1 (ECMA-119 10.1) is the form every reader accepts: a name of at most 8 and an
 * extension of at most 3 d-characters ({@code A-Z}, {@code 0-9}, {@code _}; 7.4.1), so
 * {@code user-data} becomes {@code USER_DAT.}. These names only matter to readers that ignore
 * Joliet; the Joliet directory carries the real ones. Truncation can make two names collide
 * ({@code vendor-data} and {@code vendor-data2}), so a collision gets a number in place of the
 * last characters of its name part ({@code VENDOR_1.}). The identifiers returned carry the
 * separator dot (7.5.1 requires it even without an extension) but not the {@code ;1} version.
 */
final class PrimaryFileIdentifiers {
    private static final int NAME_LENGTH = 8;
    private static final int EXTENSION_LENGTH = 3;

    private PrimaryFileIdentifiers() {
    }

    /**
     * Assigns an identifier to each name.
     *
     * @param names distinct valid {@link IsoFile} names; the assignment depends on their order,
     *              so callers pass them sorted
     * @return each name's identifier, such as {@code USER_DAT.}, in the order of {@code names}
     */
    static Map<String, String> assign(List<String> names) {
        Map<String, String> identifiers = new LinkedHashMap<>();
        Set<String> taken = new HashSet<>();
        for (String name : names) {
            int dot = name.lastIndexOf('.');
            String namePart = toDCharacters(dot < 0 ? name : name.substring(0, dot));
            String extension = truncate(toDCharacters(dot < 0 ? "" : name.substring(dot + 1)), EXTENSION_LENGTH);
            String identifier = truncate(namePart, NAME_LENGTH) + "." + extension;
            for (int counter = 1; !taken.add(identifier); counter++) {
                String number = Integer.toString(counter);
                identifier = truncate(namePart, NAME_LENGTH - number.length()) + number + "." + extension;
            }
            identifiers.put(name, identifier);
        }
        return identifiers;
    }

    /** Maps a valid file name's characters to d-characters: uppercase, anything else {@code _}. */
    private static String toDCharacters(String text) {
        StringBuilder mapped = new StringBuilder(text.length());
        for (char character : text.toUpperCase(Locale.ROOT).toCharArray()) {
            boolean dCharacter = (character >= 'A' && character <= 'Z')
                    || (character >= '0' && character <= '9') || character == '_';
            mapped.append(dCharacter ? character : '_');
        }
        return mapped.toString();
    }

    private static String truncate(String text, int length) {
        return text.length() <= length ? text : text.substring(0, length);
    }
}
