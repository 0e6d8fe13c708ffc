package dev.egressproxies.kvm.common.ssh;

import dev.egressproxies.api.ErrorKind;
import dev.egressproxies.api.ProviderException;
import dev.egressproxies.kvm.common.Call;
import dev.egressproxies.kvm.common.host.HostShell;
import dev.egressproxies.kvm.common.local.UnixSocketRelay;
import java.io.ByteArrayOutputStream;
import java.io.EOFException;
import java.io.IOException;
import java.io.InterruptedIOException;
import java.io.OutputStream;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.security.KeyPair;
import java.security.PublicKey;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.EnumSet;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Supplier;
import java.util.stream.Collectors;
import org.apache.sshd.agent.SshAgent;
import org.apache.sshd.agent.SshAgentFactory;
import org.apache.sshd.agent.SshAgentServer;
import org.apache.sshd.client.SshClient;
import org.apache.sshd.client.auth.pubkey.PublicKeyAuthenticationReporter;
import org.apache.sshd.client.auth.pubkey.UserAuthPublicKey;
import org.apache.sshd.client.auth.pubkey.UserAuthPublicKeyFactory;
import org.apache.sshd.client.channel.AbstractClientChannel;
import org.apache.sshd.client.channel.AsyncCapableClientChannel;
import org.apache.sshd.client.channel.ChannelExec;
import org.apache.sshd.client.channel.ClientChannelEvent;
import org.apache.sshd.client.config.hosts.HostConfigEntry;
import org.apache.sshd.client.config.hosts.HostConfigEntryResolver;
import org.apache.sshd.client.future.AuthFuture;
import org.apache.sshd.client.future.ConnectFuture;
import org.apache.sshd.client.future.DefaultOpenFuture;
import org.apache.sshd.client.future.OpenFuture;
import org.apache.sshd.client.global.OpenSshHostKeysHandler;
import org.apache.sshd.client.keyverifier.ServerKeyVerifier;
import org.apache.sshd.client.session.ClientSession;
import org.apache.sshd.common.AttributeRepository;
import org.apache.sshd.common.AttributeRepository.AttributeKey;
import org.apache.sshd.common.FactoryManager;
import org.apache.sshd.common.SshConstants;
import org.apache.sshd.common.SshException;
import org.apache.sshd.common.channel.ChannelFactory;
import org.apache.sshd.common.channel.LocalWindow;
import org.apache.sshd.common.channel.RequestHandler;
import org.apache.sshd.common.channel.exception.SshChannelOpenException;
import org.apache.sshd.common.config.keys.FilePasswordProvider;
import org.apache.sshd.common.config.keys.KeyUtils;
import org.apache.sshd.common.config.keys.OpenSshCertificate;
import org.apache.sshd.common.future.CancelOption;
import org.apache.sshd.common.io.nio2.Nio2ServiceFactoryFactory;
import org.apache.sshd.common.kex.KexProposalOption;
import org.apache.sshd.common.keyprovider.KeyIdentityProvider;
import org.apache.sshd.common.session.ConnectionService;
import org.apache.sshd.common.session.Session;
import org.apache.sshd.common.session.SessionListener;
import org.apache.sshd.common.util.buffer.Buffer;
import org.apache.sshd.core.CoreModuleProperties;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** An SSH session relaying a hypervisor's unix socket to a local one, like {@code ssh -L}: a channel per connection. */
public final class SshTunnel implements UnixSocketRelay.Upstream {
    static {
        // Before MINA first looks for its security providers.
        Ed25519Registrar.install();
    }

    private static final AttributeKey<Attempt> ATTEMPT = new AttributeKey<>();
    /** libvirt's system socket, which virt-ssh-helper reaches for {@code qemu:///system}. */
    private static final String DEFAULT_SOCKET = "/var/run/libvirt/libvirt-sock";
    private static final Logger LOG = LoggerFactory.getLogger(SshTunnel.class);
    // The process's one client, running while a tunnel is open or opening; guarded by SshTunnel.class.
    // It stops with the last tunnel: its I/O thread waits in native code, which delays the JVM's exit by 0.3 s.
    private static SshClient runningClient;
    private static int clientHolds;

    private final SshTunnelSettings settings;
    private final Hold hold;
    private final ClientSession session;
    /** The command that bridges to the socket when sshd forwards none; null while forwarding works. */
    private volatile String helperCommand;
    /** The key that logged in to the hypervisor, as check names it; null if MINA did not say. */
    private volatile String login;
    /** The open session's first failure (an unanswered keepalive, a reset); MINA drops attributes on close. */
    private final AtomicReference<Throwable> firstFailure = new AtomicReference<>();

