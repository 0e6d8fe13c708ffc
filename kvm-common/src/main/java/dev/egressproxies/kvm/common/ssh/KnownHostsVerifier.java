package dev.egressproxies.kvm.common.ssh;

import dev.egressproxies.api.ErrorKind;
import dev.egressproxies.api.ProviderException;
import dev.egressproxies.kvm.common.Call;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.SocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.PublicKey;
import java.util.ArrayList;
import java.util.IdentityHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Predicate;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.apache.sshd.client.config.hosts.KnownHostEntry;
import org.apache.sshd.client.keyverifier.KnownHostsServerKeyVerifier;
import org.apache.sshd.client.keyverifier.RejectAllServerKeyVerifier;
import org.apache.sshd.client.keyverifier.ServerKeyVerifier;
import org.apache.sshd.client.keyverifier.StaticServerKeyVerifier;
import org.apache.sshd.client.session.ClientSession;
import org.apache.sshd.common.NamedFactory;
import org.apache.sshd.common.config.keys.KeyUtils;
import org.apache.sshd.common.config.keys.PublicKeyEntryResolver;
import org.apache.sshd.common.signature.Signature;
import org.apache.sshd.common.util.net.SshdSocketAddress;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** MINA's known_hosts check, extended through its hooks so that a refusal says what to fix. */
final class KnownHostsVerifier extends KnownHostsServerKeyVerifier {
    static {
        // Before MINA first looks for its security providers.
        Ed25519Registrar.install();
    }

    /** Far above any real known_hosts file, so a wrong path cannot exhaust the heap. */
    static final int MAXIMUM_BYTES = 4 * 1024 * 1024;
    private static final Logger LOG = LoggerFactory.getLogger(KnownHostsVerifier.class);

    private final HostKeyPolicy.UnknownHosts unknownHosts;
    private final String host;
    private final int port;
    /** Reached through a jump host: the peer address is then a local forwarding's. */
    private final boolean relayed;
    private final List<HostEntryPair> entries;
    private final Map<KnownHostEntry, Integer> lineNumbers;
    private final AtomicReference<String> refusal = new AtomicReference<>();

    private KnownHostsVerifier(Path file, HostKeyPolicy.UnknownHosts unknownHosts, String host, int port,
            boolean relayed, List<HostEntryPair> entries, Map<KnownHostEntry, Integer> lineNumbers) {
        // The delegate would decide on unknown hosts, but acceptUnknownHostKey below never asks it.
        super(RejectAllServerKeyVerifier.INSTANCE, file);
        this.unknownHosts = unknownHosts;
        this.host = host;
        this.port = port;
        this.relayed = relayed;
        this.entries = entries;
        this.lineNumbers = lineNumbers;
    }

    /** This check with the file read now, or an accept-all that warns at every connection, as {@code policy} asks. */
    static ServerKeyVerifier forPolicy(HostKeyPolicy policy, String host, int port, boolean relayed, Call dial) {
        if (policy instanceof HostKeyPolicy.KnownHostsFile knownHosts) {
            return load(knownHosts.file(), knownHosts.unknownHosts(), host, port, relayed, dial);
        }
        return new StaticServerKeyVerifier(true) {
            @Override
            protected void handleAcceptance(ClientSession session, SocketAddress remoteAddress, PublicKey key) {
                LOG.warn("Accepting host key {} of {}:{} without checking it, because insecureIgnoreHostKey is set:"
                        + " anyone who can intercept this connection can pose as the hypervisor. Configure a"
                        + " known_hosts file instead.", describe(key), host, port);
            }
        };
    }

