package dev.egressproxies.kvm.common.ssh;

import java.io.IOException;
import java.io.OutputStream;
import org.apache.sshd.client.channel.AsyncCapableClientChannel;
import org.apache.sshd.client.future.DefaultOpenFuture;
import org.apache.sshd.client.future.OpenFuture;
import org.apache.sshd.common.SshConstants;
import org.apache.sshd.common.SshException;
import org.apache.sshd.common.channel.LocalWindow;
import org.apache.sshd.common.util.buffer.Buffer;

/**
 * An SSH client channel to a unix socket on the server: OpenSSH's
 * {@code direct-streamlocal@openssh.com}, which MINA SSHD does not provide.
 */
final class ChannelDirectStreamLocal extends AsyncCapableClientChannel {
    static final String TYPE = "direct-streamlocal@openssh.com";

    private final String socketPath;

    ChannelDirectStreamLocal(String socketPath) {
        super(TYPE, false);
        this.socketPath = socketPath;
    }

    /**
     * Sends the open request, whose type-specific part is (OpenSSH PROTOCOL, section 2.4): string
     * socket path, string reserved, uint32 reserved.
     */
    @Override
    public synchronized OpenFuture open() throws IOException {
        if (isClosing()) {
            throw new SshException("cannot open a channel to " + socketPath + ": the SSH connection is closing");
        }
        openFuture = new DefaultOpenFuture(socketPath, futureLock);
        LocalWindow window = getLocalWindow();
        Buffer buffer = getSession().createBuffer(SshConstants.SSH_MSG_CHANNEL_OPEN,
                TYPE.length() + socketPath.length() + Long.SIZE);
        buffer.putString(TYPE);
        buffer.putUInt(getChannelId());
        buffer.putUInt(window.getSize());
        buffer.putUInt(window.getPacketSize());
        buffer.putString(socketPath);
        buffer.putString("");
        buffer.putUInt(0L);
        writePacket(buffer);
        return openFuture;
    }

    /**
     * Ends the stream behind {@link #getInvertedOut()} when the server half-closes: MINA's base
     * class only records the EOF, which would leave a reader waiting for the channel's close.
     */
    @Override
    public void handleEof() throws IOException {
        super.handleEof();
        OutputStream pipe = out;
        if (pipe != null) {
            pipe.close();
        }
    }
}