    /** What one attempt sets on its sessions; MINA connects the hops in turn, so the n-th session is the n-th hop. */
    private record Attempt(SshTunnelSettings settings, List<HopAccess> hops, Path agentSocket, List<PublicKey> agentKeys,
            AtomicInteger created, AtomicReference<String> login) {
        HopAccess next() {
            return hops.get(Math.min(created.getAndIncrement(), hops.size() - 1));
        }

        /** The hop reached last, which a failure is about. */
        HopAccess current() {
            return hops.get(Math.max(0, Math.min(created.get(), hops.size()) - 1));
        }

        /** A refused host key as a PERMANENT failure, else {@code otherwise}. */
        ProviderException failure(Call dial, Supplier<ProviderException> otherwise) {
            return hops.stream().map(hop -> hop.verifier() instanceof KnownHostsVerifier knownHosts
                            ? knownHosts.refusal() : Optional.<String>empty()).flatMap(Optional::stream).findFirst()
                    .map(dial::permanent).orElseGet(otherwise);
        }
    }

    /** {@code keyFiles}: the file each of {@code keyPairs} came from, by position. */
    private record HopAccess(SshHop hop, List<KeyPair> keyPairs, List<Path> keyFiles, ServerKeyVerifier verifier,
            boolean last) {
        String label() {
            return (last ? "sshd at " : "jump host sshd at ") + hop.destination();
        }

        /** The key that logged in, as check names it: its type, fingerprint and file, or the agent. */
        String describeLogin(KeyPair identity) {
            PublicKey key = identity == null ? null : identity.getPublic();
            if (key == null) {
                return "an unnamed key";
            }
            for (int index = 0; index < keyPairs.size(); index++) {
                if (KeyUtils.compareKeys(keyPairs.get(index).getPublic(), key)) {
                    return describe(key) + " from " + keyFiles.get(index);
                }
            }
            return describe(key) + " from the agent";
        }
    }

    /** A tunnel's share of the client, given back once though a failed relay start and the failed open both try. */
    private record Hold(SshClient client, AtomicBoolean released) {
        static Hold acquire() {
            synchronized (SshTunnel.class) {
                if (runningClient == null) {
                    runningClient = startClient();
                }
                clientHolds++;
                return new Hold(runningClient, new AtomicBoolean());
            }
        }

        /** {@code fromClientThread}: called on one of the client's threads (a lost session's close). */
        void release(boolean fromClientThread) {
            if (!released.compareAndSet(false, true)) {
                return;
            }
            SshClient stopping;
            synchronized (SshTunnel.class) {
                if (--clientHolds > 0) {
                    return;
                }
                stopping = runningClient;
                runningClient = null;
            }
            if (fromClientThread) {
                // The stop waits for the client's threads, so one of them cannot run it.
                Thread stopper = new Thread(stopping::stop, "egress-ssh-client-stop");
                stopper.setDaemon(true);
                stopper.start();
                return;
            }
            // An interrupt would cut the wait for the client's threads short and be lost.
            boolean interrupted = Thread.interrupted();
            try {
                stopping.stop();
            } finally {
                if (interrupted) {
                    Thread.currentThread().interrupt();
                }
            }
        }
    }

    private SshTunnel(SshTunnelSettings settings, Hold hold, ClientSession session) {
        this.settings = settings;
        this.hold = hold;
        this.session = session;
    }