    /** Reads {@code file} for {@code host:port}; fails TRANSIENT when missing or unreadable, PERMANENT when invalid. */
    static KnownHostsVerifier load(Path file, HostKeyPolicy.UnknownHosts unknownHosts, String host, int port,
            boolean relayed, Call dial) {
        byte[] content = PrivateKeyFile.read(file, "known_hosts file", MAXIMUM_BYTES,
                ": point the setting at a real known_hosts file", "create or mount it with the hypervisors' host keys (for"
                + " example from 'ssh-keyscan -p PORT HOST'), or opt in to insecureIgnoreHostKey on test machines", dial);
        List<HostEntryPair> entries = new ArrayList<>();
        Map<KnownHostEntry, Integer> lineNumbers = new IdentityHashMap<>();
        String[] lines = new String(content, StandardCharsets.UTF_8).split("\\R", -1);
        for (int index = 0; index < lines.length; index++) {
            String line = lines[index].trim();
            if (line.isEmpty() || line.startsWith("#")) {
                continue;
            }
            try {
                KnownHostEntry entry = KnownHostEntry.parseKnownHostEntry(line);
                if (entry == null || entry.getKeyEntry() == null) {
                    throw new IllegalArgumentException("no key in the line");
                }
                // IGNORING yields null for key types MINA cannot decode; those entries are skipped.
                PublicKey key = entry.getKeyEntry().resolvePublicKey(null, Map.of(), PublicKeyEntryResolver.IGNORING);
                if (key != null) {
                    entries.add(new HostEntryPair(entry, key));
                    lineNumbers.put(entry, index + 1);
                }
            } catch (IOException | GeneralSecurityException | RuntimeException e) {
                throw dial.failure(ErrorKind.PERMANENT, "known_hosts file " + file + " line " + (index + 1) + " is not a"
                        + " valid entry (" + e.getMessage() + "): fix or remove that line; entries look like"
                        + " '[host]:port ssh-ed25519 AAAA...' (plain 'host' for port 22)", e);
            }
        }
        return new KnownHostsVerifier(file, unknownHosts, host, port, relayed, List.copyOf(entries), lineNumbers);
    }

    Optional<String> refusal() {
        return Optional.ofNullable(refusal.get());
    }

    /** {@code available} with the recorded keys' algorithms first: sshd presents the key of the first one it has. */
    List<NamedFactory<Signature>> preferVerifiableAlgorithms(List<NamedFactory<Signature>> available) {
        Set<String> recordedTypes = entries.stream()
                .filter(pair -> pair.getHostEntry().getMarker() == null && pair.getHostEntry().isHostMatch(host, port))
                .map(pair -> KeyUtils.getKeyType(pair.getServerKey()))
                .collect(Collectors.toSet());
        Map<Boolean, List<NamedFactory<Signature>>> byRecorded = available.stream().collect(Collectors.partitioningBy(
                factory -> !factory.getName().contains("-cert-")
                        && recordedTypes.contains(KeyUtils.getCanonicalKeyType(factory.getName()))));
        return Stream.concat(byRecorded.get(true).stream(), byRecorded.get(false).stream()).collect(Collectors.toList());
    }

    @Override
    public boolean verifyServerKey(ClientSession session, SocketAddress remoteAddress, PublicKey serverKey) {
        boolean accepted = super.verifyServerKey(session, remoteAddress, serverKey);
        if (!accepted && refusal.get() == null) {
            // MINA refuses a host certificate that no @cert-authority entry vouches for without a hook.
            refuse("host " + hostAndPort() + " presented a host certificate that no @cert-authority entry of"
                    + " known_hosts file " + getPath() + " vouches for: record the host's plain key there ("
                    + keyscanHint() + ")");
        }
        return accepted;
    }

    @Override
    protected List<HostEntryPair> reloadKnownHosts(ClientSession session, Path file) {
        return entries;
    }

    @Override
    protected Set<SshdSocketAddress> resolveHostNetworkIdentities(ClientSession session, SocketAddress remoteAddress) {
        Set<SshdSocketAddress> identities = new LinkedHashSet<>();
        identities.add(new SshdSocketAddress(host, port));
        if (!relayed && remoteAddress instanceof InetSocketAddress inet && inet.getAddress() != null) {
            identities.add(new SshdSocketAddress(inet.getAddress().getHostAddress(), port));
        }
        return identities;
    }

