package dev.egressproxies.kvm.common.config;

import dev.egressproxies.api.ErrorKind;
import dev.egressproxies.kvm.common.Call;
import dev.egressproxies.kvm.common.host.HostDialer;
import dev.egressproxies.kvm.common.ssh.DefaultIdentities;
import dev.egressproxies.kvm.common.ssh.HostKeyPolicy;
import dev.egressproxies.kvm.common.ssh.OpenSshConfig;
import dev.egressproxies.kvm.common.ssh.SshHop;
import dev.egressproxies.kvm.common.ssh.SshHostDialer;
import dev.egressproxies.kvm.common.ssh.SshTunnelSettings;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.function.Function;
import java.util.stream.Collectors;

/**
 * How a KVM provider entry logs in to its hosts over SSH: the checked form of the entry's SSH
 * settings, merged at each dial with what the user's ssh_config says about the host (the entry's
 * own settings win), and the production dialer built from them.
 *
 * @param sshKeyFile            the private key offered to every host; else ssh_config's IdentityFile, else
 *                              OpenSSH's default identities (~/.ssh/id_rsa, id_ecdsa, id_ed25519) that exist
 * @param knownHostsFile        the known_hosts file; else ssh_config's UserKnownHostsFile, else ~/.ssh/known_hosts
 * @param insecureIgnoreHostKey whether any host key is accepted (test machines only)
 * @param handshakeTimeout      the limit for connecting and logging in; else ConnectTimeout, else 30 s
 * @param keepaliveInterval     how often an idle link is probed; else ServerAliveInterval, else 15 s
 * @param sshConfigFile         the ssh_config to read; else ~/.ssh/config when it exists
 * @param identityAgent         the ssh-agent socket; else ssh_config's IdentityAgent, else SSH_AUTH_SOCK
 * @param passphraseFile        the file whose first line decrypts key files protected by a passphrase
 */