    /**
     * Opens a tunnel and returns its relay, for {@code qemu+unix:///system?socket=}; fails saying what to
     * fix, PERMANENT when only a change of files or settings can help, else TRANSIENT.
     */
    public static UnixSocketRelay open(SshTunnelSettings settings, Call dial) {
        long deadline = System.nanoTime() + settings.handshakeTimeout().toNanos();
        Path agent = settings.agentSocket();
        List<PublicKey> agentKeys = List.of();
        if (agent != null) {
            try {
                agentKeys = AgentSocket.keys(agent);
            } catch (IOException | RuntimeException e) {
                if (settings.hops().stream().anyMatch(hop -> hop.keyFiles().isEmpty())) {
                    throw dial.transientFailure("cannot ask the ssh-agent at " + agent + " for its keys ("
                            + e.getMessage() + "): start the agent ('eval $(ssh-agent)' and 'ssh-add KEY') and point"
                            + " SSH_AUTH_SOCK or the entry's identityAgent at its socket", e);
                }
                // The key files may suffice: OpenSSH, too, goes on without an agent it cannot reach.
                LOG.warn("Cannot ask the ssh-agent at {} for its keys ({}); offering the key files only", agent,
                        e.getMessage());
                agent = null;
            }
        }
        List<HopAccess> hops = new ArrayList<>();
        List<SshHop> route = settings.hops();
        for (int index = 0; index < route.size(); index++) {
            hops.add(access(route.get(index), index == route.size() - 1, index > 0, settings, agentKeys, dial));
        }
        Attempt attempt = new Attempt(settings, List.copyOf(hops), agent, agentKeys, new AtomicInteger(),
                new AtomicReference<>());
        ConnectFuture connecting = null;
        boolean opened = false;
        Hold hold = Hold.acquire();
        try {
            connecting = hold.client().connect(hostConfig(settings), AttributeRepository.ofKeyValuePair(ATTEMPT, attempt),
                    null);
            if (!connecting.await(remaining(deadline), CancelOption.CANCEL_ON_TIMEOUT, CancelOption.CANCEL_ON_INTERRUPT)) {
                throw attempt.failure(dial, () -> timeout(attempt, "connecting", dial));
            }
            if (!connecting.isConnected()) {
                Throwable cause = connecting.getException();
                throw attempt.failure(dial, () -> connectFailure(attempt, cause, dial));
            }
            ClientSession session = connecting.getClientSession();
            AuthFuture authenticating = session.auth();
            if (!authenticating.await(remaining(deadline))) {
                throw attempt.failure(dial, () -> timeout(attempt, "key exchange and authentication", dial));
            }
            if (!authenticating.isSuccess()) {
                throw attempt.failure(dial, () -> authenticationFailure(attempt, authenticating.getException(), dial));
            }
            SshTunnel tunnel = new SshTunnel(settings, hold, session);
            tunnel.login = attempt.login().get();
            session.addSessionListener(new SessionListener() {
                @Override
                public void sessionException(Session failed, Throwable failure) {
                    tunnel.firstFailure.compareAndSet(null, failure);
                }
            });
            // Hand out only a tunnel whose forwarding works, so a refusal is reported with its cause.
            try {
                tunnel.openChannel(remaining(deadline)).close();
            } catch (IOException refused) {
                tunnel.fallBackToHelper(refused, remaining(deadline), dial);
            }
            UnixSocketRelay relay;
            try {
                relay = UnixSocketRelay.start("egress-ssh-tunnel-", tunnel);
            } catch (IOException e) {
                throw dial.transientFailure("cannot create the local unix socket for the tunnel to "
                        + settings.destination() + " in " + System.getProperty("java.io.tmpdir") + ": " + e
                        + "; check that the temporary folder is writable", e);
            }
            // Runs on a MINA thread, or here when the session is already closed.
            session.addCloseFutureListener(closed -> relay.lose(tunnel.lostReason()));
            opened = true;
            return relay;
        } catch (ProviderException failure) {
            throw failure;
        } catch (InterruptedIOException e) {
            Thread.currentThread().interrupt();
            throw dial.transientFailure("interrupted while connecting to " + settings.destination(), e);
        } catch (IOException | RuntimeException e) {
            throw attempt.failure(dial, () -> dial.transientFailure("SSH handshake with " + settings.destination()
                    + " failed: " + e, e));
        } finally {
            if (!opened) {
                if (connecting != null) {
                    connecting.cancel();
                    if (connecting.isConnected()) {
                        connecting.getClientSession().close(true);
                    }
                }
                hold.release(false);
            }
        }
    }

    /** Reads one hop's keys and known_hosts; {@code relayed}: through a jump host, so its peer address is local. */
    private static HopAccess access(SshHop hop, boolean last, boolean relayed, SshTunnelSettings settings,
            List<PublicKey> agentKeys, Call dial) {
        List<KeyPair> keyPairs = new ArrayList<>();
        List<Path> keyFiles = new ArrayList<>();
        for (Path file : hop.keyFiles()) {
            // A key protected by a passphrase that the agent holds is used from the agent, as OpenSSH does.
            // Checked only with agent keys at hand: otherwise every dial would parse each key file twice.
            if (!agentKeys.isEmpty() && settings.passphraseFile() == null && PrivateKeyFile.isEncrypted(file)
                    && PrivateKeyFile.publicKey(file).filter(key -> agentKeys.stream()
                            .anyMatch(held -> KeyUtils.compareKeys(held, key))).isPresent()) {
                continue;
            }
            add(PrivateKeyFile.load(file, settings.passphraseFile(), dial), file, keyPairs, keyFiles);
        }
        List<String> passedOver = new ArrayList<>();
        for (Path file : hop.defaultKeyFiles()) {
            // OpenSSH would ask for a passphrase on the terminal; an agent holding the key offers it instead.
            if (settings.passphraseFile() == null && PrivateKeyFile.isEncrypted(file)) {
                passedOver.add(file + " (protected by a passphrase: add it to ssh-agent, or set passphraseFile)");
                continue;
            }
            try {
                add(PrivateKeyFile.load(file, settings.passphraseFile(), dial), file, keyPairs, keyFiles);
            } catch (ProviderException unusable) {
                // As OpenSSH does with a default identity it cannot use: go on with the others.
                passedOver.add(file + " (" + unusable.detail() + ")");
                LOG.debug("Passing over OpenSSH's default key {}: {}", file, unusable.detail());
            }
        }
        if (keyPairs.isEmpty() && agentKeys.isEmpty()) {
            throw dial.failure(ErrorKind.PERMANENT, "there is no key to log in to " + hop.destination() + " with: set"
                    + " the entry's sshKeyFile, give the host an IdentityFile in ssh_config, put a key in OpenSSH's"
                    + " default place (~/.ssh/id_ed25519, id_ecdsa or id_rsa), or add a key to"
                    + " ssh-agent ('ssh-add KEY') and make SSH_AUTH_SOCK or the entry's identityAgent name its"
                    + (settings.agentSocket() == null ? " socket" : " socket (the agent at " + settings.agentSocket()
                    + " holds no key)") + (passedOver.isEmpty() ? ""
                    : "; OpenSSH's default keys were passed over: " + String.join("; ", passedOver)), null);
        }
        ServerKeyVerifier verifier = KnownHostsVerifier.forPolicy(hop.hostKeyPolicy(), hop.host(), hop.port(),
                relayed, dial);
        return new HopAccess(hop, List.copyOf(keyPairs), List.copyOf(keyFiles), verifier, last);
    }

