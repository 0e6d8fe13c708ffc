package dev.egressproxies.kvm.common.ssh;

import dev.egressproxies.kvm.common.ssh.SshTunnelException.Reason;
import java.io.IOException;
import java.io.InterruptedIOException;
import java.time.Duration;
import org.apache.sshd.client.future.OpenFuture;
import org.apache.sshd.client.session.ClientSession;
import org.apache.sshd.common.SshConstants;
import org.apache.sshd.common.channel.exception.SshChannelOpenException;
import org.apache.sshd.common.session.ConnectionService;

/**
 * The unix socket on the far side of an SSH session, to which each call of {@link #connect}
 * opens a new {@code direct-streamlocal} channel.
 */
final class RemoteSocket {
    private final ClientSession session;
    private final String path;
    private final String destination;
    private final Duration openTimeout;

    RemoteSocket(ClientSession session, String path, String destination, Duration openTimeout) {
        this.session = session;
        this.path = path;
        this.destination = destination;
        this.openTimeout = openTimeout;
    }

    /** Returns the socket's path on the host. */
    String path() {
        return path;
    }

    /** Opens a channel to the socket and returns it once sshd has connected it. */
    ChannelDirectStreamLocal connect() throws SshTunnelException {
        ChannelDirectStreamLocal channel = new ChannelDirectStreamLocal(path);
        try {
            session.getService(ConnectionService.class).registerChannel(channel);
            OpenFuture opened = channel.open();
            if (!opened.await(openTimeout)) {
                channel.close(true);
                throw new SshTunnelException(Reason.HANDSHAKE_TIMEOUT, "sshd at " + destination
                        + " did not answer a request to connect to " + path + " within " + openTimeout);
            }
            if (!opened.isOpened()) {
                throw refused(opened.getException());
            }
            return channel;
        } catch (InterruptedIOException e) {
            channel.close(true);
            Thread.currentThread().interrupt();
            throw new SshTunnelException(Reason.INTERRUPTED, "interrupted while connecting to " + path
                    + " through " + destination, e);
        } catch (IOException e) {
            channel.close(true);
            throw new SshTunnelException(Reason.HANDSHAKE_FAILED, "cannot open a channel to " + path + " through "
                    + destination + ": " + e.getMessage(), e);
        }
    }

    /**
     * Connects once and closes again, so that a tunnel is only handed out when forwarding works,
     * and a refusal is reported with its cause rather than as an unexplained end of stream.
     */
    void probe() throws SshTunnelException {
        connect().close(false);
    }

    private SshTunnelException refused(Throwable failure) {
        if (failure instanceof SshChannelOpenException refusal) {
            if (refusal.getReasonCode() == SshConstants.SSH_OPEN_ADMINISTRATIVELY_PROHIBITED) {
                return new SshTunnelException(Reason.FORWARDING_REFUSED, "sshd at " + destination
                        + " refuses to forward connections to unix sockets (" + refusal.getMessage() + "): set"
                        + " 'AllowStreamLocalForwarding yes' and 'AllowTcpForwarding yes' in its sshd_config, and"
                        + " make sure the user's authorized_keys entry has no 'restrict' or 'no-port-forwarding'",
                        refusal);
            }
            // OpenSSH answers "open failed" (connect failed) both when nothing listens on the path
            // and when its config forbids socket forwarding, so the message names both causes.
            return new SshTunnelException(Reason.REMOTE_SOCKET_UNAVAILABLE, "sshd at " + destination
                    + " could not connect to " + path + " (" + refusal.getMessage() + "): check that the service"
                    + " (libvirtd) is running there and the user may open that socket, and that sshd_config has"
                    + " 'AllowStreamLocalForwarding yes' and 'AllowTcpForwarding yes'", refusal);
        }
        String detail = failure == null ? "the SSH connection closed" : failure.toString();
        return new SshTunnelException(Reason.HANDSHAKE_FAILED, "cannot open a channel to " + path + " through "
                + destination + ": " + detail, failure);
    }
}
