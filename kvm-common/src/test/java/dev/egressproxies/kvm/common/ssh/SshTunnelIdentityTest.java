package dev.egressproxies.kvm.common.ssh;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import dev.egressproxies.api.ErrorKind;
import dev.egressproxies.api.ProviderException;
import dev.egressproxies.kvm.common.local.UnixSocketRelay;
import dev.egressproxies.kvm.common.ssh.TestKeys.Client;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.UnixDomainSocketAddress;
import java.nio.channels.SocketChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * The ways OpenSSH users hold their identities and trust their hosts, against real sshds: keys in a
 * real ssh-agent, key files with a passphrase, user certificates signed by a CA the server trusts,
 * host certificates vouched for by {@code @cert-authority}, StrictHostKeyChecking's relaxed modes,
 * hashed known_hosts entries, and a jump host on the way.
 */
@Timeout(120)
class SshTunnelIdentityTest {
    private static final Path CERTIFICATES = certificates();

    @RegisterExtension
    static final OpenSshServer SSHD = new OpenSshServer()
            .withOption("TrustedUserCAKeys", CERTIFICATES.resolve("user_ca.pub").toString())
            .withOption("HostCertificate", CERTIFICATES.resolve("host-cert.pub").toString());

    @RegisterExtension
    static final OpenSshServer JUMP = new OpenSshServer();

    @RegisterExtension
    static final EchoSocketExtension ECHO = new EchoSocketExtension();

    @TempDir
    Path folder;

    @AfterAll
    static void removeCertificates() {
        TestKeys.deleteQuietly(CERTIFICATES);
    }

    @Test
    void keysInTheAgentLogInWithoutAKeyFile() throws Exception {
        Path key = keygen("agent_key", "");
        SSHD.authorize(key);
        try (Agent agent = Agent.start(folder)) {
            agent.add(key);
            Files.delete(key);
            SshTunnelSettings settings = withoutKeyFiles(SSHD.settings(key, ECHO.socketPath())).withAgent(agent.socket);

            assertEchoes(settings);
            assertThat(route(settings)).contains("the agent's at " + agent.socket);
        }
    }

    @Test
    void aKeyFileWithAPassphraseIsUsedFromTheAgentThatHoldsIt() throws Exception {
        Path key = keygen("agent_encrypted_key", "correct horse");
        SSHD.authorize(key);
        SshTunnelSettings settings = SSHD.settings(key, ECHO.socketPath());
        try (Agent agent = Agent.start(folder)) {
            ProviderException withoutIt = catchThrowableOfType(ProviderException.class,
                    () -> SshTunnel.open(settings.withAgent(agent.socket), Dials.dial()));
            assertThat(withoutIt.kind()).isEqualTo(ErrorKind.PERMANENT);
            assertThat(withoutIt.getMessage()).contains("protected by a passphrase", "ssh-add " + key);

            agent.add(key, "correct horse");

            assertEchoes(settings.withAgent(agent.socket));
        }
    }

    @Test
    void aCertificateInTheAgentLogsInWhereThePlainKeyIsRefused() throws Exception {
        Path key = keygen("agent_certified_key", "");
        Command.run("openssh-client", "ssh-keygen", "-q", "-s", CERTIFICATES.resolve("user_ca").toString(),
                "-I", "egress-agent-test", "-n", SSHD.user(), "-V", "-5m:+1h", key + ".pub");
        try (Agent agent = Agent.start(folder)) {
            // ssh-add loads KEY-cert.pub with the key.
            agent.add(key);
            Files.delete(key);
            Files.delete(key.resolveSibling("agent_certified_key-cert.pub"));

            assertEchoes(withoutKeyFiles(SSHD.settings(key, ECHO.socketPath())).withAgent(agent.socket));
        }
    }

    @Test
    void hashedKnownHostsEntriesAsOpenSshWritesThemAreHonoured() throws Exception {
        Path hashed = Files.copy(SSHD.knownHosts(), folder.resolve("hashed_known_hosts"));
        Command.run("openssh-client", "ssh-keygen", "-q", "-H", "-f", hashed.toString());
        assertThat(Files.readString(hashed)).startsWith("|1|").doesNotContain(OpenSshServer.HOST);

        assertEchoes(SshTunnelSettings.of(OpenSshServer.HOST, SSHD.port(), SSHD.user(),
                TestKeys.get().client(Client.ED25519_OPENSSH), HostKeyPolicy.knownHosts(hashed), ECHO.socketPath()));
    }

