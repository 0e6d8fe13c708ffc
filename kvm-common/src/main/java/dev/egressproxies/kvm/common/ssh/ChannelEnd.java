package dev.egressproxies.kvm.common.ssh;

import dev.egressproxies.kvm.common.local.UnixSocketRelay;
import java.io.EOFException;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.ByteBuffer;
import org.apache.sshd.client.channel.AbstractClientChannel;

/**
 * The far end of one relayed connection over an open SSH channel: a {@code direct-streamlocal}
 * channel to the socket, or an exec channel running a helper that bridges to it.
 */
final class ChannelEnd implements UnixSocketRelay.FarEnd {
    private final AbstractClientChannel channel;
    private final String target;

    /** The far end over {@code channel}, which leads to {@code target} (for messages). */
    ChannelEnd(AbstractClientChannel channel, String target) {
        this.channel = channel;
        this.target = target;
    }

    /**
     * Reads what the socket sent; end of stream is an EOF from the host, while a channel that
     * closed (the host hung up, the SSH connection died) is an error, so the relay closes the local
     * connection entirely instead of waiting for its client.
     */
    @Override
    public int read(ByteBuffer buffer) throws IOException {
        int count = channel.getInvertedOut().read(buffer.array(), buffer.arrayOffset() + buffer.position(),
                buffer.remaining());
        if (count < 0 && channel.isClosing()) {
            throw new EOFException("the channel to " + target + " closed");
        }
        buffer.position(buffer.position() + Math.max(count, 0));
        return count;
    }

    @Override
    public void write(ByteBuffer buffer) throws IOException {
        OutputStream toSocket = channel.getInvertedIn();
        toSocket.write(buffer.array(), buffer.arrayOffset() + buffer.position(), buffer.remaining());
        toSocket.flush();
        buffer.position(buffer.limit());
    }

    /** Sends an SSH EOF: the host's socket sees its client half-close. */
    @Override
    public void shutdownOutput() throws IOException {
        channel.getInvertedIn().close();
    }

    /** Closes gracefully without waiting: the close is sent after pending data, so sshd releases its end too. */
    @Override
    public void close() {
        channel.close(false);
    }
}
