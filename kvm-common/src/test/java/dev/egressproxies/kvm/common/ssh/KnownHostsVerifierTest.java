package dev.egressproxies.kvm.common.ssh;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import dev.egressproxies.api.ErrorKind;
import dev.egressproxies.api.ProviderException;
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

/** Parsing known_hosts files, and the verdicts of the check without a network: keys in, verdict and message out. */
class KnownHostsVerifierTest {
    private static final InetSocketAddress REMOTE = new InetSocketAddress("192.0.2.10", 2222);

    @TempDir
    Path folder;

    private static PublicKey key(Path privateKey) throws Exception {
        return PrivateKeyFile.load(privateKey, null, Dials.dial()).get(0).getPublic();
    }

    private static PublicKey hostKey() throws Exception {
        return key(TestKeys.get().hostEd25519());
    }

    private KnownHostsVerifier verifier(String host, int port, String... lines) throws Exception {
        Path file = Files.writeString(folder.resolve("known_hosts"), String.join("\n", lines) + "\n");
        return KnownHostsVerifier.load(file, HostKeyPolicy.UnknownHosts.REFUSE, host, port, false, Dials.dial());
    }

    private static String line(String name, Path privateKey) throws Exception {
        return name + " " + TestKeys.publicKeyLine(privateKey);
    }

    private static boolean accepts(KnownHostsVerifier verifier, int port) throws Exception {
        return verifier.verifyServerKey(null, new InetSocketAddress("192.0.2.10", port), hostKey());
    }

    @Test
    void theRecordedKeyIsAccepted() throws Exception {
        KnownHostsVerifier verifier = verifier("kvm1.example", 2222, line("[kvm1.example]:2222", TestKeys.get().hostEd25519()));
        assertThat(verifier.verifyServerKey(null, REMOTE, hostKey())).isTrue();
        assertThat(verifier.refusal()).isEmpty();
    }

    @Test
    void anEntryUnderTheNumericAddressCountsToo() throws Exception {
        KnownHostsVerifier verifier = verifier("kvm1.example", 2222, line("[192.0.2.10]:2222", TestKeys.get().hostEd25519()));
        assertThat(verifier.verifyServerKey(null, REMOTE, hostKey())).isTrue();
    }

    @Test
    void portTwentyTwoEntriesAreBareAndOtherPortsBracketed() throws Exception {
        String[] lines = {line("plain.example", TestKeys.get().hostEd25519()),
            line("[bracketed.example]:2222", TestKeys.get().hostEd25519())};
        assertThat(accepts(verifier("plain.example", 22, lines), 22)).isTrue();
        assertThat(accepts(verifier("plain.example", 2222, lines), 2222)).isFalse();
        assertThat(accepts(verifier("bracketed.example", 2222, lines), 2222)).isTrue();
        assertThat(accepts(verifier("bracketed.example", 22, lines), 22)).isFalse();
    }

    @Test
    void patternsListsAndMarkersAreUnderstood() throws Exception {
        String[] lines = {"# a comment", "",
            "*.pool.example,10.0.0.7 " + TestKeys.publicKeyLine(TestKeys.get().hostEd25519()) + " a trailing comment",
            "@revoked " + line("old.example", TestKeys.get().hostEd25519())};
        assertThat(accepts(verifier("kvm1.pool.example", 22, lines), 22)).isTrue();
        assertThat(accepts(verifier("10.0.0.7", 22, lines), 22)).isTrue();
        assertThat(accepts(verifier("kvm1.other.example", 22, lines), 22)).isFalse();
        KnownHostsVerifier old = verifier("old.example", 22, lines);
        assertThat(accepts(old, 22)).isFalse();
        assertThat(old.refusal().orElseThrow()).contains("line 4 marks @revoked");
    }

    @Test
    void hashedEntriesAsSshKeygenWritesThemMatch() throws Exception {
        Path file = Files.writeString(folder.resolve("known_hosts"),
                line("[hashed.example]:2200", TestKeys.get().hostEd25519()) + "\n");
        Command.run("openssh-client", "ssh-keygen", "-H", "-f", file.toString());
        assertThat(Files.readString(file)).startsWith("|1|");
        assertThat(accepts(KnownHostsVerifier.load(file, HostKeyPolicy.UnknownHosts.REFUSE, "hashed.example", 2200, false, Dials.dial()), 2200)).isTrue();
    }

    @Test
    void keyTypesThisClientCannotDecodeAreSkipped() throws Exception {
        KnownHostsVerifier verifier = verifier("host.example", 22,
                "host.example x-future-key@example.com AAAAGngtZnV0dXJlLWtleUBleGFtcGxlLmNvbQ==");
        assertThat(accepts(verifier, 22)).isFalse();
        assertThat(verifier.refusal().orElseThrow()).contains("has no entry in known_hosts");
    }