    @Test
    void anAgentKeyTheHostRefusesIsNamedInThePermanentFailure() throws Exception {
        Path key = keygen("refused_agent_key", "");
        try (Agent agent = Agent.start(folder)) {
            agent.add(key);
            SshTunnelSettings settings = withoutKeyFiles(SSHD.settings(key, ECHO.socketPath())).withAgent(agent.socket);

            ProviderException failure = catchThrowableOfType(ProviderException.class,
                    () -> SshTunnel.open(settings, Dials.dial()));
            assertThat(failure.kind()).isEqualTo(ErrorKind.PERMANENT);
            assertThat(failure.getMessage()).contains("did not accept any key offered", "from the agent");
        }
    }

    @Test
    void aMissingAgentIsTransientAndNamesTheSocket() {
        Path socket = folder.resolve("no-agent.sock");
        SshTunnelSettings settings = withoutKeyFiles(SSHD.settings(TestKeys.get().client(Client.ED25519_OPENSSH),
                ECHO.socketPath())).withAgent(socket);

        ProviderException failure = catchThrowableOfType(ProviderException.class,
                () -> SshTunnel.open(settings, Dials.dial()));
        assertThat(failure.kind()).isEqualTo(ErrorKind.TRANSIENT);
        assertThat(failure.getMessage()).contains(socket.toString(), "ssh-agent");
    }

    @Test
    void anAgentThatCannotBeReachedIsPassedOverWhenKeyFilesSuffice() throws Exception {
        assertEchoes(SSHD.settings(TestKeys.get().client(Client.ED25519_OPENSSH), ECHO.socketPath())
                .withAgent(folder.resolve("stale-agent.sock")));
    }

    @Test
    void aKeyFileWithAPassphraseOpensWithThePassphraseFileAndAWrongOneIsPermanent() throws Exception {
        Path key = keygen("encrypted_key", "correct horse");
        SSHD.authorize(key);
        Path right = Files.writeString(folder.resolve("passphrase"), "correct horse\n");
        Path wrong = Files.writeString(folder.resolve("wrong-passphrase"), "battery staple\n");

        assertEchoes(SSHD.settings(key, ECHO.socketPath()).withPassphraseFile(right));

        ProviderException failure = catchThrowableOfType(ProviderException.class,
                () -> SshTunnel.open(SSHD.settings(key, ECHO.socketPath()).withPassphraseFile(wrong), Dials.dial()));
        assertThat(failure.kind()).isEqualTo(ErrorKind.PERMANENT);
        assertThat(failure.getMessage()).contains("the passphrase in " + wrong, key.toString());
    }

    @Test
    void aUserCertificateNextToTheKeyLogsInWhereThePlainKeyIsRefused() throws Exception {
        Path key = keygen("certified_key", "");
        SshTunnelSettings settings = SSHD.settings(key, ECHO.socketPath());
        assertThat(catchThrowableOfType(ProviderException.class, () -> SshTunnel.open(settings, Dials.dial())).kind())
                .isEqualTo(ErrorKind.PERMANENT);

        Command.run("openssh-client", "ssh-keygen", "-q", "-s", CERTIFICATES.resolve("user_ca").toString(),
                "-I", "egress-test", "-n", SSHD.user(), "-V", "-5m:+1h", key + ".pub");
        assertThat(key.resolveSibling("certified_key-cert.pub")).exists();

        assertEchoes(settings);
    }

