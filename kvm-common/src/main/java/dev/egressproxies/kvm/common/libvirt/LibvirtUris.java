package dev.egressproxies.kvm.common.libvirt;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;

/** The libvirt connection URIs this module opens. */
public final class LibvirtUris {
    private static final char[] HEX = "0123456789ABCDEF".toCharArray();

    private LibvirtUris() {
    }

    /**
     * The URI of the system QEMU driver reached through a local unix socket, such as the local end
     * of an SSH tunnel: {@code qemu+unix:///system?socket=PATH}, the path percent-encoded so that
     * any character survives libvirt's URI parser.
     */
    public static String systemThroughSocket(Path socket) {
        return "qemu+unix:///system?socket=" + percentEncode(socket.toAbsolutePath().toString());
    }

    /** Percent-encodes every byte of the UTF-8 form but unreserved characters and slashes. */
    static String percentEncode(String text) {
        StringBuilder encoded = new StringBuilder(text.length());
        for (byte b : text.getBytes(StandardCharsets.UTF_8)) {
            char c = (char) (b & 0xFF);
            if (isUnreserved(c) || c == '/') {
                encoded.append(c);
            } else {
                encoded.append('%').append(HEX[(b >> 4) & 0xF]).append(HEX[b & 0xF]);
            }
        }
        return encoded.toString();
    }

    private static boolean isUnreserved(char c) {
        return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9')
                || c == '-' || c == '.' || c == '_' || c == '~';
    }
}
