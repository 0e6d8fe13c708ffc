package dev.egressproxies.kvm;

import dev.egressproxies.api.spi.ProgressReporter;
import java.io.FilterInputStream;
import java.io.IOException;
import java.io.InputStream;

/**
 * An image body on its way into a volume upload: counts what was read, reports progress, and keeps
 * the first read error and whether the body ended, so a failed upload can be blamed on the download
 * when the download failed.
 *
 * <p>The adapter may give up on the stream from another thread than the one reading it, so the
 * counters are volatile.
 */
final class CountingInputStream extends FilterInputStream {
    private final ProgressReporter.Progress progress;
    private volatile long count;
    private volatile IOException error;
    private volatile boolean ended;

    CountingInputStream(InputStream body, ProgressReporter.Progress progress) {
        super(body);
        this.progress = progress;
    }

    @Override
    public int read() throws IOException {
        byte[] one = new byte[1];
        int read = read(one, 0, 1);
        return read == -1 ? -1 : one[0] & 0xff;
    }

    @Override
    public int read(byte[] buffer, int offset, int length) throws IOException {
        int read;
        try {
            read = super.read(buffer, offset, length);
        } catch (IOException failure) {
            if (error == null) {
                error = failure;
            }
            throw failure;
        }
        if (read > 0) {
            count += read;
            progress.advance(read);
        } else if (read == -1) {
            ended = true;
        }
        return read;
    }

    @Override
    public long skip(long bytes) throws IOException {
        // An upload never skips; refusing keeps the count equal to what reached the volume.
        throw new IOException("an image body cannot skip bytes");
    }

    /** How many bytes were read. */
    long count() {
        return count;
    }

    /** Whether the body ended before {@code length} bytes were read from it. */
    boolean endedBefore(long length) {
        return ended && count < length;
    }

    /** The first read error, or null. */
    IOException error() {
        return error;
    }
}
