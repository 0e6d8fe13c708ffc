package dev.egressproxies.kvm.common.ssh;

import java.util.Objects;

/**
 * A failure to open or keep an SSH tunnel to a hypervisor, with a {@link Reason} that tells a
 * caller whether trying again can help.
 *
 * <p>The message is written for the operator: it names the host, the file or setting at fault and
 * what to change. Backends map {@link #isPermanent()} onto their own error kinds.
 */
public final class SshTunnelException extends Exception {
    private static final long serialVersionUID = 1L;

    /** Why a tunnel could not be opened or was lost; each reason is either permanent or transient. */
    public enum Reason {
        /** The private key file does not exist (yet); it may still be mounted, so a retry can heal. */
        KEY_FILE_MISSING(false),
        /** The private key file exists but could not be read (permissions, I/O error). */
        KEY_FILE_UNREADABLE(false),
        /** The private key file holds nothing usable: garbage, a passphrase, an unsupported type. */
        KEY_FILE_INVALID(true),
        /** The known_hosts file does not exist (yet). */
        KNOWN_HOSTS_MISSING(false),
        /** The known_hosts file exists but could not be read. */
        KNOWN_HOSTS_UNREADABLE(false),
        /** A line of the known_hosts file is not a valid entry. */
        KNOWN_HOSTS_INVALID(true),
        /** The known_hosts file has no entry for the host, so its key cannot be checked. */
        HOST_UNKNOWN(true),
        /** The host presented a key that differs from the one known_hosts records for it. */
        HOST_KEY_MISMATCH(true),
        /** The host presented a key that known_hosts marks {@code @revoked}. */
        HOST_KEY_REVOKED(true),
        /** sshd refused every key offered for the user. */
        AUTHENTICATION_REJECTED(true),
        /** The TCP connection to sshd could not be made (refused, no route, name not resolved). */
        UNREACHABLE(false),
        /** sshd did not complete key exchange and authentication within the handshake timeout. */
        HANDSHAKE_TIMEOUT(false),
        /** The SSH connection failed during the handshake for another reason. */
        HANDSHAKE_FAILED(false),
        /**
         * sshd says it does not allow forwarding to unix sockets for this user. OpenSSH itself
         * reports that as {@link #REMOTE_SOCKET_UNAVAILABLE}, which cannot be told apart.
         */
        FORWARDING_REFUSED(true),
        /**
         * sshd could not connect to the host's socket path: nothing listens there, the user may not
         * open it, or (OpenSSH does not say which) sshd_config forbids socket forwarding.
         */
        REMOTE_SOCKET_UNAVAILABLE(false),
        /** The private local socket (or its folder) could not be created. */
        LOCAL_SOCKET_FAILED(false),
        /** The thread opening the tunnel was interrupted; its interrupt flag is set again. */
        INTERRUPTED(false);

        private final boolean permanent;

        Reason(boolean permanent) {
            this.permanent = permanent;
        }

        /**
         * Returns true when retrying with the same configuration cannot help: an operator has to
         * change a file or a setting first.
         */
        public boolean isPermanent() {
            return permanent;
        }
    }

    private final Reason reason;

    /** Creates an exception; backends and their tests may build one to stand for a failed dial. */
    public SshTunnelException(Reason reason, String message) {
        this(reason, message, null);
    }

    /** Creates an exception with the failure that caused it. */
    public SshTunnelException(Reason reason, String message, Throwable cause) {
        super(message, cause);
        this.reason = Objects.requireNonNull(reason, "reason");
    }

    /** Returns why the tunnel failed. */
    public Reason reason() {
        return reason;
    }

    /** Returns true when retrying with the same configuration cannot help; see {@link Reason#isPermanent()}. */
    public boolean isPermanent() {
        return reason.isPermanent();
    }
}
