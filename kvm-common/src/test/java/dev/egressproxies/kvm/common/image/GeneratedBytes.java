package dev.egressproxies.kvm.common.image;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;
import java.util.Random;

/**
 * Test image bytes made on the fly from a seed: the same seed always gives the same bytes, so a
 * large image can be served, and its digest computed, without ever being held in memory.
 *
 * <p>Each 64 KiB block is a fixed random block with the block number mixed into its first bytes,
 * so no two blocks are equal (a digest over them means something) while making them costs little.
 */
final class GeneratedBytes {
    private static final int BLOCK = 64 * 1024;

    private final byte[] pattern = new byte[BLOCK];

    GeneratedBytes(long seed) {
        new Random(seed).nextBytes(pattern);
    }

    /** Writes the first {@code length} bytes to {@code out}. */
    void writeTo(OutputStream out, long length) throws IOException {
        byte[] block = new byte[BLOCK];
        long written = 0;
        for (long index = 0; written < length; index++) {
            fill(block, index);
            int size = (int) Math.min(BLOCK, length - written);
            out.write(block, 0, size);
            written += size;
        }
    }

    /** The first {@code length} bytes as a stream. */
    InputStream stream(long length) {
        return new InputStream() {
            private final byte[] block = new byte[BLOCK];
            private long position;

            @Override
            public int read() {
                byte[] one = new byte[1];
                return read(one, 0, 1) == -1 ? -1 : one[0] & 0xff;
            }

            @Override
            public int read(byte[] buffer, int offset, int wanted) {
                if (position >= length) {
                    return -1;
                }
                long blockIndex = position / BLOCK;
                int inBlock = (int) (position % BLOCK);
                fill(block, blockIndex);
                int size = (int) Math.min(Math.min(wanted, BLOCK - inBlock), length - position);
                System.arraycopy(block, inBlock, buffer, offset, size);
                position += size;
                return size;
            }
        };
    }

    /** The lowercase hex sha256 of the first {@code length} bytes. */
    String sha256(long length) throws IOException {
        MessageDigest digest;
        try {
            digest = MessageDigest.getInstance("SHA-256");
        } catch (NoSuchAlgorithmException impossible) {
            throw new IllegalStateException(impossible);
        }
        byte[] block = new byte[BLOCK];
        long done = 0;
        for (long index = 0; done < length; index++) {
            fill(block, index);
            int size = (int) Math.min(BLOCK, length - done);
            digest.update(block, 0, size);
            done += size;
        }
        return HexFormat.of().formatHex(digest.digest());
    }

    private void fill(byte[] block, long index) {
        System.arraycopy(pattern, 0, block, 0, BLOCK);
        for (int shift = 0; shift < Long.BYTES; shift++) {
            block[shift] ^= (byte) (index >>> (8 * shift));
        }
    }
}
