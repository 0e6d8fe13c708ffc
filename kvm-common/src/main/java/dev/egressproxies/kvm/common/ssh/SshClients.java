package dev.egressproxies.kvm.common.ssh;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.apache.sshd.client.SshClient;
import org.apache.sshd.client.auth.pubkey.UserAuthPublicKeyFactory;
import org.apache.sshd.client.config.hosts.HostConfigEntryResolver;
import org.apache.sshd.common.NamedFactory;
import org.apache.sshd.common.cipher.BuiltinCiphers;
import org.apache.sshd.common.cipher.Cipher;
import org.apache.sshd.common.config.keys.FilePasswordProvider;
import org.apache.sshd.common.io.nio2.Nio2ServiceFactoryFactory;
import org.apache.sshd.common.keyprovider.KeyIdentityProvider;
import org.apache.sshd.core.CoreModuleProperties;

/** Builds the MINA SSHD client of one tunnel, configured from its settings and nothing else. */
final class SshClients {
    /** OpenSSH answers this request name; the reference implementation sends it too. */
    static final String KEEPALIVE_REQUEST = "keepalive@openssh.com";
    /**
     * How long a write may wait for the host to accept more data. A stalled transfer is the
     * caller's deadline to judge, and closing the tunnel unblocks a waiting writer at once, so the
     * 30 s default, which would break a slow upload in the middle, is raised far out of the way.
     */
    private static final Duration WAIT_FOR_WINDOW = Duration.ofDays(1);
    /**
     * The ciphers offered before MINA's default order. MINA prefers chacha20-poly1305, which it
     * implements in plain Java (under 200 MiB/s per core here), while the JDK runs AES-GCM with the
     * CPU's AES instructions (gigabytes per second); an image upload through the tunnel is bound by
     * this cipher. OpenSSH enables both AES-GCM ciphers by default.
     */
    static final List<BuiltinCiphers> PREFERRED_CIPHERS = List.of(BuiltinCiphers.aes128gcm, BuiltinCiphers.aes256gcm);

    private SshClients() {
    }

    /** Returns a new client, not yet started, for {@code settings} and the host key {@code check}. */
    static SshClient create(SshTunnelSettings settings, HostKeyCheck check) {
        SshClient client = SshClient.setUpDefaultClient();
        // Nothing from the user's ~/.ssh (config, identities, known_hosts) may change what happens.
        client.setHostConfigEntryResolver(HostConfigEntryResolver.EMPTY);
        client.setKeyIdentityProvider(KeyIdentityProvider.EMPTY_KEYS_PROVIDER);
        client.setFilePasswordProvider(FilePasswordProvider.EMPTY);
        client.setUserAuthFactories(List.of(UserAuthPublicKeyFactory.INSTANCE));
        client.setServerKeyVerifier(check);
        client.setSignatureFactories(check.preferVerifiableAlgorithms(client.getSignatureFactories()));
        client.setCipherFactories(preferringHardwareCiphers(client.getCipherFactories()));
        // Chosen explicitly rather than looked up with ServiceLoader on every client.
        client.setIoServiceFactoryFactory(new Nio2ServiceFactoryFactory());

        CoreModuleProperties.AUTH_TIMEOUT.set(client, settings.handshakeTimeout());
        CoreModuleProperties.HEARTBEAT_INTERVAL.set(client, settings.keepaliveInterval());
        CoreModuleProperties.HEARTBEAT_REQUEST.set(client, KEEPALIVE_REQUEST);
        CoreModuleProperties.HEARTBEAT_NO_REPLY_MAX.set(client, settings.keepaliveMaxMissed());
        // Liveness is the keepalive's job; an idle libvirt connection is healthy and must stay open.
        CoreModuleProperties.IDLE_TIMEOUT.set(client, Duration.ZERO);
        CoreModuleProperties.WAIT_FOR_SPACE_TIMEOUT.set(client, WAIT_FOR_WINDOW);
        CoreModuleProperties.SOCKET_KEEPALIVE.set(client, true);
        return client;
    }

    /** {@link #PREFERRED_CIPHERS} first, then the others of {@code offered} in their order. */
    private static List<NamedFactory<Cipher>> preferringHardwareCiphers(List<NamedFactory<Cipher>> offered) {
        List<NamedFactory<Cipher>> ciphers = new ArrayList<>();
        PREFERRED_CIPHERS.stream().filter(BuiltinCiphers::isSupported).forEach(ciphers::add);
        offered.stream().filter(cipher -> !ciphers.contains(cipher)).forEach(ciphers::add);
        return ciphers;
    }
}
