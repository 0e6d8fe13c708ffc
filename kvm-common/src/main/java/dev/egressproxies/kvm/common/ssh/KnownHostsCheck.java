package dev.egressproxies.kvm.common.ssh;

import dev.egressproxies.kvm.common.ssh.SshTunnelException.Reason;
import java.net.InetSocketAddress;
import java.net.SocketAddress;
import java.security.PublicKey;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.atomic.AtomicReference;
import java.util.stream.Collectors;
import org.apache.sshd.client.session.ClientSession;
import org.apache.sshd.common.NamedFactory;
import org.apache.sshd.common.config.keys.KeyUtils;
import org.apache.sshd.common.config.keys.OpenSshCertificate;
import org.apache.sshd.common.signature.Signature;

/**
 * The default host key check: the key the host presents must be one that the known_hosts file
 * records for it, under the name it was dialled by ({@code [host]:port} when the port is not 22)
 * or under its numeric address.
 *
 * <p>Host certificates are not accepted; {@link #preferVerifiableAlgorithms} keeps them out of the
 * negotiation when known_hosts has a plain key for the host.
 */
final class KnownHostsCheck implements HostKeyCheck {
    private static final String REVOKED = "revoked";

    private final KnownHosts knownHosts;
    private final String host;
    private final int port;
    private final AtomicReference<SshTunnelException> rejection = new AtomicReference<>();

    KnownHostsCheck(KnownHosts knownHosts, String host, int port) {
        this.knownHosts = knownHosts;
        this.host = host;
        this.port = port;
    }

    @Override
    public boolean verifyServerKey(ClientSession session, SocketAddress remoteAddress, PublicKey serverKey) {
        List<KnownHosts.Entry> matching = knownHosts.entriesFor(identities(remoteAddress), port);
        Optional<KnownHosts.Entry> revoked = matching.stream()
                .filter(entry -> REVOKED.equals(entry.marker()) && KeyUtils.compareKeys(entry.key(), serverKey))
                .findFirst();
        if (revoked.isPresent()) {
            return reject(Reason.HOST_KEY_REVOKED, "host " + hostAndPort() + " presented key " + describe(serverKey)
                    + ", which known_hosts file " + knownHosts.file() + " line " + revoked.get().lineNumber()
                    + " marks @revoked: the host needs a new host key, recorded in known_hosts");
        }
        if (serverKey instanceof OpenSshCertificate) {
            return reject(Reason.HOST_UNKNOWN, "host " + hostAndPort() + " presented a host certificate, which this"
                    + " client does not check: record the host's plain key in known_hosts file " + knownHosts.file()
                    + " (" + keyscanHint() + ")");
        }
        List<KnownHosts.Entry> plain = matching.stream().filter(entry -> entry.marker() == null).toList();
        if (plain.stream().anyMatch(entry -> KeyUtils.compareKeys(entry.key(), serverKey))) {
            return true;
        }
        if (plain.isEmpty()) {
            return reject(Reason.HOST_UNKNOWN, "host " + hostAndPort() + " has no entry in known_hosts file "
                    + knownHosts.file() + ", so its key " + describe(serverKey) + " cannot be checked: after"
                    + " confirming that fingerprint on the host ('ssh-keygen -lf /etc/ssh/ssh_host_*_key.pub'),"
                    + " add it with " + keyscanHint());
        }
        String expected = plain.stream()
                .map(entry -> describe(entry.key()) + " (line " + entry.lineNumber() + ")")
                .collect(Collectors.joining(", "));
        return reject(Reason.HOST_KEY_MISMATCH, "host " + hostAndPort() + " presented key " + describe(serverKey)
                + ", but known_hosts file " + knownHosts.file() + " records " + expected + " for it. Either the"
                + " host was reinstalled or someone is intercepting the connection. Only if the change is"
                + " expected: remove the old entry with 'ssh-keygen -R " + knownHostsName() + " -f "
                + knownHosts.file() + "' and add the new key with " + keyscanHint());
    }

    @Override
    public Optional<SshTunnelException> rejection() {
        return Optional.ofNullable(rejection.get());
    }

    @Override
    public List<NamedFactory<Signature>> preferVerifiableAlgorithms(List<NamedFactory<Signature>> available) {
        Set<String> knownKeyTypes = knownHosts.entriesFor(List.of(host), port).stream()
                .filter(entry -> entry.marker() == null)
                .map(entry -> KeyUtils.getKeyType(entry.key()))
                .collect(Collectors.toSet());
        List<NamedFactory<Signature>> preferred = new ArrayList<>();
        List<NamedFactory<Signature>> others = new ArrayList<>();
        for (NamedFactory<Signature> factory : available) {
            String algorithm = factory.getName();
            boolean certificate = algorithm.contains("-cert-");
            boolean verifiable = !certificate && knownKeyTypes.contains(KeyUtils.getCanonicalKeyType(algorithm));
            (verifiable ? preferred : others).add(factory);
        }
        preferred.addAll(others);
        return preferred;
    }

    /** The names the host may be recorded under: as dialled, and its numeric address. */
    private Set<String> identities(SocketAddress remoteAddress) {
        Set<String> identities = new LinkedHashSet<>();
        identities.add(host);
        if (remoteAddress instanceof InetSocketAddress inet && inet.getAddress() != null) {
            identities.add(inet.getAddress().getHostAddress());
        }
        return identities;
    }

    private boolean reject(Reason reason, String message) {
        rejection.compareAndSet(null, new SshTunnelException(reason, message));
        return false;
    }

    private String hostAndPort() {
        return host + ":" + port;
    }

    /** How known_hosts writes the host: bare for port 22, bracketed with the port otherwise. */
    private String knownHostsName() {
        return port == SshTunnelSettings.DEFAULT_PORT ? host : "[" + host + "]:" + port;
    }

    private String keyscanHint() {
        return "'ssh-keyscan -p " + port + " " + host + " >> " + knownHosts.file() + "'";
    }

    private static String describe(PublicKey key) {
        return KeyUtils.getKeyType(key) + " " + KeyUtils.getFingerPrint(key);
    }
}