    @Test
    void aHostCertificateIsTrustedThroughCertAuthorityAndAnotherAuthorityIsRefused() throws Exception {
        String hosts = "[" + OpenSshServer.HOST + "]:" + SSHD.port();
        Path trusted = SSHD.knownHostsWith("ca_known_hosts", "@cert-authority " + hosts + " "
                + TestKeys.publicKeyLine(CERTIFICATES.resolve("host_ca")));
        Path untrusted = SSHD.knownHostsWith("other_ca_known_hosts", "@cert-authority " + hosts + " "
                + TestKeys.publicKeyLine(CERTIFICATES.resolve("user_ca")));
        Path key = TestKeys.get().client(Client.ED25519_OPENSSH);

        assertEchoes(SshTunnelSettings.of(OpenSshServer.HOST, SSHD.port(), SSHD.user(), key,
                HostKeyPolicy.knownHosts(trusted), ECHO.socketPath()));

        ProviderException failure = catchThrowableOfType(ProviderException.class, () -> SshTunnel.open(
                SshTunnelSettings.of(OpenSshServer.HOST, SSHD.port(), SSHD.user(), key,
                        HostKeyPolicy.knownHosts(untrusted), ECHO.socketPath()), Dials.dial()));
        assertThat(failure.kind()).isEqualTo(ErrorKind.PERMANENT);
        assertThat(failure.getMessage()).contains(untrusted.toString());
    }

    @Test
    void unknownHostsAreAcceptedOnlyWhenStrictCheckingIsRelaxedAndAcceptNewRecordsThem() throws Exception {
        Path key = TestKeys.get().client(Client.ED25519_OPENSSH);
        Path relaxed = Files.writeString(folder.resolve("relaxed_known_hosts"), "");
        Path recording = Files.writeString(folder.resolve("recording_known_hosts"), "");

        assertEchoes(hostKeys(key, new HostKeyPolicy.KnownHostsFile(relaxed, HostKeyPolicy.UnknownHosts.ACCEPT)));
        assertThat(relaxed).isEmptyFile();

        assertEchoes(hostKeys(key, new HostKeyPolicy.KnownHostsFile(recording,
                HostKeyPolicy.UnknownHosts.ACCEPT_AND_RECORD)));
        assertThat(Files.readString(recording)).contains("[" + OpenSshServer.HOST + "]:" + JUMP.port());
        // Recorded, the key is now checked strictly.
        assertEchoes(hostKeys(key, HostKeyPolicy.knownHosts(recording)));

        // A changed key is refused whatever StrictHostKeyChecking says.
        ProviderException failure = catchThrowableOfType(ProviderException.class, () -> SshTunnel.open(
                hostKeys(key, new HostKeyPolicy.KnownHostsFile(JUMP.wrongKnownHosts(), HostKeyPolicy.UnknownHosts.ACCEPT)),
                Dials.dial()));
        assertThat(failure.kind()).isEqualTo(ErrorKind.PERMANENT);
        assertThat(failure.getMessage()).contains("reinstalled or someone is intercepting");
    }

    @Test
    void aJumpHostIsPassedWithItsOwnHostKeyCheck() throws Exception {
        Path key = TestKeys.get().client(Client.ED25519_OPENSSH);
        SshHop jump = new SshHop(OpenSshServer.HOST, JUMP.port(), JUMP.user(), List.of(key),
                HostKeyPolicy.knownHosts(JUMP.knownHosts()));
        SshTunnelSettings settings = SSHD.settings(key, ECHO.socketPath()).withJumps(List.of(jump));

        assertEchoes(settings);
        assertThat(route(settings)).contains("(through " + jump.destination() + ")");

        SshHop distrusted = new SshHop(OpenSshServer.HOST, JUMP.port(), JUMP.user(), List.of(key),
                HostKeyPolicy.knownHosts(JUMP.wrongKnownHosts()));
        ProviderException failure = catchThrowableOfType(ProviderException.class, () -> SshTunnel.open(
                SSHD.settings(key, ECHO.socketPath()).withJumps(List.of(distrusted)), Dials.dial()));
        assertThat(failure.kind()).isEqualTo(ErrorKind.PERMANENT);
        assertThat(failure.getMessage()).contains(JUMP.wrongKnownHosts().toString());
    }

    private static SshTunnelSettings hostKeys(Path key, HostKeyPolicy policy) {
        return SshTunnelSettings.of(OpenSshServer.HOST, JUMP.port(), JUMP.user(), key, policy, ECHO.socketPath());
    }