    private static void add(List<KeyPair> loaded, Path file, List<KeyPair> keyPairs, List<Path> keyFiles) {
        keyPairs.addAll(loaded);
        loaded.forEach(pair -> keyFiles.add(file));
    }

    /** The hypervisor through the jump hosts, which MINA takes nearest-to-target first. */
    private static HostConfigEntry hostConfig(SshTunnelSettings settings) {
        SshHop target = settings.target();
        List<String> jumps = new ArrayList<>(settings.jumps().stream().map(hop -> "ssh://" + hop.destination())
                .toList());
        Collections.reverse(jumps);
        HostConfigEntry entry = new HostConfigEntry("", target.host(), target.port(), target.user(),
                jumps.isEmpty() ? null : String.join(",", jumps));
        entry.setIdentitiesOnly(true);
        return entry;
    }

    @Override
    public UnixSocketRelay.FarEnd connect() throws IOException {
        return openChannel(settings.handshakeTimeout());
    }

    @Override
    public String route() {
        String command = helperCommand;
        return "SSH to " + settings.effectiveValues() + (login == null ? "" : ", logged in with " + login)
                + (command == null ? ", direct-streamlocal to " + settings.remoteSocketPath()
                : ", exec '" + command + "' (sshd forwards no unix sockets)");
    }

    @Override
    public String login() {
        return settings.target().user();
    }

    /** Commands on the hypervisor: exec channels of this session, which ends at the hypervisor, not a jump host. */
    @Override
    public Optional<HostShell> shell() {
        return Optional.of(new SshCommands(session, settings.destination()));
    }

    @Override
    public Optional<String> lossReason() {
        return session.isOpen() ? Optional.empty() : Optional.of(lostReason());
    }

    /** Closes the session at once: the relay has already cut every connection through it. */
    @Override
    public void close() {
        // A session that is already closed was lost, and its close listener may be what calls this.
        boolean lost = !session.isOpen();
        session.close(true);
        hold.release(lost);
    }

    private UnixSocketRelay.FarEnd openChannel(Duration timeout) throws IOException {
        String command = helperCommand;
        return command == null ? openStreamLocal(timeout) : openExec(command, timeout);
    }

    private UnixSocketRelay.FarEnd openStreamLocal(Duration timeout) throws IOException {
        String path = settings.remoteSocketPath();
        StreamLocalChannel channel = new StreamLocalChannel(path);
        OpenFuture opening;
        boolean answered;
        try {
            session.getService(ConnectionService.class).registerChannel(channel);
            opening = channel.open();
            answered = opening.await(timeout);
        } catch (InterruptedIOException e) {
            channel.close(true);
            Thread.currentThread().interrupt();
            throw new IOException("interrupted while connecting to " + path + " through " + settings.destination(), e);
        } catch (IOException e) {
            channel.close(true);
            throw new IOException("cannot open a channel to " + path + " through " + settings.destination() + ": "
                    + e.getMessage(), e);
        }
        if (!answered) {
            channel.close(true);
            throw new IOException("sshd at " + settings.destination() + " did not answer a request to connect to "
                    + path + " within " + timeout);
        }
        if (!opening.isOpened()) {
            throw channelRefused(opening.getException());
        }
        return new ChannelEnd(channel, path);
    }

    private UnixSocketRelay.FarEnd openExec(String command, Duration timeout) throws IOException {
        ChannelExec channel = session.createExecChannel(command);
        // Nothing reads the helper's errors; unread, they would stall the channel's window.
        channel.setErr(OutputStream.nullOutputStream());
        try {
            channel.open().verify(timeout);
        } catch (IOException e) {
            channel.close(true);
            throw new IOException("cannot run '" + command + "' on " + settings.destination() + ": " + e.getMessage(), e);
        }
        return new ChannelEnd(channel, command);
    }

