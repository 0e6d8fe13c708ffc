package dev.egressproxies.runtime.config;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CharsetDecoder;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.nio.file.AccessDeniedException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;

/**
 * Reads a file of cloud-init user-data ({@code create --cloud-init}, {@code cloudInitFile} of a
 * desired set) as UTF-8 text, with errors that say what is wrong with the file rather than which
 * Java exception was thrown.
 */
public final class UserDataFile {
    private UserDataFile() {
    }

    /**
     * Reads the file.
     *
     * @throws ConfigException "no such file: PATH", "PATH is not UTF-8 text (byte 0xff at offset 0)",
     *                         or why else it cannot be read
     */
    public static String read(Path file) {
        byte[] bytes;
        try {
            bytes = Files.readAllBytes(file);
        } catch (NoSuchFileException e) {
            throw new ConfigException("no such file: " + file, e);
        } catch (AccessDeniedException e) {
            throw new ConfigException("cannot read " + file + ": permission denied", e);
        } catch (IOException e) {
            throw new ConfigException("cannot read " + file + ": " + (Files.isDirectory(file) ? "it is a directory"
                    : e.getMessage()), e);
        }
        CharsetDecoder decoder = StandardCharsets.UTF_8.newDecoder()
                .onMalformedInput(CodingErrorAction.REPORT)
                .onUnmappableCharacter(CodingErrorAction.REPORT);
        ByteBuffer input = ByteBuffer.wrap(bytes);
        try {
            return decoder.decode(input).toString();
        } catch (CharacterCodingException e) {
            // The decoder stops at the first byte it cannot decode.
            int offset = input.position();
            throw new ConfigException(file + " is not UTF-8 text (byte " + String.format("0x%02x", bytes[offset] & 0xff)
                    + " at offset " + offset + "): cloud-init user-data must be UTF-8", e);
        }
    }
}