    private static SshTunnelSettings withoutKeyFiles(SshTunnelSettings settings) {
        SshHop target = settings.target();
        return new SshTunnelSettings(new SshHop(target.host(), target.port(), target.user(), List.of(),
                target.hostKeyPolicy()), settings.jumps(), settings.agentSocket(), settings.passphraseFile(),
                settings.remoteSocketPath(), settings.handshakeTimeout(), settings.keepaliveInterval(),
                settings.keepaliveMaxMissed());
    }

    private static void assertEchoes(SshTunnelSettings settings) throws Exception {
        byte[] sent = "through the tunnel".getBytes(StandardCharsets.UTF_8);
        try (UnixSocketRelay tunnel = SshTunnel.open(settings, Dials.dial());
                SocketChannel local = SocketChannel.open(UnixDomainSocketAddress.of(tunnel.socketPath()))) {
            assertThat(SshTunnelForwardingTest.roundTrip(local, sent)).isEqualTo(sent);
        }
    }

    private static String route(SshTunnelSettings settings) {
        try (UnixSocketRelay tunnel = SshTunnel.open(settings, Dials.dial())) {
            return tunnel.route();
        }
    }

    private Path keygen(String name, String passphrase) throws Exception {
        Path file = folder.resolve(name);
        Command.run("openssh-client", "ssh-keygen", "-q", "-t", "ed25519", "-N", passphrase, "-C", name, "-f",
                file.toString());
        return file;
    }

    /** A user CA and a host CA, and the stack's host key certified by the host CA, made once for the class. */
    private static Path certificates() {
        try {
            Path folder = Files.createTempDirectory("egress-test-certificates-");
            for (String ca : List.of("user_ca", "host_ca")) {
                Command.run("openssh-client", "ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-C", ca, "-f",
                        folder.resolve(ca).toString());
            }
            Path hostKey = TestKeys.get().hostEd25519();
            Files.writeString(folder.resolve("host.pub"), TestKeys.publicKeyLine(hostKey) + "\n");
            Command.run("openssh-client", "ssh-keygen", "-q", "-s", folder.resolve("host_ca").toString(), "-I",
                    "egress-test-host", "-h", "-n", OpenSshServer.HOST, "-V", "-5m:+1h", folder.resolve("host.pub").toString());
            return folder;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }
    }

    /** A real ssh-agent on a socket of the test's folder, stopped on close. */
    private static final class Agent implements AutoCloseable {
        final Path socket;
        private final Process process;

        private Agent(Path socket, Process process) {
            this.socket = socket;
            this.process = process;
        }

        static Agent start(Path folder) throws Exception {
            Path socket = folder.resolve("agent.sock");
            Process process = new ProcessBuilder("ssh-agent", "-D", "-a", socket.toString())
                    .redirectErrorStream(true).redirectOutput(ProcessBuilder.Redirect.DISCARD).start();
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
            while (!Files.exists(socket)) {
                if (!process.isAlive() || System.nanoTime() > deadline) {
                    process.destroyForcibly();
                    throw new IllegalStateException("ssh-agent did not create " + socket);
                }
                Thread.sleep(20);
            }
            return new Agent(socket, process);
        }

        void add(Path key) throws Exception {
            add(key, null);
        }

        /** Adds {@code key}, answering ssh-add's passphrase prompt through SSH_ASKPASS when one is given. */
        void add(Path key, String passphrase) throws Exception {
            ProcessBuilder builder = new ProcessBuilder("ssh-add", key.toString()).redirectErrorStream(true)
                    .redirectOutput(ProcessBuilder.Redirect.DISCARD)
                    .redirectInput(ProcessBuilder.Redirect.from(Path.of("/dev/null").toFile()));
            builder.environment().put("SSH_AUTH_SOCK", socket.toString());
            if (passphrase != null) {
                Path askpass = Files.writeString(socket.resolveSibling("askpass.sh"),
                        "#!/bin/sh\necho '" + passphrase + "'\n");
                askpass.toFile().setExecutable(true);
                builder.environment().put("SSH_ASKPASS", askpass.toString());
                builder.environment().put("SSH_ASKPASS_REQUIRE", "force");
            }
            Process add = builder.start();
            if (!add.waitFor(30, TimeUnit.SECONDS) || add.exitValue() != 0) {
                throw new IllegalStateException("ssh-add " + key + " failed");
            }
        }

        @Override
        public void close() {
            process.destroy();
        }
    }
}