    @Test
    void aBadLineIsPermanentAndNamesItsNumber() throws Exception {
        Path file = Files.writeString(folder.resolve("known_hosts"),
                line("good.example", TestKeys.get().hostEd25519()) + "\nthis-line-has-no-key\n");
        ProviderException failure = catchThrowableOfType(ProviderException.class,
                () -> KnownHostsVerifier.load(file, HostKeyPolicy.UnknownHosts.REFUSE, "good.example", 22, false, Dials.dial()));
        assertThat(failure.kind()).isEqualTo(ErrorKind.PERMANENT);
        assertThat(failure.getMessage()).contains(file.toString(), "line 2", "is not a valid entry");
    }

    @Test
    void aCorruptKeyIsPermanent() throws Exception {
        Path file = Files.writeString(folder.resolve("known_hosts"), "host.example ssh-ed25519 AAAAnotbase64!!\n");
        ProviderException failure = catchThrowableOfType(ProviderException.class,
                () -> KnownHostsVerifier.load(file, HostKeyPolicy.UnknownHosts.REFUSE, "host.example", 22, false, Dials.dial()));
        assertThat(failure.kind()).isEqualTo(ErrorKind.PERMANENT);
        assertThat(failure.getMessage()).contains("line 1", "is not a valid entry");
    }

    @Test
    void aMissingFileIsTransient() {
        Path file = folder.resolve("absent");
        ProviderException failure = catchThrowableOfType(ProviderException.class,
                () -> KnownHostsVerifier.load(file, HostKeyPolicy.UnknownHosts.REFUSE, "host.example", 22, false, Dials.dial()));
        assertThat(failure.kind()).isEqualTo(ErrorKind.TRANSIENT);
        assertThat(failure.getMessage()).contains(file.toString(), "does not exist (yet)");
    }

    @Test
    void anotherKeyIsAMismatchThatSaysHowToFixIt() throws Exception {
        KnownHostsVerifier verifier = verifier("kvm1.example", 2222,
                line("[kvm1.example]:2222", TestKeys.get().otherHostEd25519()));
        assertThat(verifier.verifyServerKey(null, REMOTE, hostKey())).isFalse();
        assertThat(verifier.refusal().orElseThrow()).contains("kvm1.example:2222", "records",
                folder.resolve("known_hosts").toString(), "ssh-keygen -R [kvm1.example]:2222", "line 1", "SHA256:");
    }

    @Test
    void onPortTwentyTwoTheFixNamesTheBareHost() throws Exception {
        KnownHostsVerifier verifier = verifier("kvm1.example", 22, line("kvm1.example", TestKeys.get().otherHostEd25519()));
        verifier.verifyServerKey(null, new InetSocketAddress("192.0.2.10", 22), hostKey());
        assertThat(verifier.refusal().orElseThrow()).contains("ssh-keygen -R kvm1.example ");
    }

    @Test
    void aHostWithoutEntryIsUnknown() throws Exception {
        KnownHostsVerifier verifier = verifier("kvm1.example", 2222, line("kvm2.example", TestKeys.get().hostEd25519()));
        assertThat(verifier.verifyServerKey(null, REMOTE, hostKey())).isFalse();
        assertThat(verifier.refusal().orElseThrow()).contains("has no entry in known_hosts",
                "ssh-keyscan -p 2222 kvm1.example");
    }

    @Test
    void aRevokedKeyIsRefusedEvenWhenAlsoListedPlainly() throws Exception {
        KnownHostsVerifier verifier = verifier("kvm1.example", 2222,
                "@revoked " + line("[kvm1.example]:2222", TestKeys.get().hostEd25519()),
                line("[kvm1.example]:2222", TestKeys.get().hostEd25519()));
        assertThat(verifier.verifyServerKey(null, REMOTE, hostKey())).isFalse();
        assertThat(verifier.refusal().orElseThrow()).contains("line 1 marks @revoked");
    }

    @Test
    void theInsecureOptInAcceptsAnyKey() throws Exception {
        assertThat(KnownHostsVerifier.forPolicy(HostKeyPolicy.insecureIgnoreHostKey(), "kvm1.example", 2222, false, Dials.dial())
                .verifyServerKey(null, REMOTE, hostKey())).isTrue();
    }

    @Test
    void algorithmsOfRecordedKeysComeFirstAndCertificatesLast() throws Exception {
        KnownHostsVerifier verifier = verifier("kvm1.example", 2222, line("[kvm1.example]:2222", TestKeys.get().hostEcdsa()));
        List<NamedFactory<Signature>> available = List.of(
                BuiltinSignatures.ed25519_cert, BuiltinSignatures.ed25519,
                BuiltinSignatures.nistp256_cert, BuiltinSignatures.nistp256, BuiltinSignatures.rsaSHA512);
        List<String> ordered = verifier.preferVerifiableAlgorithms(available).stream().map(NamedFactory::getName).toList();
        assertThat(ordered).containsExactly("ecdsa-sha2-nistp256", "ssh-ed25519-cert-v01@openssh.com", "ssh-ed25519",
                "ecdsa-sha2-nistp256-cert-v01@openssh.com", "rsa-sha2-512");
    }
}
