package dev.egressproxies.kvm.common.ssh;

import java.io.EOFException;
import java.io.IOException;
import java.net.StandardProtocolFamily;
import java.net.UnixDomainSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.SocketChannel;
import java.nio.file.Path;
import java.security.PublicKey;
import java.util.AbstractMap;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.apache.sshd.agent.common.AbstractAgentProxy;
import org.apache.sshd.common.config.keys.KeyUtils;
import org.apache.sshd.common.config.keys.OpenSshCertificate;
import org.apache.sshd.common.session.SessionContext;
import org.apache.sshd.common.util.buffer.Buffer;
import org.apache.sshd.common.util.buffer.ByteArrayBuffer;

/** MINA's ssh-agent protocol over the JDK's unix sockets: MINA's own unix agent client needs the APR native library. */
final class AgentSocket extends AbstractAgentProxy {
    static {
        // Before MINA first looks for its security providers.
        Ed25519Registrar.install();
    }

    /** ssh-agent refuses messages above 256 KiB; a larger answer is not an agent's. */
    private static final int MAXIMUM_MESSAGE = 256 * 1024;

    private final SocketChannel channel;

    private AgentSocket(SocketChannel channel) {
        super(null);
        this.channel = channel;
    }

    static AgentSocket connect(Path socket) throws IOException {
        SocketChannel channel = SocketChannel.open(StandardProtocolFamily.UNIX);
        try {
            channel.connect(UnixDomainSocketAddress.of(socket));
            return new AgentSocket(channel);
        } catch (IOException | RuntimeException e) {
            channel.close();
            throw e;
        }
    }

    /** The public keys the agent at {@code socket} holds, in its order. */
    static List<PublicKey> keys(Path socket) throws IOException {
        try (AgentSocket agent = connect(socket)) {
            List<PublicKey> keys = new ArrayList<>();
            agent.getIdentities().forEach(identity -> keys.add(identity.getKey()));
            return keys;
        }
    }

    /** For a certificate the agent names the certified key's algorithm, MINA expects the certificate's. */
    @Override
    public Map.Entry<String, byte[]> sign(SessionContext session, PublicKey key, String algorithm, byte[] data)
            throws IOException {
        Map.Entry<String, byte[]> signed = super.sign(session, key, algorithm, data);
        if (key instanceof OpenSshCertificate
                && signed.getKey().equals(KeyUtils.getSignatureAlgorithm(algorithm, key))) {
            return new AbstractMap.SimpleImmutableEntry<>(algorithm, signed.getValue());
        }
        return signed;
    }

    /** Sends one request and returns the agent's answer without its length field, as MINA expects. */
    @Override
    protected synchronized Buffer request(Buffer buffer) throws IOException {
        ByteBuffer out = ByteBuffer.wrap(buffer.array(), buffer.rpos(), buffer.available());
        while (out.hasRemaining()) {
            channel.write(out);
        }
        ByteBuffer length = readFully(ByteBuffer.allocate(Integer.BYTES));
        int size = length.flip().getInt();
        if (size < 1 || size > MAXIMUM_MESSAGE) {
            throw new IOException("the ssh-agent answered with a message of " + size + " bytes, which no agent sends");
        }
        return new ByteArrayBuffer(readFully(ByteBuffer.allocate(size)).array());
    }

    @Override
    public boolean isOpen() {
        return channel.isOpen();
    }

    @Override
    public void close() throws IOException {
        super.close();
        channel.close();
    }

    private ByteBuffer readFully(ByteBuffer into) throws IOException {
        while (into.hasRemaining()) {
            if (channel.read(into) < 0) {
                throw new EOFException("the ssh-agent closed the connection");
            }
        }
        return into;
    }
}