    /** Where sshd forwards no sockets, execs virt-ssh-helper or {@code nc -U} as libvirt's ssh transport does. */
    private void fallBackToHelper(IOException refused, Duration timeout, Call dial) {
        if (!(refused.getCause() instanceof SshChannelOpenException)) {
            throw dial.transientFailure(refused.getMessage(), refused);
        }
        String path = settings.remoteSocketPath();
        String quoted = "'" + path.replace("'", "'\\''") + "'";
        String found;
        try {
            found = output("if [ ! -S " + quoted + " ]; then echo no-socket; elif [ ! -w " + quoted + " ]; then"
                    + " echo no-access $(stat -c %G " + quoted + " 2>/dev/null);"
                    + " elif command -v virt-ssh-helper >/dev/null 2>&1 && [ " + quoted + " = " + DEFAULT_SOCKET + " ];"
                    + " then echo virt-ssh-helper; elif command -v nc >/dev/null 2>&1; then echo nc;"
                    + " else echo no-helper; fi", timeout);
        } catch (IOException cannotRun) {
            found = "";
        }
        String destination = settings.destination();
        String group = found.startsWith("no-access ") ? found.substring("no-access ".length()).strip() : "";
        switch (found.startsWith("no-access") ? "no-access" : found) {
            case "virt-ssh-helper" -> helperCommand = "virt-ssh-helper qemu:///system";
            case "nc" -> helperCommand = "nc -U " + quoted;
            case "no-socket" -> throw dial.transientFailure("there is no socket at " + path + " on "
                    + destination + ": start libvirtd (or virtqemud) there, or correct the host's socket setting",
                    refused);
            case "no-access" -> {
                String user = settings.target().user();
                throw dial.failure(ErrorKind.PERMANENT, "user " + user + " may not use the socket " + path + " on "
                        + settings.target().host() + ": add the user to the group that owns it"
                        + (group.isEmpty() ? " (usually libvirt)" : " ('usermod -aG " + group + " " + user + "' there)")
                        + ", or log in as a user that may", refused);
            }
            case "no-helper" -> throw dial.failure(ErrorKind.PERMANENT, "sshd at " + destination + " does not"
                    + " forward connections to unix sockets, and the host has neither virt-ssh-helper nor nc to"
                    + " reach " + path + " instead: set 'AllowStreamLocalForwarding yes' (and 'AllowTcpForwarding"
                    + " yes') in its sshd_config, or install netcat-openbsd there", refused);
            default -> throw dial.failure(isProhibited(refused.getCause()) ? ErrorKind.PERMANENT : ErrorKind.TRANSIENT,
                    refused.getMessage(), refused);
        }
        LOG.info("sshd at {} does not forward connections to unix sockets; reaching {} through '{}' instead",
                destination, path, helperCommand);
        try {
            openChannel(timeout).close();
        } catch (IOException e) {
            throw dial.transientFailure(e.getMessage(), e);
        }
    }

    private String output(String command, Duration timeout) throws IOException {
        try (ChannelExec channel = session.createExecChannel(command)) {
            ByteArrayOutputStream printed = new ByteArrayOutputStream();
            channel.setOut(printed);
            channel.setErr(OutputStream.nullOutputStream());
            channel.open().verify(timeout);
            if (channel.waitFor(EnumSet.of(ClientChannelEvent.CLOSED), timeout).contains(ClientChannelEvent.TIMEOUT)) {
                throw new IOException("'" + command + "' did not finish within " + timeout);
            }
            return printed.toString(StandardCharsets.UTF_8).strip();
        }
    }

    private IOException channelRefused(Throwable failure) {
        String destination = settings.destination();
        String path = settings.remoteSocketPath();
        if (isProhibited(failure)) {
            return new IOException("sshd at " + destination + " refuses to forward connections to"
                    + " unix sockets (" + failure.getMessage() + "): set 'AllowStreamLocalForwarding yes' and"
                    + " 'AllowTcpForwarding yes' in its sshd_config, and make sure the user's authorized_keys"
                    + " entry has no 'restrict' or 'no-port-forwarding'", failure);
        }
        if (failure instanceof SshChannelOpenException refusal) {
            // OpenSSH answers "open failed" both when nothing listens on the path and when its config
            // forbids socket forwarding, so the message names both causes.
            return new IOException("sshd at " + destination + " could not connect to " + path + " ("
                    + refusal.getMessage() + "): check that the service (libvirtd) is running there and the user"
                    + " may open that socket, and that sshd_config has 'AllowStreamLocalForwarding yes' and"
                    + " 'AllowTcpForwarding yes'", refusal);
        }
        String detail = failure == null ? "the SSH connection closed" : failure.toString();
        return new IOException("cannot open a channel to " + path + " through " + destination + ": " + detail, failure);
    }

