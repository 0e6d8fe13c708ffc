package dev.egressproxies.kvm.common.xml;

/**
 * Checks that text can be carried by XML 1.0 at all. The serializer escapes markup characters,
 * but no escaping can carry a control character or an unpaired surrogate: they would be written
 * out as references libvirt refuses to parse, so they are refused here with a message naming
 * the field.
 */
final class XmlText {
    private XmlText() {
    }

    /**
     * Returns {@code value} when every character is allowed in XML 1.0.
     *
     * @throws IllegalArgumentException naming {@code what} and the first offending character
     */
    static String require(String value, String what) {
        if (value == null) {
            throw new IllegalArgumentException(what + " is missing");
        }
        for (int index = 0; index < value.length(); ) {
            int codePoint = value.codePointAt(index);
            if (!isAllowed(codePoint)) {
                throw new IllegalArgumentException(what + " contains the character U+"
                        + String.format("%04X", codePoint) + " at index " + index
                        + ", which XML cannot carry; remove it from the configuration or request");
            }
            index += Character.charCount(codePoint);
        }
        return value;
    }

    /** XML 1.0's {@code Char} production. */
    private static boolean isAllowed(int codePoint) {
        return codePoint == 0x9 || codePoint == 0xA || codePoint == 0xD
                || (codePoint >= 0x20 && codePoint <= 0xD7FF)
                || (codePoint >= 0xE000 && codePoint <= 0xFFFD)
                || (codePoint >= 0x10000 && codePoint <= 0x10FFFF);
    }
}
