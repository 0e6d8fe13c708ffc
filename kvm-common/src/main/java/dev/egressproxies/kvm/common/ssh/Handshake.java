package dev.egressproxies.kvm.common.ssh;

import dev.egressproxies.kvm.common.ssh.SshTunnelException.Reason;
import java.io.IOException;
import java.io.InterruptedIOException;
import java.security.KeyPair;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.stream.Collectors;
import org.apache.sshd.client.SshClient;
import org.apache.sshd.client.future.AuthFuture;
import org.apache.sshd.client.future.ConnectFuture;
import org.apache.sshd.client.session.ClientSession;
import org.apache.sshd.common.SshConstants;
import org.apache.sshd.common.SshException;
import org.apache.sshd.common.config.keys.KeyUtils;

/**
 * The steps from nothing to an authenticated SSH session (TCP connect, key exchange with the host
 * key check, public-key authentication), all within one deadline, with each failure translated
 * into an {@link SshTunnelException} that says what to fix.
 */
final class Handshake {
    private final SshTunnelSettings settings;
    private final HostKeyCheck hostKeyCheck;
    private final long deadlineNanos;

    Handshake(SshTunnelSettings settings, HostKeyCheck hostKeyCheck) {
        this.settings = settings;
        this.hostKeyCheck = hostKeyCheck;
        this.deadlineNanos = System.nanoTime() + settings.handshakeTimeout().toNanos();
    }

    /** Returns the remaining time of the handshake's budget, never negative. */
    Duration remaining() {
        return Duration.ofNanos(Math.max(0, deadlineNanos - System.nanoTime()));
    }

    /** Connects and authenticates with {@code keyPairs}; on failure nothing of the session is left open. */
    ClientSession perform(SshClient client, List<KeyPair> keyPairs) throws SshTunnelException {
        ClientSession session = null;
        try {
            ConnectFuture connecting = client.connect(settings.user(), settings.host(), settings.port());
            if (!connecting.await(remaining())) {
                connecting.cancel();
                throw timeout("connecting");
            }
            if (!connecting.isConnected()) {
                throw unreachable(connecting.getException());
            }
            session = connecting.getClientSession();
            keyPairs.forEach(session::addPublicKeyIdentity);
            AuthFuture authenticating = session.auth();
            if (!authenticating.await(remaining())) {
                throw hostKeyRejection().orElse(timeout("key exchange and authentication"));
            }
            if (!authenticating.isSuccess()) {
                throw authenticationFailure(authenticating.getException(), keyPairs);
            }
            return session;
        } catch (InterruptedIOException e) {
            closeQuietly(session);
            Thread.currentThread().interrupt();
            throw new SshTunnelException(Reason.INTERRUPTED, "interrupted while connecting to "
                    + settings.destination(), e);
        } catch (SshTunnelException e) {
            closeQuietly(session);
            throw e;
        } catch (IOException | RuntimeException e) {
            closeQuietly(session);
            throw hostKeyRejection().orElse(new SshTunnelException(Reason.HANDSHAKE_FAILED,
                    "SSH handshake with " + settings.destination() + " failed: " + e, e));
        }
    }

    private Optional<SshTunnelException> hostKeyRejection() {
        return hostKeyCheck.rejection();
    }

    private SshTunnelException timeout(String step) {
        return new SshTunnelException(Reason.HANDSHAKE_TIMEOUT, "sshd at " + settings.destination()
                + " did not complete " + step + " within the handshake timeout of " + settings.handshakeTimeout()
                + ": check that the address and port lead to a responsive sshd");
    }

    private SshTunnelException unreachable(Throwable cause) {
        String detail = cause == null ? "connection failed" : cause.getMessage() == null ? cause.toString()
                : cause.getMessage();
        return new SshTunnelException(Reason.UNREACHABLE, "cannot reach sshd at " + settings.host() + ":"
                + settings.port() + " (" + detail + "): check the host's address and port and that sshd is running"
                + " there", cause);
    }

    private SshTunnelException authenticationFailure(Throwable cause, List<KeyPair> keyPairs) {
        Optional<SshTunnelException> rejection = hostKeyRejection();
        if (rejection.isPresent()) {
            return rejection.get();
        }
        if (hasDisconnectCode(cause, SshConstants.SSH2_DISCONNECT_NO_MORE_AUTH_METHODS_AVAILABLE)) {
            String keys = keyPairs.stream()
                    .map(pair -> KeyUtils.getKeyType(pair.getPublic()) + " " + KeyUtils.getFingerPrint(pair.getPublic()))
                    .collect(Collectors.joining(", "));
            return new SshTunnelException(Reason.AUTHENTICATION_REJECTED, "sshd at " + settings.destination()
                    + " did not accept key " + settings.privateKeyFile() + " (" + keys + ") for user "
                    + settings.user() + ": add its public key ('ssh-keygen -y -f " + settings.privateKeyFile()
                    + "') to that user's ~/.ssh/authorized_keys on the host", cause);
        }
        return new SshTunnelException(Reason.HANDSHAKE_FAILED, "SSH handshake with " + settings.destination()
                + " failed: " + (cause == null ? "the connection closed" : cause.toString()), cause);
    }

    private static boolean hasDisconnectCode(Throwable failure, int code) {
        for (Throwable cause = failure; cause != null; cause = cause.getCause()) {
            if (cause instanceof SshException ssh && ssh.getDisconnectCode() == code) {
                return true;
            }
        }
        return false;
    }

    private static void closeQuietly(ClientSession session) {
        if (session != null) {
            session.close(true);
        }
    }
}
