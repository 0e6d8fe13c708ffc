package dev.egressproxies.kvm.common.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import dev.egressproxies.api.Deadline;
import dev.egressproxies.api.ErrorKind;
import dev.egressproxies.api.Operation;
import dev.egressproxies.api.ProviderException;
import dev.egressproxies.kvm.common.Call;
import dev.egressproxies.kvm.common.ssh.HostKeyPolicy;
import dev.egressproxies.kvm.common.ssh.SshAlgorithms;
import dev.egressproxies.kvm.common.ssh.SshHop;
import dev.egressproxies.kvm.common.ssh.SshTunnelSettings;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** How a host's address, as a Host alias of ssh_config, resolves to the tunnel's effective settings. */
class SshAccessOpenSshConfigTest {
    private static final Call DIAL = new Call("kvm-a", Operation.LIST_MANAGED, "", Deadline.none());

    @TempDir
    Path folder;

    private Path config(String... lines) throws Exception {
        return Files.writeString(folder.resolve("ssh_config"), String.join("\n", lines) + "\n");
    }

    private static HostSettings host(String address, Integer port, String user, String proxyJump) {
        return new HostSettings("host-1", address, port, user, null, null, "br0", null, null, null, null, proxyJump);
    }

    private static SshAccess access(Path config) {
        return new SshAccess(null, null, null, null, null, config, Path.of("/run/agent.sock"), null);
    }

    @Test
    void anAliasTakesEveryHonouredOptionFromItsHostBlocksFirstValueWinning() throws Exception {
        Path file = config(
                "Host hv1",
                "  HostName 10.0.0.5",
                "  User egress",
                "  Port 2222",
                "  IdentityFile " + folder + "/id_%h",
                "  UserKnownHostsFile " + folder + "/known_hosts",
                "  StrictHostKeyChecking accept-new",
                "  ConnectTimeout 7",
                "  ServerAliveInterval 3",
                "Host *",
                "  User ignored",
                "  Port 22",
                "  ConnectTimeout 99");

        SshTunnelSettings settings = access(file).tunnelSettings(host("hv1", null, null, null), DIAL);

        assertThat(settings.target()).isEqualTo(new SshHop("10.0.0.5", 2222, "egress",
                List.of(folder.resolve("id_10.0.0.5")), new HostKeyPolicy.KnownHostsFile(folder.resolve("known_hosts"),
                        HostKeyPolicy.UnknownHosts.ACCEPT_AND_RECORD)));
        assertThat(settings.jumps()).isEmpty();
        assertThat(settings.handshakeTimeout()).isEqualTo(Duration.ofSeconds(7));
        assertThat(settings.keepaliveInterval()).isEqualTo(Duration.ofSeconds(3));
        assertThat(settings.agentSocket()).isEqualTo(Path.of("/run/agent.sock"));
        assertThat(settings.effectiveValues()).isEqualTo("egress@10.0.0.5:2222; keys " + folder.resolve("id_10.0.0.5")
                + " and the agent's at /run/agent.sock; known_hosts " + folder.resolve("known_hosts")
                + " (unknown hosts accepted and recorded); handshake timeout 7 s, keepalive every 3 s");
    }

    @Test
    void whatTheEntryWritesWinsOverTheFile() throws Exception {
        Path file = config("Host hv1", "  HostName 10.0.0.5", "  User egress", "  Port 2222",
                "  IdentityFile /ignored/key", "  UserKnownHostsFile /ignored/known_hosts", "  ConnectTimeout 7",
                "  ServerAliveInterval 3", "  IdentityAgent /ignored/agent.sock", "  ProxyJump bastion");
        SshAccess access = new SshAccess(Path.of("/etc/egress/id"), Path.of("/etc/egress/known_hosts"), null,
                Duration.ofSeconds(20), Duration.ofSeconds(9), file, Path.of("/run/agent.sock"), null);

        SshTunnelSettings settings = access.tunnelSettings(host("hv1", 2200, "admin", "none"), DIAL);

        assertThat(settings.target()).isEqualTo(new SshHop("10.0.0.5", 2200, "admin", List.of(Path.of("/etc/egress/id")),
                HostKeyPolicy.knownHosts(Path.of("/etc/egress/known_hosts"))));
        assertThat(settings.jumps()).isEmpty();
        assertThat(settings.handshakeTimeout()).isEqualTo(Duration.ofSeconds(20));
        assertThat(settings.keepaliveInterval()).isEqualTo(Duration.ofSeconds(9));
        assertThat(settings.agentSocket()).isEqualTo(Path.of("/run/agent.sock"));
    }

