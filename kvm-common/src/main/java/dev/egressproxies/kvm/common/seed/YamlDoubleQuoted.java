package dev.egressproxies.kvm.common.seed;

import java.util.Locale;

/**
 * A YAML double-quoted scalar: any string, written so that a YAML parser reads back exactly that
 * string and nothing else.
 *
 * <p>Quoting matters because a plain scalar is reinterpreted by content: {@code 123} becomes a
 * number, {@code no} a boolean under YAML 1.1 (which cloud-init's PyYAML speaks), and a name
 * containing {@code ": "} or a line break could add keys of its own. Inside double quotes only
 * backslash and {@code "} are special; everything outside printable ASCII is written as a
 * backslash-u escape with four hexadecimal digits, or backslash-U with eight beyond the Basic
 * Multilingual Plane (YAML 1.1 section 5.6, 1.2 section 5.7), so the document stays ASCII and
 * no control character reaches the parser raw.
 */
final class YamlDoubleQuoted {
    private YamlDoubleQuoted() {
    }

    /**
     * Returns {@code value} as a double-quoted scalar, quotes included.
     *
     * @throws IllegalArgumentException when {@code value} holds a lone surrogate, which is no
     *                                  character at all and cannot be written as one
     */
    static String quote(String value) {
        StringBuilder quoted = new StringBuilder(value.length() + 2).append('"');
        for (int index = 0; index < value.length(); ) {
            int codePoint = value.codePointAt(index);
            if (Character.isSurrogate((char) codePoint) && Character.charCount(codePoint) == 1) {
                throw new IllegalArgumentException("'" + value + "' holds a lone UTF-16 surrogate at index "
                        + index + ": it is not valid text");
            }
            if (codePoint == '"' || codePoint == '\\') {
                quoted.append('\\').appendCodePoint(codePoint);
            } else if (codePoint >= 0x20 && codePoint <= 0x7E) {
                quoted.appendCodePoint(codePoint);
            } else if (codePoint <= 0xFFFF) {
                quoted.append(String.format(Locale.ROOT, "\\u%04X", codePoint));
            } else {
                quoted.append(String.format(Locale.ROOT, "\\U%08X", codePoint));
            }
            index += Character.charCount(codePoint);
        }
        return quoted.append('"').toString();
    }
}
