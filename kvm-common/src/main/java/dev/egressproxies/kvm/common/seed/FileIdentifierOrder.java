package dev.egressproxies.kvm.common.seed;

import java.util.Comparator;

/**
 * The order of file identifiers within a directory, as ECMA-119 9.3 prescribes: by file name,
 * then by extension, each compared as if the shorter were padded on the right with spaces.
 *
 * <p>This differs from plain string order when a dot is involved: {@code a.b} sorts before
 * {@code a-c} because the name {@code a} is compared with {@code a-c} as {@code "a  "}. Joliet
 * keeps the same rule with 16-bit characters; the names here are ASCII, so comparing
 * {@code char}s covers both hierarchies. Identifiers are compared without their {@code ;1}
 * version, which is the same for every file.
 */
final class FileIdentifierOrder implements Comparator<String> {
    static final FileIdentifierOrder INSTANCE = new FileIdentifierOrder();

    private FileIdentifierOrder() {
    }

    @Override
    public int compare(String left, String right) {
        int byName = comparePaddedWithSpaces(namePart(left), namePart(right));
        return byName != 0 ? byName : comparePaddedWithSpaces(extensionPart(left), extensionPart(right));
    }

    private static String namePart(String identifier) {
        int dot = identifier.lastIndexOf('.');
        return dot < 0 ? identifier : identifier.substring(0, dot);
    }

    private static String extensionPart(String identifier) {
        int dot = identifier.lastIndexOf('.');
        return dot < 0 ? "" : identifier.substring(dot + 1);
    }

    private static int comparePaddedWithSpaces(String left, String right) {
        int length = Math.max(left.length(), right.length());
        for (int index = 0; index < length; index++) {
            char leftCharacter = index < left.length() ? left.charAt(index) : ' ';
            char rightCharacter = index < right.length() ? right.charAt(index) : ' ';
            if (leftCharacter != rightCharacter) {
                return Character.compare(leftCharacter, rightCharacter);
            }
        }
        return 0;
    }
}
