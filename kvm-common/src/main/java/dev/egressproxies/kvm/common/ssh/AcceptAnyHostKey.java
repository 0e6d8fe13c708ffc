package dev.egressproxies.kvm.common.ssh;

import java.net.SocketAddress;
import java.security.PublicKey;
import java.util.Optional;
import org.apache.sshd.client.session.ClientSession;
import org.apache.sshd.common.config.keys.KeyUtils;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The host key check of {@link HostKeyPolicy#insecureIgnoreHostKey()}: accepts any key, and says so
 * in the log at every connection so the opt-in never goes unnoticed.
 */
final class AcceptAnyHostKey implements HostKeyCheck {
    private static final Logger LOG = LoggerFactory.getLogger(AcceptAnyHostKey.class);

    private final String host;
    private final int port;

    AcceptAnyHostKey(String host, int port) {
        this.host = host;
        this.port = port;
    }

    @Override
    public boolean verifyServerKey(ClientSession session, SocketAddress remoteAddress, PublicKey serverKey) {
        LOG.warn("Accepting host key {} {} of {}:{} without checking it, because insecureIgnoreHostKey is set:"
                + " anyone who can intercept this connection can pose as the hypervisor. Configure a known_hosts"
                + " file instead.", KeyUtils.getKeyType(serverKey), KeyUtils.getFingerPrint(serverKey), host, port);
        return true;
    }

    @Override
    public Optional<SshTunnelException> rejection() {
        return Optional.empty();
    }
}
