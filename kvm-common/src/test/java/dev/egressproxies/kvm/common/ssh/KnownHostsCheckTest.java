package dev.egressproxies.kvm.common.ssh;

import static org.assertj.core.api.Assertions.assertThat;

import dev.egressproxies.kvm.common.ssh.SshTunnelException.Reason;
import java.net.InetSocketAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.PublicKey;
import java.util.List;
import org.apache.sshd.common.NamedFactory;
import org.apache.sshd.common.signature.BuiltinSignatures;
import org.apache.sshd.common.signature.Signature;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The verdicts of the known_hosts check, without a network: keys in, verdict and message out. */
class KnownHostsCheckTest {
    private static final InetSocketAddress REMOTE = new InetSocketAddress("192.0.2.10", 2222);

    @TempDir
    Path folder;

    private static PublicKey key(Path privateKey) throws Exception {
        return PrivateKeyFile.load(privateKey).get(0).getPublic();
    }

    private KnownHostsCheck check(String host, int port, String... lines) throws Exception {
        Path file = Files.writeString(folder.resolve("known_hosts"), String.join("\n", lines) + "\n");
        return new KnownHostsCheck(KnownHosts.load(file), host, port);
    }

    private static String line(String name, Path privateKey) throws Exception {
        return name + " " + TestKeys.publicKeyLine(privateKey);
    }

    @Test
    void theRecordedKeyIsAccepted() throws Exception {
        KnownHostsCheck check = check("kvm1.example", 2222, line("[kvm1.example]:2222", TestKeys.get().hostEd25519()));
        assertThat(check.verifyServerKey(null, REMOTE, key(TestKeys.get().hostEd25519()))).isTrue();
        assertThat(check.rejection()).isEmpty();
    }

    @Test
    void anEntryUnderTheNumericAddressCountsToo() throws Exception {
        KnownHostsCheck check = check("kvm1.example", 2222, line("[192.0.2.10]:2222", TestKeys.get().hostEd25519()));
        assertThat(check.verifyServerKey(null, REMOTE, key(TestKeys.get().hostEd25519()))).isTrue();
    }

    @Test
    void anotherKeyIsAMismatchThatSaysHowToFixIt() throws Exception {
        KnownHostsCheck check = check("kvm1.example", 2222,
                line("[kvm1.example]:2222", TestKeys.get().otherHostEd25519()));
        assertThat(check.verifyServerKey(null, REMOTE, key(TestKeys.get().hostEd25519()))).isFalse();
        SshTunnelException rejection = check.rejection().orElseThrow();
        assertThat(rejection.reason()).isEqualTo(Reason.HOST_KEY_MISMATCH);
        assertThat(rejection.getMessage()).contains("kvm1.example:2222", folder.resolve("known_hosts").toString(),
                "ssh-keygen -R [kvm1.example]:2222", "line 1", "SHA256:");
    }

    @Test
    void onPortTwentyTwoTheFixNamesTheBareHost() throws Exception {
        KnownHostsCheck check = check("kvm1.example", 22, line("kvm1.example", TestKeys.get().otherHostEd25519()));
        check.verifyServerKey(null, new InetSocketAddress("192.0.2.10", 22), key(TestKeys.get().hostEd25519()));
        assertThat(check.rejection().orElseThrow().getMessage()).contains("ssh-keygen -R kvm1.example ");
    }

    @Test
    void aHostWithoutEntryIsUnknown() throws Exception {
        KnownHostsCheck check = check("kvm1.example", 2222, line("kvm2.example", TestKeys.get().hostEd25519()));
        assertThat(check.verifyServerKey(null, REMOTE, key(TestKeys.get().hostEd25519()))).isFalse();
        SshTunnelException rejection = check.rejection().orElseThrow();
        assertThat(rejection.reason()).isEqualTo(Reason.HOST_UNKNOWN);
        assertThat(rejection.getMessage()).contains("ssh-keyscan -p 2222 kvm1.example");
    }

    @Test
    void aRevokedKeyIsRefusedEvenWhenAlsoListedPlainly() throws Exception {
        KnownHostsCheck check = check("kvm1.example", 2222,
                "@revoked " + line("[kvm1.example]:2222", TestKeys.get().hostEd25519()),
                line("[kvm1.example]:2222", TestKeys.get().hostEd25519()));
        assertThat(check.verifyServerKey(null, REMOTE, key(TestKeys.get().hostEd25519()))).isFalse();
        assertThat(check.rejection().orElseThrow().reason()).isEqualTo(Reason.HOST_KEY_REVOKED);
    }

    @Test
    void algorithmsOfRecordedKeysComeFirstAndCertificatesLast() throws Exception {
        KnownHostsCheck check = check("kvm1.example", 2222, line("[kvm1.example]:2222", TestKeys.get().hostEcdsa()));
        List<NamedFactory<Signature>> available = List.of(
                BuiltinSignatures.ed25519_cert, BuiltinSignatures.ed25519,
                BuiltinSignatures.nistp256_cert, BuiltinSignatures.nistp256, BuiltinSignatures.rsaSHA512);
        List<String> ordered = check.preferVerifiableAlgorithms(available).stream().map(NamedFactory::getName).toList();
        assertThat(ordered).containsExactly("ecdsa-sha2-nistp256", "ssh-ed25519-cert-v01@openssh.com", "ssh-ed25519",
                "ecdsa-sha2-nistp256-cert-v01@openssh.com", "rsa-sha2-512");
    }
}