    private String lostReason() {
        Throwable failure = firstFailure.get();
        return "the SSH connection to " + settings.destination() + " was lost"
                + (failure == null ? "" : ": " + failure.getMessage())
                + " (sshd closed it or died; libvirtd was not reached): check that sshd there is running and keeps"
                + " its connections (its log, such as 'journalctl -u ssh'; MaxStartups, MaxSessions) and that"
                + " nothing on the way cuts them, then retry";
    }

    private static boolean isProhibited(Throwable failure) {
        return failure instanceof SshChannelOpenException refusal
                && refusal.getReasonCode() == SshConstants.SSH_OPEN_ADMINISTRATIVELY_PROHIBITED;
    }

    private static ProviderException timeout(Attempt attempt, String step, Call dial) {
        return dial.transientFailure(attempt.current().label() + " did not complete " + step + " within the handshake"
                + " timeout of " + attempt.settings().handshakeTimeout() + ": check that the address and port lead to a"
                + " responsive sshd", null);
    }

    private static ProviderException connectFailure(Attempt attempt, Throwable cause, Call dial) {
        if (attempt.created().get() > 0 && isNoMoreAuthMethods(cause)) {
            return authenticationFailure(attempt, cause, dial);
        }
        String detail = cause == null ? "connection failed" : cause.getMessage() == null ? cause.toString()
                : cause.getMessage();
        if (attempt.created().get() == 0) {
            SshHop first = attempt.hops().get(0).hop();
            return dial.transientFailure("cannot reach sshd at " + first.host() + ":" + first.port() + " (" + detail
                    + "): check the host's address and port and that sshd is running there", cause);
        }
        return dial.transientFailure("cannot reach " + attempt.settings().destination() + ": "
                + attempt.current().label() + " failed (" + detail + "): check that sshd is running there and that"
                + " each jump host may reach the next", cause);
    }

    private static ProviderException authenticationFailure(Attempt attempt, Throwable cause, Call dial) {
        HopAccess hop = attempt.current();
        if (isNoMoreAuthMethods(cause)) {
            List<String> offered = new ArrayList<>();
            hop.keyPairs().forEach(pair -> offered.add(describe(pair.getPublic())));
            attempt.agentKeys().forEach(key -> offered.add(describe(key) + " from the agent"));
            String files = hop.hop().keyFiles().stream().map(Path::toString).collect(Collectors.joining(", "));
            List<String> accepted = hop.hop().algorithms().publicKeys();
            return dial.failure(ErrorKind.PERMANENT, hop.label() + " did not accept any key offered for user "
                    + hop.hop().user() + " (" + String.join(", ", offered) + "): add one of their public keys"
                    + (files.isEmpty() ? "" : " ('ssh-keygen -y -f " + hop.hop().keyFiles().get(0) + "')")
                    + " to that user's ~/.ssh/authorized_keys on the host, or sign it with a CA the host's"
                    + " TrustedUserCAKeys names" + (accepted == null ? "" : "; ssh_config's PubkeyAcceptedAlgorithms"
                    + " lets only keys of " + String.join(",", accepted) + " be offered"), cause);
        }
        Optional<SshException> unagreed = keyExchangeFailure(cause);
        if (unagreed.isPresent()) {
            SshAlgorithms algorithms = hop.hop().algorithms();
            return dial.failure(ErrorKind.PERMANENT, hop.label() + " and this client have no algorithm in common ("
                    + unagreed.get().getMessage() + "): " + (algorithms.isDefault()
                    ? "allow one of this client's algorithms in the host's sshd_config"
                    : "ssh_config sets " + algorithms.written() + "; change that to include one the host offers, or"
                            + " allow one of this client's in the host's sshd_config"), cause);
        }
        return dial.transientFailure("SSH handshake with " + attempt.settings().destination() + " failed at "
                + hop.label() + ": " + (cause == null ? "the connection closed" : cause.toString()), cause);
    }

    /** MINA's refusal when the two sides' proposals share no key exchange, host key type, cipher or MAC. */
    private static Optional<SshException> keyExchangeFailure(Throwable cause) {
        for (Throwable reason = cause; reason != null; reason = reason.getCause()) {
            if (reason instanceof SshException ssh
                    && ssh.getDisconnectCode() == SshConstants.SSH2_DISCONNECT_KEY_EXCHANGE_FAILED) {
                return Optional.of(ssh);
            }
        }
        return Optional.empty();
    }

    private static boolean isNoMoreAuthMethods(Throwable cause) {
        for (Throwable reason = cause; reason != null; reason = reason.getCause()) {
            if (reason instanceof SshException ssh
                    && ssh.getDisconnectCode() == SshConstants.SSH2_DISCONNECT_NO_MORE_AUTH_METHODS_AVAILABLE) {
                return true;
            }
        }
        return false;
    }

