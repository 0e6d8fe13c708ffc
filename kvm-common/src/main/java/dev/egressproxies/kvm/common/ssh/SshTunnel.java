package dev.egressproxies.kvm.common.ssh;

import dev.egressproxies.api.ErrorKind;
import dev.egressproxies.api.ProviderException;
import dev.egressproxies.kvm.common.Call;
import dev.egressproxies.kvm.common.local.UnixSocketRelay;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InterruptedIOException;
import java.io.OutputStream;
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
import java.util.stream.Collectors;
import org.apache.sshd.agent.SshAgent;
import org.apache.sshd.agent.SshAgentFactory;
import org.apache.sshd.agent.SshAgentServer;
import org.apache.sshd.client.SshClient;
import org.apache.sshd.client.auth.pubkey.UserAuthPublicKeyFactory;
import org.apache.sshd.client.channel.ChannelExec;
import org.apache.sshd.client.channel.ClientChannelEvent;
import org.apache.sshd.client.config.hosts.HostConfigEntry;
import org.apache.sshd.client.config.hosts.HostConfigEntryResolver;
import org.apache.sshd.client.future.AuthFuture;
import org.apache.sshd.client.future.ConnectFuture;
import org.apache.sshd.client.future.OpenFuture;
import org.apache.sshd.client.keyverifier.ServerKeyVerifier;
import org.apache.sshd.client.session.ClientSession;
import org.apache.sshd.common.AttributeRepository;
import org.apache.sshd.common.AttributeRepository.AttributeKey;
import org.apache.sshd.common.FactoryManager;
import org.apache.sshd.common.NamedFactory;
import org.apache.sshd.common.SshConstants;
import org.apache.sshd.common.SshException;
import org.apache.sshd.common.channel.ChannelFactory;
import org.apache.sshd.common.channel.exception.SshChannelOpenException;
import org.apache.sshd.common.cipher.BuiltinCiphers;
import org.apache.sshd.common.cipher.Cipher;
import org.apache.sshd.common.config.keys.FilePasswordProvider;
import org.apache.sshd.common.config.keys.KeyUtils;
import org.apache.sshd.common.config.keys.OpenSshCertificate;
import org.apache.sshd.common.future.CancelOption;
import org.apache.sshd.common.io.nio2.Nio2ServiceFactoryFactory;
import org.apache.sshd.common.keyprovider.KeyIdentityProvider;
import org.apache.sshd.common.session.ConnectionService;
import org.apache.sshd.common.session.Session;
import org.apache.sshd.common.session.SessionListener;
import org.apache.sshd.core.CoreModuleProperties;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * An SSH session to one hypervisor whose unix socket (libvirtd's) is relayed to a private local
 * one, the way {@code ssh -L local.sock:/var/run/libvirt/libvirt-sock} does: each local connection
 * gets its own {@code direct-streamlocal} channel.
 */
public final class SshTunnel implements UnixSocketRelay.Upstream {
    /** OpenSSH answers this request name; the reference implementation sends it too. */
    static final String KEEPALIVE_REQUEST = "keepalive@openssh.com";
    /** The ciphers offered before MINA's default order. */
    static final List<BuiltinCiphers> PREFERRED_CIPHERS = List.of(BuiltinCiphers.aes128gcm, BuiltinCiphers.aes256gcm);
    /** How long a write may wait for the host to accept more data. */
    private static final Duration WAIT_FOR_WINDOW = Duration.ofDays(1);
    private static final AttributeKey<Attempt> ATTEMPT = new AttributeKey<>();
    /** libvirt's system socket, which virt-ssh-helper reaches for {@code qemu:///system}. */
    private static final String DEFAULT_SOCKET = "/var/run/libvirt/libvirt-sock";
    private static final Logger LOG = LoggerFactory.getLogger(SshTunnel.class);

    private final SshTunnelSettings settings;
    private final ClientSession session;
    /** The command that bridges to the socket when sshd forwards none; null while forwarding works. */
    private volatile String helperCommand;
    /** The first failure of the open session (an unanswered keepalive, a reset); MINA drops attributes on close. */
    private final AtomicReference<Throwable> firstFailure = new AtomicReference<>();

    /**
     * What one connection attempt sets on its sessions, before MINA reads them: MINA connects the
     * hops one after the other (each through the one before), so the n-th session created is the
     * n-th hop.
     */
    private record Attempt(SshTunnelSettings settings, List<HopAccess> hops, Path agentSocket, AtomicInteger created) {
        /** The hop of the session being created now. */
        HopAccess next() {
            return hops.get(Math.min(created.getAndIncrement(), hops.size() - 1));
        }

        /** The hop the attempt reached last; the one a failure is about. */
        HopAccess current() {
            return hops.get(Math.max(0, Math.min(created.get(), hops.size()) - 1));
        }

        Optional<String> refusal() {
            return hops.stream().map(hop -> hop.verifier() instanceof KnownHostsVerifier knownHosts
                    ? knownHosts.refusal() : Optional.<String>empty()).flatMap(Optional::stream).findFirst();
        }
    }

    /** One hop's keys and host-key check, read when the attempt starts. */
    private record HopAccess(SshHop hop, List<KeyPair> keyPairs, ServerKeyVerifier verifier, boolean last) {
        /** How messages name the hop: the hypervisor, or a jump host on the way to it. */
        String label() {
            return (last ? "sshd at " : "jump host sshd at ") + hop.destination();
        }
    }

    /**
     * The process's one client, running while a tunnel is open or being opened. It stops when the
     * last one closes: its I/O thread waits inside native code, and the JVM delays its exit by
     * 0.3 s for any thread found there.
     */
    private static final class Clients {
        private static SshClient running;
        private static int holds;

        static synchronized Hold acquire() {
            if (running == null) {
                running = startClient();
            }
            holds++;
            return new Hold(running, new AtomicBoolean());
        }

        /** Stops the client when the last hold is given back. */
        private static void release(boolean fromClientThread) {
            SshClient stopping;
            synchronized (Clients.class) {
                if (--holds > 0) {
                    return;
                }
                stopping = running;
                running = null;
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

        /** The running client, if any. */
        static synchronized Optional<SshClient> current() {
            return Optional.ofNullable(running);
        }
    }

    /**
     * One opening or open tunnel's share of the client, given back once: a relay that fails to
     * start closes its tunnel, and the failed open then gives back what is left too.
     */
    private record Hold(SshClient client, AtomicBoolean released) {
        /** {@code fromClientThread}: called from one of the client's own threads (a lost session's close). */
        void release(boolean fromClientThread) {
            if (released.compareAndSet(false, true)) {
                Clients.release(fromClientThread);
            }
        }
    }

    private final Hold hold;

    private SshTunnel(SshTunnelSettings settings, Hold hold, ClientSession session) {
        this.settings = settings;
        this.hold = hold;
        this.session = session;
    }

    /**
     * Opens a tunnel and returns its relay: {@link UnixSocketRelay#socketPath()} is the local
     * socket, to which libvirt connects with {@code qemu+unix:///system?socket=}.
     *
     * @throws ProviderException of {@code dial} when any step fails, saying what to fix: PERMANENT
     *     when only a change of files or settings can help, else TRANSIENT
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
        Attempt attempt = new Attempt(settings, List.copyOf(hops), agent, new AtomicInteger());
        ConnectFuture connecting = null;
        boolean opened = false;
        Hold hold = Clients.acquire();
        try {
            connecting = hold.client().connect(hostConfig(settings), AttributeRepository.ofKeyValuePair(ATTEMPT, attempt),
                    null);
            if (!connecting.await(remaining(deadline), CancelOption.CANCEL_ON_TIMEOUT, CancelOption.CANCEL_ON_INTERRUPT)) {
                throw attempt.refusal().map(dial::permanent)
                        .orElse(timeout(settings, attempt.current(), "connecting", dial));
            }
            if (!connecting.isConnected()) {
                throw attempt.refusal().map(dial::permanent)
                        .orElse(connectFailure(settings, attempt, connecting.getException(), agentKeys, dial));
            }
            ClientSession session = connecting.getClientSession();
            AuthFuture authenticating = session.auth();
            if (!authenticating.await(remaining(deadline))) {
                throw attempt.refusal().map(dial::permanent)
                        .orElse(timeout(settings, attempt.current(), "key exchange and authentication", dial));
            }
            if (!authenticating.isSuccess()) {
                throw attempt.refusal().map(dial::permanent).orElse(authenticationFailure(attempt.current(),
                        authenticating.getException(), agentKeys, settings, dial));
            }
            SshTunnel tunnel = new SshTunnel(settings, hold, session);
            session.addSessionListener(new SessionListener() {
                @Override
                public void sessionException(Session failed, Throwable failure) {
                    tunnel.firstFailure.compareAndSet(null, failure);
                }
            });
            // Only a tunnel whose forwarding works is handed out, and a refusal is reported with its
            // cause, not as an unexplained end of stream; the probe shares the handshake's budget.
            try {
                tunnel.openChannel(remaining(deadline)).close();
            } catch (IOException refused) {
                tunnel.fallBackToHelper(refused, remaining(deadline), dial);
            }
            UnixSocketRelay relay = startRelay(tunnel, dial);
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
            throw attempt.refusal().map(dial::permanent).orElse(dial.transientFailure("SSH handshake with "
                    + settings.destination() + " failed: " + e, e));
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

    /**
     * Reads one hop's keys and known_hosts file; fails when the hop would have no key to offer.
     *
     * @param relayed whether the hop is reached through a jump host, so its peer address is a local one
     */
    private static HopAccess access(SshHop hop, boolean last, boolean relayed, SshTunnelSettings settings,
            List<PublicKey> agentKeys, Call dial) {
        List<KeyPair> keyPairs = new ArrayList<>();
        for (Path file : hop.keyFiles()) {
            // A key protected by a passphrase that the agent holds is used from the agent, as OpenSSH does.
            // Checked only with agent keys at hand: otherwise every dial would parse each key file twice.
            if (!agentKeys.isEmpty() && settings.passphraseFile() == null && PrivateKeyFile.isEncrypted(file)
                    && PrivateKeyFile.publicKey(file).filter(key -> agentKeys.stream()
                            .anyMatch(held -> KeyUtils.compareKeys(held, key))).isPresent()) {
                continue;
            }
            keyPairs.addAll(PrivateKeyFile.load(file, settings.passphraseFile(), dial));
        }
        if (keyPairs.isEmpty() && agentKeys.isEmpty()) {
            throw dial.failure(ErrorKind.PERMANENT, "there is no key to log in to " + hop.destination() + " with: set"
                    + " the entry's sshKeyFile, give the host an IdentityFile in ssh_config, or add a key to"
                    + " ssh-agent ('ssh-add KEY') and make SSH_AUTH_SOCK or the entry's identityAgent name its"
                    + (settings.agentSocket() == null ? " socket" : " socket (the agent at " + settings.agentSocket()
                    + " holds no key)"), null);
        }
        ServerKeyVerifier verifier = KnownHostsVerifier.forPolicy(hop.hostKeyPolicy(), hop.host(), hop.port(),
                relayed, dial);
        return new HopAccess(hop, List.copyOf(keyPairs), verifier, last);
    }

    /** What MINA connects: the hypervisor, through the jump hosts, which MINA takes nearest-to-target first. */
    private static HostConfigEntry hostConfig(SshTunnelSettings settings) {
        SshHop target = settings.target();
        List<String> jumps = new ArrayList<>(settings.jumps().stream()
                .map(hop -> "ssh://" + hop.destination())
                .toList());
        Collections.reverse(jumps);
        HostConfigEntry entry = new HostConfigEntry("", target.host(), target.port(), target.user(),
                jumps.isEmpty() ? null : String.join(",", jumps));
        entry.setIdentitiesOnly(true);
        return entry;
    }

    /** Opens a channel to the host's socket for one relayed connection. */
    @Override
    public UnixSocketRelay.FarEnd connect() throws IOException {
        return openChannel(settings.handshakeTimeout());
    }

    /** How the relayed connections reach the host's socket, for {@code check}. */
    @Override
    public String route() {
        String command = helperCommand;
        return "SSH to " + settings.effectiveValues() + (command == null
                ? ", direct-streamlocal to " + settings.remoteSocketPath()
                : ", exec '" + command + "' (sshd forwards no unix sockets)");
    }

    /** The login on the target host, as resolved at the dial (ssh_config may have given it). */
    @Override
    public String login() {
        return settings.target().user();
    }

    @Override
    public Optional<String> lossReason() {
        return session.isOpen() ? Optional.empty() : Optional.of(lostReason());
    }

    /** Closes the session, at once: the relay has already cut every connection through it. */
    @Override
    public void close() {
        // A session that is already closed was lost, and its close listener may be what calls this.
        boolean lost = !session.isOpen();
        session.close(true);
        hold.release(lost);
    }

    private static UnixSocketRelay startRelay(SshTunnel tunnel, Call dial) {
        try {
            return UnixSocketRelay.start("egress-ssh-tunnel-", tunnel);
        } catch (IOException e) {
            throw dial.transientFailure("cannot create the local unix socket for the tunnel to "
                    + tunnel.settings.destination() + " in " + System.getProperty("java.io.tmpdir") + ": " + e
                    + "; check that the temporary folder is writable", e);
        }
    }

    /** Opens a channel to the host's socket; the failure's message says why and what to check. */
    private UnixSocketRelay.FarEnd openChannel(Duration timeout) throws IOException {
        String command = helperCommand;
        return command == null ? openStreamLocal(timeout) : openExec(command, timeout);
    }

    private UnixSocketRelay.FarEnd openStreamLocal(Duration timeout) throws IOException {
        String path = settings.remoteSocketPath();
        ChannelDirectStreamLocal channel = new ChannelDirectStreamLocal(path);
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

    /** An exec channel running {@code command}, whose standard input and output are the socket's. */
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

    /**
     * When sshd refused a channel to the socket, reaches it as libvirt's own ssh transport does
     * where forwarding is off: an exec channel running virt-ssh-helper (for the default socket) or
     * {@code nc -U}. A probe command says which exists, and whether the socket does and may be used.
     *
     * @throws ProviderException of {@code dial} when there is no way through, saying what to change
     */
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
            default -> throw dial.failure(isProhibited(refused) ? ErrorKind.PERMANENT : ErrorKind.TRANSIENT,
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

    /** What {@code command} printed on the host, trimmed; fails when it did not finish within {@code timeout}. */
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
        if (failure instanceof SshChannelOpenException refusal) {
            if (refusal.getReasonCode() == SshConstants.SSH_OPEN_ADMINISTRATIVELY_PROHIBITED) {
                return new IOException("sshd at " + destination + " refuses to forward connections to"
                        + " unix sockets (" + refusal.getMessage() + "): set 'AllowStreamLocalForwarding yes' and"
                        + " 'AllowTcpForwarding yes' in its sshd_config, and make sure the user's authorized_keys"
                        + " entry has no 'restrict' or 'no-port-forwarding'", refusal);
            }
            // OpenSSH answers "open failed" (connect failed) both when nothing listens on the path
            // and when its config forbids socket forwarding, so the message names both causes.
            return new IOException("sshd at " + destination + " could not connect to " + path + " ("
                    + refusal.getMessage() + "): check that the service (libvirtd) is running there and the user"
                    + " may open that socket, and that sshd_config has 'AllowStreamLocalForwarding yes' and"
                    + " 'AllowTcpForwarding yes'", refusal);
        }
        String detail = failure == null ? "the SSH connection closed" : failure.toString();
        return new IOException("cannot open a channel to " + path + " through " + destination + ": " + detail, failure);
    }

    /** Why the session ended without the relay's close: a sentence naming the server and what to check. */
    private String lostReason() {
        Throwable failure = firstFailure.get();
        return "the SSH connection to " + settings.destination() + " was lost"
                + (failure == null ? "" : ": " + failure.getMessage())
                + " (sshd closed it or died; libvirtd was not reached): check that sshd there is running and keeps"
                + " its connections (its log, such as 'journalctl -u ssh'; MaxStartups, MaxSessions) and that"
                + " nothing on the way cuts them, then retry";
    }

    /** Whether sshd refused a channel by its configuration, which only a change there can fix. */
    private static boolean isProhibited(IOException failure) {
        return failure.getCause() instanceof SshChannelOpenException refusal
                && refusal.getReasonCode() == SshConstants.SSH_OPEN_ADMINISTRATIVELY_PROHIBITED;
    }

    private static ProviderException timeout(SshTunnelSettings settings, HopAccess hop, String step, Call dial) {
        return dial.transientFailure(hop.label() + " did not complete " + step + " within the handshake timeout of "
                + settings.handshakeTimeout() + ": check that the address and port lead to a responsive sshd", null);
    }

    /** Why MINA could not connect: the first hop unreachable, or a jump host that failed on the way. */
    private static ProviderException connectFailure(SshTunnelSettings settings, Attempt attempt, Throwable cause,
            List<PublicKey> agentKeys, Call dial) {
        HopAccess hop = attempt.current();
        if (attempt.created().get() > 0 && isNoMoreAuthMethods(cause)) {
            return authenticationFailure(hop, cause, agentKeys, settings, dial);
        }
        String detail = cause == null ? "connection failed" : cause.getMessage() == null ? cause.toString()
                : cause.getMessage();
        if (attempt.created().get() == 0) {
            SshHop first = attempt.hops().get(0).hop();
            return dial.transientFailure("cannot reach sshd at " + first.host() + ":" + first.port() + " (" + detail
                    + "): check the host's address and port and that sshd is running there", cause);
        }
        return dial.transientFailure("cannot reach " + settings.destination() + ": " + hop.label() + " failed ("
                + detail + "): check that sshd is running there and that each jump host may reach the next", cause);
    }

    private static ProviderException authenticationFailure(HopAccess hop, Throwable cause, List<PublicKey> agentKeys,
            SshTunnelSettings settings, Call dial) {
        if (isNoMoreAuthMethods(cause)) {
            List<String> offered = new ArrayList<>();
            hop.keyPairs().forEach(pair -> offered.add(describe(pair.getPublic())));
            agentKeys.forEach(key -> offered.add(describe(key) + " from the agent"));
            String files = hop.hop().keyFiles().stream().map(Path::toString).collect(Collectors.joining(", "));
            return dial.failure(ErrorKind.PERMANENT, hop.label() + " did not accept any key offered for user "
                    + hop.hop().user() + " (" + String.join(", ", offered) + "): add one of their public keys"
                    + (files.isEmpty() ? "" : " ('ssh-keygen -y -f " + hop.hop().keyFiles().get(0) + "')")
                    + " to that user's ~/.ssh/authorized_keys on the host, or sign it with a CA the host's"
                    + " TrustedUserCAKeys names", cause);
        }
        return dial.transientFailure("SSH handshake with " + settings.destination() + " failed at " + hop.label()
                + ": " + (cause == null ? "the connection closed" : cause.toString()), cause);
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
        client.setUserAuthFactories(List.of(UserAuthPublicKeyFactory.INSTANCE));
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
        client.setCipherFactories(preferringHardwareCiphers(client.getCipherFactories()));
        // Chosen explicitly rather than looked up with ServiceLoader.
        client.setIoServiceFactoryFactory(new Nio2ServiceFactoryFactory());
        CoreModuleProperties.HEARTBEAT_REQUEST.set(client, KEEPALIVE_REQUEST);
        // Liveness is the keepalive's job; an idle libvirt connection is healthy and must stay open.
        CoreModuleProperties.IDLE_TIMEOUT.set(client, Duration.ZERO);
        CoreModuleProperties.WAIT_FOR_SPACE_TIMEOUT.set(client, WAIT_FOR_WINDOW);
        CoreModuleProperties.SOCKET_KEEPALIVE.set(client, true);
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
                    if (hop.verifier() instanceof KnownHostsVerifier knownHosts) {
                        client.setSignatureFactories(knownHosts.preferVerifiableAlgorithms(client.getSignatureFactories()));
                    }
                    hop.keyPairs().forEach(client::addPublicKeyIdentity);
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

    /** {@link #PREFERRED_CIPHERS} first, then the others of {@code offered} in their order. */
    private static List<NamedFactory<Cipher>> preferringHardwareCiphers(List<NamedFactory<Cipher>> offered) {
        List<NamedFactory<Cipher>> ciphers = new ArrayList<>();
        PREFERRED_CIPHERS.stream().filter(BuiltinCiphers::isSupported).forEach(ciphers::add);
        offered.stream().filter(cipher -> !ciphers.contains(cipher)).forEach(ciphers::add);
        return ciphers;
    }

    /** The running client, if a tunnel is open; tests read its algorithm choices and count its sessions. */
    static Optional<SshClient> runningClient() {
        return Clients.current();
    }
}