    @Override
    protected boolean acceptUnknownHostKey(ClientSession session, SocketAddress remoteAddress, PublicKey serverKey) {
        if (unknownHosts != HostKeyPolicy.UnknownHosts.REFUSE) {
            LOG.warn("Accepting key {} of {}, which known_hosts file {} does not list, because StrictHostKeyChecking"
                    + " is {} in ssh_config{}", describe(serverKey), hostAndPort(), getPath(),
                    unknownHosts == HostKeyPolicy.UnknownHosts.ACCEPT ? "no" : "accept-new",
                    unknownHosts == HostKeyPolicy.UnknownHosts.ACCEPT ? "" : "; recording it there");
            if (unknownHosts == HostKeyPolicy.UnknownHosts.ACCEPT_AND_RECORD) {
                try {
                    updateKnownHostsFile(session, remoteAddress, serverKey, getPath(), entries);
                } catch (Exception e) {
                    LOG.warn("Could not record the key of {} in {}: {}", hostAndPort(), getPath(), e.toString());
                }
            }
            return true;
        }
        return refuse("host " + hostAndPort() + " has no entry in known_hosts file " + getPath() + ", so its key "
                + describe(serverKey) + " cannot be checked: after confirming that fingerprint on the host"
                + " ('ssh-keygen -lf /etc/ssh/ssh_host_*_key.pub'), add it with " + keyscanHint());
    }

    @Override
    protected void handleRevokedKey(ClientSession session, SocketAddress remoteAddress, PublicKey serverKey) {
        String lines = lines(session, remoteAddress, false, pair -> "revoked".equals(pair.getHostEntry().getMarker())
                && KeyUtils.compareKeys(pair.getServerKey(), serverKey));
        refuse("host " + hostAndPort() + " presented key " + describe(serverKey) + ", which known_hosts file "
                + getPath() + " " + lines + " marks @revoked: the host needs a new host key, recorded in known_hosts");
    }

    @Override
    public boolean acceptModifiedServerKey(ClientSession session, SocketAddress remoteAddress, KnownHostEntry entry,
            PublicKey expected, PublicKey actual) {
        String recorded = lines(session, remoteAddress, true, pair -> pair.getHostEntry().getMarker() == null);
        return refuse("host " + hostAndPort() + " presented key " + describe(actual) + ", but known_hosts file "
                + getPath() + " records " + recorded + " for it. Either the host was reinstalled or someone is"
                + " intercepting the connection. Only if the change is expected: remove the old entry with"
                + " 'ssh-keygen -R " + (port == SshTunnelSettings.DEFAULT_PORT ? host : "[" + host + "]:" + port)
                + " -f " + getPath() + "' and add the new key with "
                + keyscanHint());
    }

    private boolean refuse(String message) {
        refusal.compareAndSet(null, message);
        return false;
    }

    /** The host's entries that {@code which} picks: "line 3", or with keys "KEY (line 3), KEY (line 5)". */
    private String lines(ClientSession session, SocketAddress remote, boolean withKeys, Predicate<HostEntryPair> which) {
        return findKnownHostEntries(session, remote, entries).stream().filter(which)
                .map(pair -> withKeys ? describe(pair.getServerKey()) + " (line " + lineNumbers.get(pair.getHostEntry())
                        + ")" : "line " + lineNumbers.get(pair.getHostEntry()))
                .collect(Collectors.joining(", "));
    }

    private String hostAndPort() {
        return host + ":" + port;
    }

    private String keyscanHint() {
        return "'ssh-keyscan -p " + port + " " + host + " >> " + getPath() + "'";
    }

    private static String describe(PublicKey key) {
        return KeyUtils.getKeyType(key) + " " + KeyUtils.getFingerPrint(key);
    }
}