    private static String describe(PublicKey key) {
        return key instanceof OpenSshCertificate certificate
                ? "certificate " + certificate.getId() + " of " + KeyUtils.getKeyType(certificate.getCertPubKey()) + " "
                        + KeyUtils.getFingerPrint(certificate.getCertPubKey())
                : KeyUtils.getKeyType(key) + " " + KeyUtils.getFingerPrint(key);
    }

    private static Duration remaining(long deadlineNanos) {
        return Duration.ofNanos(Math.max(0, deadlineNanos - System.nanoTime()));
    }

    private static SshClient startClient() {
        SshClient client = SshClient.setUpDefaultClient();
        // Nothing from the user's ~/.ssh (config, identities, known_hosts) may change what happens.
        client.setHostConfigEntryResolver(HostConfigEntryResolver.EMPTY);
        client.setKeyIdentityProvider(KeyIdentityProvider.EMPTY_KEYS_PROVIDER);
        client.setFilePasswordProvider(FilePasswordProvider.EMPTY);
        // Public key login signs with a list of its own: a session's list is its host key algorithms,
        // which ssh_config's HostKeyAlgorithms may narrow to types no user key has.
        client.setUserAuthFactories(List.of(new UserAuthPublicKeyFactory(List.copyOf(client.getSignatureFactories())) {
            @Override
            public UserAuthPublicKey createUserAuth(ClientSession session) {
                Attempt attempt = attemptOf(session);
                HopAccess hop = attempt == null ? null : attempt.current();
                return new UserAuthPublicKey(hop == null ? getSignatureFactories()
                        : hop.hop().algorithms().publicKeySignatures(getSignatureFactories()));
            }
        }));
        client.setAgentFactory(new SshAgentFactory() {
            @Override
            public SshAgent createClient(Session session, FactoryManager manager) throws IOException {
                Attempt attempt = attemptOf(session);
                Path socket = attempt == null ? null : attempt.agentSocket();
                return socket == null ? null : AgentSocket.connect(socket);
            }

            @Override
            public List<ChannelFactory> getChannelForwardingFactories(FactoryManager manager) {
                return List.of();
            }

            @Override
            public SshAgentServer createServer(ConnectionService service) throws IOException {
                throw new IOException("this client forwards no agent");
            }
        });
        client.setCipherFactories(SshAlgorithms.defaultCiphers());
        // Chosen explicitly rather than looked up with ServiceLoader.
        client.setIoServiceFactoryFactory(new Nio2ServiceFactoryFactory());
        CoreModuleProperties.HEARTBEAT_REQUEST.set(client, "keepalive@openssh.com");
        // Liveness is the keepalive's job; an idle libvirt connection is healthy and must stay open.
        CoreModuleProperties.IDLE_TIMEOUT.set(client, Duration.ZERO);
        // How long a write may wait for the host to accept more data.
        CoreModuleProperties.WAIT_FOR_SPACE_TIMEOUT.set(client, Duration.ofDays(1));
        CoreModuleProperties.SOCKET_KEEPALIVE.set(client, true);
        // Nagle's algorithm held each small handshake or libvirt message behind the host's delayed ACK
        // (40 ms on Linux), five times in a first contact (docs/benchmarks.md). sshd keeps it on its
        // side; HostKeysAcknowledgement avoids the pause that caused in every first contact.
        CoreModuleProperties.TCP_NODELAY.set(client, true);
        List<RequestHandler<ConnectionService>> handlers = new ArrayList<>(List.of(new HostKeysAcknowledgement()));
        handlers.addAll(client.getGlobalRequestHandlers());
        client.setGlobalRequestHandlers(handlers);
        client.addSessionListener(new SessionListener() {
            @Override
            public void sessionEstablished(Session session) {
                // Called while MINA builds the session, before its connection service reads the keepalive.
                Attempt attempt = attemptOf(session);
                if (attempt != null) {
                    CoreModuleProperties.AUTH_TIMEOUT.set(session, attempt.settings().handshakeTimeout());
                    CoreModuleProperties.HEARTBEAT_INTERVAL.set(session, attempt.settings().keepaliveInterval());
                    CoreModuleProperties.HEARTBEAT_NO_REPLY_MAX.set(session, attempt.settings().keepaliveMaxMissed());
                }
            }

            @Override
            public void sessionCreated(Session session) {
                // Called before the session sends its key exchange proposal.
                Attempt attempt = attemptOf(session);
                if (attempt != null && session instanceof ClientSession client) {
                    HopAccess hop = attempt.next();
                    client.setServerKeyVerifier(hop.verifier());
                    SshAlgorithms algorithms = hop.hop().algorithms();
                    // As OpenSSH: HostKeyAlgorithms in ssh_config is taken as written, not reordered by known_hosts.
                    if (algorithms.hostKeys() == null && hop.verifier() instanceof KnownHostsVerifier knownHosts) {
                        client.setSignatureFactories(knownHosts.preferVerifiableAlgorithms(client.getSignatureFactories()));
                    }
                    algorithms.applyTo(client);
                    hop.keyPairs().forEach(client::addPublicKeyIdentity);
                    if (hop.last()) {
                        // MINA's hook for the key the server accepted; check names it.
                        client.setPublicKeyAuthenticationReporter(new PublicKeyAuthenticationReporter() {
                            @Override
                            public void signalAuthenticationSuccess(ClientSession session, String service,
                                    KeyPair identity) {
                                attempt.login().set(hop.describeLogin(identity) + " (key exchange "
                                        + session.getNegotiatedKexParameter(KexProposalOption.ALGORITHMS) + ", host key "
                                        + session.getNegotiatedKexParameter(KexProposalOption.SERVERKEYS) + ", cipher "
                                        + session.getNegotiatedKexParameter(KexProposalOption.C2SENC) + ")");
                            }
                        });
                    }
                }
            }
        });
        client.start();
        return client;
    }