public record SshAccess(Path sshKeyFile, Path knownHostsFile, Boolean insecureIgnoreHostKey,
                        Duration handshakeTimeout, Duration keepaliveInterval, Path sshConfigFile, Path identityAgent,
                        Path passphraseFile) {
    public static final Duration DEFAULT_HANDSHAKE_TIMEOUT = SshTunnelSettings.DEFAULT_HANDSHAKE_TIMEOUT;
    public static final Duration DEFAULT_KEEPALIVE_INTERVAL = SshTunnelSettings.DEFAULT_KEEPALIVE_INTERVAL;
    /** OpenSSH gives up on a jump chain far shorter than this; a loop in ssh_config stops here. */
    private static final int MAXIMUM_JUMPS = 8;

    /** Rejects settings that cannot work, naming the setting to fix and how; unset values stay null. */
    public SshAccess {
        insecureIgnoreHostKey = insecureIgnoreHostKey != null && insecureIgnoreHostKey;
        sshKeyFile = blankToNull(sshKeyFile);
        knownHostsFile = blankToNull(knownHostsFile);
        sshConfigFile = blankToNull(sshConfigFile);
        identityAgent = blankToNull(identityAgent);
        passphraseFile = blankToNull(passphraseFile);
        boolean openSshConfig = sshConfigFile != null || Files.isRegularFile(OpenSshConfig.defaultFile());
        if (sshKeyFile == null && identityAgent == null && System.getenv("SSH_AUTH_SOCK") == null && !openSshConfig
                && DefaultIdentities.existing(DefaultIdentities.home()).isEmpty()) {
            throw new IllegalArgumentException("sshKeyFile: required unless ssh-agent, ssh_config or OpenSSH's default"
                    + " keys give the keys; the private key (ed25519, RSA or ECDSA) that logs in to every host, for"
                    + " example /etc/egress/kvm/id_ed25519, or identityAgent: the ssh-agent's socket, or sshConfigFile:"
                    + " an ssh_config whose IdentityFile lines name the keys, or a key in OpenSSH's default place ("
                    + DefaultIdentities.candidates(DefaultIdentities.home()).stream().map(Path::toString)
                    .collect(Collectors.joining(", ")) + ")");
        }
        if (insecureIgnoreHostKey && knownHostsFile != null) {
            throw new IllegalArgumentException("knownHostsFile: set together with insecureIgnoreHostKey: true, which"
                    + " ignores it; remove one of the two (keep knownHostsFile unless this is a test machine)");
        }
        if (!insecureIgnoreHostKey && knownHostsFile == null && !openSshConfig) {
            throw new IllegalArgumentException("knownHostsFile: required, so the hosts' SSH keys can be checked;"
                    + " write it with 'ssh-keyscan -p PORT HOST', or name an sshConfigFile whose"
                    + " UserKnownHostsFile does (else ~/.ssh/known_hosts is used), or set insecureIgnoreHostKey: true"
                    + " on test machines only");
        }
        if (handshakeTimeout != null) {
            ConfigChecks.positive("handshakeTimeout", handshakeTimeout, DEFAULT_HANDSHAKE_TIMEOUT);
        }
        if (keepaliveInterval != null) {
            ConfigChecks.positive("keepaliveInterval", keepaliveInterval, DEFAULT_KEEPALIVE_INTERVAL);
        }
    }

    /** Settings without ssh_config, agent or passphrase file of their own. */
    public SshAccess(Path sshKeyFile, Path knownHostsFile, Boolean insecureIgnoreHostKey, Duration handshakeTimeout,
            Duration keepaliveInterval) {
        this(sshKeyFile, knownHostsFile, insecureIgnoreHostKey, handshakeTimeout, keepaliveInterval, null, null, null);
    }

    /**
     * One host's tunnel settings as they stand now: its address may be a {@code Host} alias of the
     * ssh_config, which fills what neither host nor entry sets; fails when the ssh_config cannot work.
     */
    public SshTunnelSettings tunnelSettings(HostSettings host, Call dial) {
        OpenSshConfig config = OpenSshConfig.read(sshConfigFile == null ? OpenSshConfig.defaultFile() : sshConfigFile,
                sshConfigFile != null, dial);
        OpenSshConfig.HostOptions options = config.options(host.address(), dial);
        SshHop target = hop(options, host.address(), host.port(), host.user(), dial);
        List<SshHop> jumps = jumps(config, host.proxyJump() != null ? host.proxyJump() : options.proxyJump(), 0, dial);
        Duration handshake = first(handshakeTimeout, options.connectTimeout(), DEFAULT_HANDSHAKE_TIMEOUT);
        Duration keepalive = first(keepaliveInterval, options.aliveInterval(), DEFAULT_KEEPALIVE_INTERVAL);
        return new SshTunnelSettings(target, jumps, agentSocket(options), passphraseFile, host.socket(), handshake,
                keepalive, SshTunnelSettings.DEFAULT_KEEPALIVE_MAX_MISSED);
    }

    /** The production dialer of the hosts; nothing is dialled here, and the files are read at each dial. */
    public HostDialer dialer(List<HostSettings> hosts) {
        Map<String, HostSettings> byName = hosts.stream()
                .collect(Collectors.toUnmodifiableMap(HostSettings::name, Function.identity()));
        return new SshHostDialer((endpoint, dial) -> tunnelSettings(byName.get(endpoint.name()), dial));
    }

    /** How long one dial may take: the handshake budget for SSH's handshake, then for libvirt's. */
    public Duration dialTimeout() {
        return (handshakeTimeout == null ? DEFAULT_HANDSHAKE_TIMEOUT : handshakeTimeout).multipliedBy(2);
    }

    /** One hop: what the entry (or a ProxyJump spec) writes wins over ssh_config, which wins over defaults. */
    private SshHop hop(OpenSshConfig.HostOptions options, String alias, Integer port, String user, Call dial) {
        String hostName = options.hostName() == null ? alias : options.hostName();
        List<Path> keys = sshKeyFile != null ? List.of(sshKeyFile) : options.identityFiles();
        // As OpenSSH: with no key file named, its default identities; looked up at each dial, like the files.
        List<Path> defaults = keys.isEmpty() ? DefaultIdentities.existing(DefaultIdentities.home()) : List.of();
        HostKeyPolicy policy;
        if (insecureIgnoreHostKey) {
            policy = HostKeyPolicy.insecureIgnoreHostKey();
        } else {
            Path knownHosts = knownHostsFile != null ? knownHostsFile : options.knownHostsFiles().isEmpty()
                    ? Path.of(System.getProperty("user.home"), ".ssh", "known_hosts") : options.knownHostsFiles().get(0);
            policy = new HostKeyPolicy.KnownHostsFile(knownHosts, options.unknownHosts() == null
                    ? HostKeyPolicy.UnknownHosts.REFUSE : options.unknownHosts());
        }
        try {
            return new SshHop(hostName, first(port, options.port(), SshTunnelSettings.DEFAULT_PORT),
                    first(user, options.user(), HostSettings.DEFAULT_USER), keys, policy, defaults, options.algorithms());
        } catch (IllegalArgumentException e) {
            throw dial.failure(ErrorKind.PERMANENT, "the SSH settings of " + alias + " cannot work: " + e.getMessage(), e);
        }
    }

    /** The jump hosts of {@code spec} ({@code [user@]host[:port]}, comma-separated, or aliases), in connection order. */
    private List<SshHop> jumps(OpenSshConfig config, String spec, int depth, Call dial) {
        if (spec == null || spec.isBlank() || spec.equalsIgnoreCase("none")) {
            return List.of();
        }
        if (depth > MAXIMUM_JUMPS) {
            throw dial.failure(ErrorKind.PERMANENT, "ProxyJump in " + config.file() + " leads through more than "
                    + MAXIMUM_JUMPS + " jump hosts, or in a circle: check the ProxyJump lines of its Host blocks", null);
        }
        List<SshHop> hops = new ArrayList<>();
        for (String jump : spec.split(",")) {
            URI uri = null;
            IllegalArgumentException invalid = null;
            try {
                uri = URI.create("ssh://" + jump.trim());
            } catch (IllegalArgumentException e) {
                invalid = e;
            }
            if (uri == null || uri.getHost() == null) {
                throw dial.failure(ErrorKind.PERMANENT, "the jump host '" + jump.trim() + "' is not [user@]host[:port]:"
                        + " correct proxyJump (or ProxyJump in " + config.file() + ")", invalid);
            }
            OpenSshConfig.HostOptions options = config.options(uri.getHost(), dial);
            // A jump host's own ProxyJump is passed before it, as OpenSSH does.
            hops.addAll(jumps(config, options.proxyJump(), depth + 1, dial));
            hops.add(hop(options, uri.getHost(), uri.getPort() > 0 ? uri.getPort() : null, uri.getUserInfo(), dial));
        }
        return hops;
    }

    private Path agentSocket(OpenSshConfig.HostOptions options) {
        if (identityAgent != null) {
            return identityAgent;
        }
        String configured = options.identityAgent();
        if ("none".equals(configured)) {
            return null;
        }
        String socket = configured == null || configured.equals("SSH_AUTH_SOCK") ? System.getenv("SSH_AUTH_SOCK")
                : configured;
        return socket == null || socket.isBlank() ? null : Path.of(socket);
    }

    @SafeVarargs
    private static <T> T first(T... values) {
        for (T value : values) {
            if (value != null) {
                return value;
            }
        }
        throw new IllegalStateException("no default");
    }

    private static Path blankToNull(Path path) {
        return path == null || path.toString().isBlank() ? null : path;
    }
}
