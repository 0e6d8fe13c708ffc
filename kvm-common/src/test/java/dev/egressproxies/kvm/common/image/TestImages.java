package dev.egressproxies.kvm.common.image;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.http.HttpClient;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.time.Duration;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Random;
import org.apache.commons.compress.archivers.tar.TarArchiveEntry;
import org.apache.commons.compress.archivers.tar.TarArchiveOutputStream;
import org.apache.commons.compress.compressors.bzip2.BZip2CompressorOutputStream;
import org.apache.commons.compress.compressors.gzip.GzipCompressorOutputStream;
import org.apache.commons.compress.compressors.xz.XZCompressorOutputStream;
import org.apache.commons.compress.compressors.zstandard.ZstdCompressorOutputStream;
import org.tukaani.xz.LZMA2Options;

/** Image files made in the tests: disk-like bytes, their compressed and archived forms, digests. */
final class TestImages {
    private TestImages() {
    }

    /** An HTTP client like the platform's: follows redirects, except from https to http. */
    static HttpClient followingClient() {
        return HttpClient.newBuilder().followRedirects(HttpClient.Redirect.NORMAL)
                .connectTimeout(Duration.ofSeconds(5)).build();
    }

    /** An HTTP client that follows no redirect. */
    static HttpClient nonFollowingClient() {
        return HttpClient.newBuilder().followRedirects(HttpClient.Redirect.NEVER)
                .connectTimeout(Duration.ofSeconds(5)).build();
    }

    /**
     * {@code length} bytes that look like a disk: runs of zeros, text-like stretches and random
     * blocks, so compression has something to do and something it cannot do.
     */
    static byte[] disk(int length, long seed) {
        Random random = new Random(seed);
        byte[] disk = new byte[length];
        int position = 0;
        while (position < length) {
            int run = Math.min(length - position, 4096 + random.nextInt(60_000));
            switch (random.nextInt(3)) {
                case 0 -> position += run; // zeros
                case 1 -> {
                    for (int index = 0; index < run; index++) {
                        disk[position + index] = (byte) ('a' + random.nextInt(8));
                    }
                    position += run;
                }
                default -> {
                    byte[] noise = new byte[run];
                    random.nextBytes(noise);
                    System.arraycopy(noise, 0, disk, position, run);
                    position += run;
                }
            }
        }
        return disk;
    }

    /** {@code data} compressed as {@code compression} by Commons Compress's writers. */
    static byte[] compress(Compression compression, byte[] data) {
        ByteArrayOutputStream compressed = new ByteArrayOutputStream();
        try (OutputStream out = compressor(compression, compressed)) {
            out.write(data);
        } catch (IOException impossible) {
            throw new UncheckedIOException(impossible);
        }
        return compressed.toByteArray();
    }

    /** A tar archive of the given files, in order. */
    static byte[] tar(Map<String, byte[]> files) {
        ByteArrayOutputStream archive = new ByteArrayOutputStream();
        try (TarArchiveOutputStream out = new TarArchiveOutputStream(archive)) {
            out.setLongFileMode(TarArchiveOutputStream.LONGFILE_POSIX);
            for (Map.Entry<String, byte[]> file : files.entrySet()) {
                TarArchiveEntry entry = new TarArchiveEntry(file.getKey());
                entry.setSize(file.getValue().length);
                out.putArchiveEntry(entry);
                out.write(file.getValue());
                out.closeArchiveEntry();
            }
        } catch (IOException impossible) {
            throw new UncheckedIOException(impossible);
        }
        return archive.toByteArray();
    }

    /** Files in the given order: name, content, name, content, ... */
    static Map<String, byte[]> files(Object... namesAndContents) {
        Map<String, byte[]> files = new LinkedHashMap<>();
        for (int index = 0; index < namesAndContents.length; index += 2) {
            files.put((String) namesAndContents[index], (byte[]) namesAndContents[index + 1]);
        }
        return files;
    }

    /** The lowercase hex sha256 of {@code data}. */
    static String sha256(byte[] data) {
        try {
            return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(data));
        } catch (NoSuchAlgorithmException impossible) {
            throw new IllegalStateException(impossible);
        }
    }

    /** An xz writer at preset 1: quick to write in a test, and decoded like any other preset. */
    static XZCompressorOutputStream xz(OutputStream out) throws IOException {
        return XZCompressorOutputStream.builder().setOutputStream(out).setLzma2Options(new LZMA2Options(1)).get();
    }

    private static OutputStream compressor(Compression compression, OutputStream out) throws IOException {
        return switch (compression) {
            case NONE -> out;
            case XZ -> xz(out);
            case GZIP -> new GzipCompressorOutputStream(out);
            case BZIP2 -> new BZip2CompressorOutputStream(out);
            case ZSTD -> new ZstdCompressorOutputStream(out);
        };
    }
}