    private static Attempt attemptOf(Session session) {
        Object context = session.getIoSession().getAttribute(AttributeRepository.class);
        return context instanceof AttributeRepository attributes ? attributes.getAttribute(ATTEMPT) : null;
    }

    /** The running client, if a tunnel is open; tests read its algorithm choices and count its sessions. */
    static synchronized Optional<SshClient> runningClient() {
        return Optional.ofNullable(runningClient);
    }

    /**
     * Answers sshd's host-key announcement at once with an {@code SSH_MSG_IGNORE}, leaving the announcement
     * itself to MINA's handler. sshd sends it right after the login with Nagle's algorithm on, so its answer
     * to our first channel open waited for our acknowledgement, which Linux delays by 40 ms.
     */
    static final class HostKeysAcknowledgement implements RequestHandler<ConnectionService> {
        @Override
        public Result process(ConnectionService service, String request, boolean wantReply, Buffer buffer)
                throws IOException {
            if (OpenSshHostKeysHandler.REQUEST.equals(request)) {
                service.getSession().sendIgnoreMessage();
            }
            return Result.Unsupported;
        }
    }

    /** OpenSSH's {@code direct-streamlocal@openssh.com} channel to a unix socket of the server, which MINA lacks. */
    private static final class StreamLocalChannel extends AsyncCapableClientChannel {
        private static final String TYPE = "direct-streamlocal@openssh.com";
        private static final String LEVEL_PREFIX = "org.slf4j.simpleLogger.log.";

        static {
            // MINA's channel code logs each packet and window change through this class's logger, so
            // it takes the level egressctl gives the SSH library (slf4j-simple reads it per logger).
            String library = System.getProperty(LEVEL_PREFIX + "org.apache.sshd");
            if (library != null) {
                System.getProperties().putIfAbsent(LEVEL_PREFIX + StreamLocalChannel.class.getName(), library);
            }
        }

        private final String socketPath;

        StreamLocalChannel(String socketPath) {
            super(TYPE, false);
            this.socketPath = socketPath;
        }

        /** Its type-specific part (OpenSSH PROTOCOL 2.4): socket path, reserved string and uint32. */
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

        /** Ends the output pipe at the server's half-close; MINA only records the EOF, leaving a reader waiting. */
        @Override
        public void handleEof() throws IOException {
            super.handleEof();
            OutputStream pipe = out;
            if (pipe != null) {
                pipe.close();
            }
        }
    }

    private record ChannelEnd(AbstractClientChannel channel, String target) implements UnixSocketRelay.FarEnd {
        /** A closed channel (host hung up, connection died) is an error, so the relay drops the local connection too. */
        @Override
        public int read(ByteBuffer buffer) throws IOException {
            int count = channel.getInvertedOut().read(buffer.array(), buffer.arrayOffset() + buffer.position(),
                    buffer.remaining());
            if (count < 0 && channel.isClosing()) {
                throw new EOFException("the channel to " + target + " closed");
            }
            buffer.position(buffer.position() + Math.max(count, 0));
            return count;
        }

        @Override
        public void write(ByteBuffer buffer) throws IOException {
            OutputStream toSocket = channel.getInvertedIn();
            toSocket.write(buffer.array(), buffer.arrayOffset() + buffer.position(), buffer.remaining());
            toSocket.flush();
            buffer.position(buffer.limit());
        }

        @Override
        public void shutdownOutput() throws IOException {
            channel.getInvertedIn().close();
        }

        /** Closes without waiting; the close follows pending data, so sshd releases its end too. */
        @Override
        public void close() {
            channel.close(false);
        }
    }
}
