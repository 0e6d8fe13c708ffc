package dev.egressproxies.kvm.common.libvirt;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.util.Arrays;
import org.libvirt.Connect;
import org.libvirt.StorageVol;
import org.libvirt.Stream;

/**
 * Moves bytes into and out of a storage volume through a libvirt stream, finishing the stream on
 * success and aborting it on any failure, so the daemon never waits for data that will not come.
 */
final class VolumeTransfer {
    /**
     * Large enough that the per-call overhead disappears, small enough that the upload starts
     * sending soon (it sent nothing before a whole MiB had arrived when chunks were that size).
     */
    private static final int CHUNK_BYTES = 256 * 1024;

    private VolumeTransfer() {
    }

    /** Streams exactly {@code length} bytes of {@code data} into the volume from its start. */
    static void upload(Connect connect, StorageVol volume, InputStream data, long length)
            throws org.libvirt.LibvirtException {
        if (length < 0) {
            throw new IllegalArgumentException("upload length " + length + " is negative");
        }
        if (length == 0) {
            // libvirt reads a length of zero as "up to the end of the volume"; nothing to send.
            return;
        }
        send(connect, volume, length, (int) Math.min(CHUNK_BYTES, length), (chunk, sent) -> sent == length ? 0
                : readChunk(data, chunk, (int) Math.min(chunk.length, length - sent), sent, length));
    }

    /** Streams {@code data} into the volume from its start until {@code data} ends. */
    static void uploadUntilEnd(Connect connect, StorageVol volume, InputStream data) throws org.libvirt.LibvirtException {
        send(connect, volume, 0, CHUNK_BYTES, (chunk, sent) -> readSome(data, chunk, sent));
    }

    /** Where an upload's chunks come from: fills the start of {@code chunk}, returning the count, 0 or less at the end. */
    private interface ChunkSource {
        int fill(byte[] chunk, long sent);
    }

    /** Uploads {@code length} bytes (0: until the source ends) and finishes the stream, or aborts it on any failure. */
    private static void send(Connect connect, StorageVol volume, long length, int chunkBytes, ChunkSource source)
            throws org.libvirt.LibvirtException {
        Stream stream = connect.streamNew(0);
        boolean finished = false;
        try {
            volume.upload(stream, 0, length, 0);
            Chunk chunk = new Chunk(chunkBytes);
            long sent = 0;
            int read;
            while ((read = source.fill(chunk.bytes, sent)) > 0) {
                chunk.send(stream, read);
                sent += read;
            }
            stream.finish();
            finished = true;
        } finally {
            if (!finished) {
                abortQuietly(stream);
            }
            freeQuietly(stream);
        }
    }

    /** Reads the volume's first bytes, at most {@code maximumBytes}. */
    static byte[] download(Connect connect, StorageVol volume, int maximumBytes) throws org.libvirt.LibvirtException {
        if (maximumBytes < 0) {
            throw new IllegalArgumentException("download limit " + maximumBytes + " is negative");
        }
        if (maximumBytes == 0) {
            // A length of zero would ask libvirt for the whole volume.
            return new byte[0];
        }
        Stream stream = connect.streamNew(0);
        boolean ended = false;
        try {
            volume.download(stream, 0, maximumBytes, 0);
            ByteBuffer buffer = ByteBuffer.allocate(maximumBytes);
            while (buffer.hasRemaining() && !ended) {
                ended = read(stream, buffer) < 0;
            }
            if (!ended) {
                // libvirt sends no more than the length asked for, so the end of the stream follows.
                ended = read(stream, ByteBuffer.allocate(1)) < 0;
            }
            return Arrays.copyOf(buffer.array(), buffer.position());
        } finally {
            if (!ended) {
                abortQuietly(stream);
            }
            freeQuietly(stream);
        }
    }

    private static int readChunk(InputStream data, byte[] chunk, int wanted, long sent, long length) {
        int read;
        try {
            read = data.readNBytes(chunk, 0, wanted);
        } catch (IOException e) {
            throw new UploadSourceException("reading the data to upload failed after " + sent + " of " + length
                    + " bytes: " + e.getMessage(), e);
        }
        if (read == 0) {
            throw new UploadSourceException("the data to upload ended after " + sent + " of the " + length
                    + " bytes announced; the upload was aborted", null);
        }
        return read;
    }

    /** Fills as much of {@code chunk} as the data gives before it ends; -1 once it has ended. */
    private static int readSome(InputStream data, byte[] chunk, long sent) {
        int read;
        try {
            read = data.readNBytes(chunk, 0, chunk.length);
        } catch (IOException e) {
            throw new UploadSourceException("reading the data to upload failed after " + sent + " bytes: "
                    + e.getMessage(), e);
        }
        return read == 0 ? -1 : read;
    }

    /** One chunk of the upload: read into a heap array, sent from a direct buffer. */
    private static final class Chunk {
        final byte[] bytes;
        private final ByteBuffer direct;

        Chunk(int size) {
            bytes = new byte[size];
            direct = ByteBuffer.allocateDirect(size);
        }

        /** Sends the first {@code length} bytes of {@link #bytes}. */
        void send(Stream stream, int length) throws org.libvirt.LibvirtException {
            direct.clear();
            direct.put(bytes, 0, length).flip();
            try {
                // Stream.write sends until the buffer is empty (libvirt may take less per call).
                stream.write(direct);
            } catch (IOException e) {
                throw unwrap(e);
            }
        }
    }

    /** One read from the stream; -1 at its end (libvirt-java finishes the stream then). */
    private static int read(Stream stream, ByteBuffer buffer) throws org.libvirt.LibvirtException {
        try {
            return stream.read(buffer);
        } catch (IOException e) {
            throw unwrap(e);
        }
    }

    /** The libvirt error inside libvirt-java's channel exception, so its code is not lost. */
    private static org.libvirt.LibvirtException unwrap(IOException e) {
        if (e.getCause() instanceof org.libvirt.LibvirtException libvirtError) {
            return libvirtError;
        }
        throw new UncheckedIOException("libvirt stream failed: " + e.getMessage(), e);
    }

    private static void abortQuietly(Stream stream) {
        try {
            stream.abort();
        } catch (org.libvirt.LibvirtException | RuntimeException e) {
            // The transfer already failed and that failure is what the caller sees; an abort that
            // fails too (the link is gone) changes nothing for the daemon, which drops the stream.
        }
    }

    private static void freeQuietly(Stream stream) {
        try {
            stream.free();
        } catch (org.libvirt.LibvirtException | RuntimeException e) {
            // Freeing only releases the client-side object; failing to do so leaks a little memory
            // on a link that is broken anyway.
        }
    }
}