    @Test
    void proxyJumpAliasesResolveThroughTheFileAndAJumpHostsOwnJumpComesFirst() throws Exception {
        Path file = config(
                "Host hv1", "  HostName 10.1.0.5", "  ProxyJump inner",
                "Host inner", "  HostName 10.1.0.1", "  User jumper", "  IdentityFile /keys/inner",
                "  ProxyJump outer",
                "Host outer", "  HostName bastion.example.org", "  Port 2022", "  User gate");

        SshTunnelSettings settings = access(file).tunnelSettings(host("hv1", null, null, null), DIAL);

        assertThat(settings.jumps()).extracting(SshHop::destination)
                .containsExactly("gate@bastion.example.org:2022", "jumper@10.1.0.1:22");
        assertThat(settings.jumps().get(1).keyFiles()).containsExactly(Path.of("/keys/inner"));
        assertThat(settings.destination()).isEqualTo("root@10.1.0.5:22 (through gate@bastion.example.org:2022,"
                + " jumper@10.1.0.1:22)");
    }

    @Test
    void anEntrysProxyJumpMayNameHostsDirectly() throws Exception {
        SshTunnelSettings settings = access(config("Host unrelated", "  User x"))
                .tunnelSettings(host("10.0.0.5", 22, "root", "admin@10.0.0.9:2200,10.0.0.10"), DIAL);

        assertThat(settings.jumps()).extracting(SshHop::destination)
                .containsExactly("admin@10.0.0.9:2200", "root@10.0.0.10:22");
    }

    @Test
    void aJumpLoopIsPermanentAndNamesTheFile() throws Exception {
        Path file = config("Host a", "  ProxyJump b", "Host b", "  ProxyJump a");

        ProviderException failure = catchThrowableOfType(ProviderException.class,
                () -> access(file).tunnelSettings(host("a", null, null, null), DIAL));

        assertThat(failure.kind()).isEqualTo(ErrorKind.PERMANENT);
        assertThat(failure.getMessage()).contains(file.toString(), "in a circle");
    }

    @Test
    void anOptionOpenSshWouldRefuseIsPermanentAndNamesTheFile() throws Exception {
        Path file = config("Host hv1", "  StrictHostKeyChecking sometimes");

        ProviderException failure = catchThrowableOfType(ProviderException.class,
                () -> access(file).tunnelSettings(host("hv1", null, null, null), DIAL));

        assertThat(failure.kind()).isEqualTo(ErrorKind.PERMANENT);
        assertThat(failure.getMessage()).contains(file.toString(), "StrictHostKeyChecking", "yes, accept-new or no");
    }

    @Test
    void kexAlgorithmsCiphersAndMacsApplyToTheHopAndItsJumpHostEachByItsOwnBlocks() throws Exception {
        Path file = config("Host hv1", "  ProxyJump old-bastion", "  Ciphers aes256-ctr,aes128-ctr",
                "Host old-bastion", "  KexAlgorithms +diffie-hellman-group14-sha1",
                "Host *", "  MACs -hmac-sha1*");

        SshTunnelSettings settings = access(file).tunnelSettings(host("hv1", null, null, null), DIAL);

        SshAlgorithms target = settings.target().algorithms();
        assertThat(target.ciphers()).containsExactly("aes256-ctr", "aes128-ctr");
        assertThat(target.keyExchanges()).isNull();
        assertThat(target.macs()).contains("hmac-sha2-256-etm@openssh.com").noneMatch(mac -> mac.startsWith("hmac-sha1"));
        SshAlgorithms jump = settings.jumps().get(0).algorithms();
        assertThat(jump.keyExchanges()).endsWith("diffie-hellman-group14-sha1");
        assertThat(jump.ciphers()).isNull();
        assertThat(settings.effectiveValues()).contains("; from ssh_config Ciphers aes256-ctr,aes128-ctr; MACs ");
    }

    @Test
    void algorithmsOfWhichThisClientHasNoneArePermanentAndNameTheFile() throws Exception {
        Path file = config("Host hv1", "  KexAlgorithms sntrup4591761x25519-sha512@tinyssh.org");

        ProviderException failure = catchThrowableOfType(ProviderException.class,
                () -> access(file).tunnelSettings(host("hv1", null, null, null), DIAL));

        assertThat(failure.kind()).isEqualTo(ErrorKind.PERMANENT);
        assertThat(failure.getMessage()).contains("ssh_config file " + file + " sets KexAlgorithms",
                "no key exchange that egressctl's SSH client implements", "curve25519-sha256");
    }

    @Test
    void aNamedFileThatIsMissingIsTransient() {
        Path missing = folder.resolve("not-yet");

        ProviderException failure = catchThrowableOfType(ProviderException.class,
                () -> access(missing).tunnelSettings(host("hv1", null, null, null), DIAL));

        assertThat(failure.kind()).isEqualTo(ErrorKind.TRANSIENT);
        assertThat(failure.getMessage()).contains(missing.toString(), "does not exist");
    }
}
