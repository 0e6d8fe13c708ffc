package dev.egressproxies.integration.kvm;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;
import java.util.SplittableRandom;

/**
 * An image file for the ingest benchmark: {@code N} MiB of pseudo-random bytes (so neither a
 * compressing link nor a sparse write can shortcut it), made once under the temporary folder and
 * kept for later runs, with its sha256 in a file next to it. The sha256 file is written last, so
 * an image whose making was cut off is made again.
 *
 * <p>The bytes are a raw disk image to {@code kvm2} (a catalogue image declared {@code format:
 * raw}): the backend uploads the file's bytes as they are and never parses them, and a BIOS
 * guest booted from them just finds no bootable disk.
 *
 * @param file   the image file
 * @param bytes  its length
 * @param sha256 its lowercase hex sha256
 */
record BenchmarkImage(Path file, long bytes, String sha256) {
    private static final Path FOLDER = Path.of(System.getProperty("java.io.tmpdir"), "egress-ingest-benchmark");
    private static final int CHUNK = 1 << 20;

    /** The image of {@code mebibytes} MiB, made now unless an earlier run made it. */
    static BenchmarkImage ofMebibytes(int mebibytes) {
        Path file = FOLDER.resolve("ingest-" + mebibytes + "MiB.raw");
        Path digestFile = FOLDER.resolve(file.getFileName() + ".sha256");
        long bytes = (long) mebibytes * CHUNK;
        try {
            if (Files.isRegularFile(digestFile) && Files.isRegularFile(file) && Files.size(file) == bytes) {
                return new BenchmarkImage(file, bytes, Files.readString(digestFile, StandardCharsets.US_ASCII).strip());
            }
            Files.createDirectories(FOLDER);
            String sha256 = write(file, mebibytes);
            Files.writeString(digestFile, sha256 + "\n", StandardCharsets.US_ASCII);
            return new BenchmarkImage(file, bytes, sha256);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot make the benchmark image " + file, e);
        }
    }

    /** The length in MiB. */
    long mebibytes() {
        return bytes / CHUNK;
    }

    /** Writes the pseudo-random bytes (seeded by the size, so every run makes the same file); returns their sha256. */
    private static String write(Path file, int mebibytes) throws IOException {
        Path partial = file.resolveSibling(file.getFileName() + ".partial");
        MessageDigest digest = newSha256();
        SplittableRandom random = new SplittableRandom(mebibytes);
        ByteBuffer chunk = ByteBuffer.allocate(CHUNK);
        try (FileChannel out = FileChannel.open(partial, StandardOpenOption.CREATE, StandardOpenOption.WRITE,
                StandardOpenOption.TRUNCATE_EXISTING)) {
            for (int mebibyte = 0; mebibyte < mebibytes; mebibyte++) {
                chunk.clear();
                while (chunk.hasRemaining()) {
                    chunk.putLong(random.nextLong());
                }
                digest.update(chunk.array());
                chunk.flip();
                while (chunk.hasRemaining()) {
                    out.write(chunk);
                }
            }
        }
        Files.move(partial, file, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
        return HexFormat.of().formatHex(digest.digest());
    }

    private static MessageDigest newSha256() {
        try {
            return MessageDigest.getInstance("SHA-256");
        } catch (NoSuchAlgorithmException impossible) {
            // Every Java platform must provide SHA-256.
            throw new IllegalStateException(impossible);
        }
    }
}
