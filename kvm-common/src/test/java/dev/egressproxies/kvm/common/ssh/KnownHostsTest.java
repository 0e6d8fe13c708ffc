package dev.egressproxies.kvm.common.ssh;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import dev.egressproxies.kvm.common.ssh.SshTunnelException.Reason;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Parsing known_hosts files and finding a host's entries in them. */
class KnownHostsTest {
    @TempDir
    Path folder;

    private static String hostKey() throws Exception {
        return TestKeys.publicKeyLine(TestKeys.get().hostEd25519());
    }

    @Test
    void portTwentyTwoEntriesAreBareAndOtherPortsBracketed() throws Exception {
        KnownHosts knownHosts = load("plain.example " + hostKey(), "[bracketed.example]:2222 " + hostKey());
        assertThat(knownHosts.entriesFor(List.of("plain.example"), 22)).hasSize(1);
        assertThat(knownHosts.entriesFor(List.of("plain.example"), 2222)).isEmpty();
        assertThat(knownHosts.entriesFor(List.of("bracketed.example"), 2222)).hasSize(1);
        assertThat(knownHosts.entriesFor(List.of("bracketed.example"), 22)).isEmpty();
    }

    @Test
    void patternsListsAndMarkersAreUnderstood() throws Exception {
        KnownHosts knownHosts = load(
                "# a comment",
                "",
                "*.pool.example,10.0.0.7 " + hostKey() + " a trailing comment",
                "@revoked old.example " + hostKey());
        assertThat(knownHosts.entriesFor(List.of("kvm1.pool.example"), 22)).hasSize(1);
        assertThat(knownHosts.entriesFor(List.of("10.0.0.7"), 22)).hasSize(1);
        assertThat(knownHosts.entriesFor(List.of("old.example"), 22))
                .singleElement()
                .satisfies(entry -> {
                    assertThat(entry.marker()).isEqualTo("revoked");
                    assertThat(entry.lineNumber()).isEqualTo(4);
                });
    }

    @Test
    void hashedEntriesAsSshKeygenWritesThemMatch() throws Exception {
        Path file = Files.writeString(folder.resolve("known_hosts"), "[hashed.example]:2200 " + hostKey() + "\n");
        Command.run("openssh-client", "ssh-keygen", "-H", "-f", file.toString());
        assertThat(Files.readString(file)).startsWith("|1|");
        assertThat(KnownHosts.load(file).entriesFor(List.of("hashed.example"), 2200)).hasSize(1);
    }

    @Test
    void keyTypesThisClientCannotDecodeAreSkipped() throws Exception {
        KnownHosts knownHosts = load("host.example x-future-key@example.com AAAAGngtZnV0dXJlLWtleUBleGFtcGxlLmNvbQ==");
        assertThat(knownHosts.entriesFor(List.of("host.example"), 22)).isEmpty();
    }

    @Test
    void aBadLineIsPermanentAndNamesItsNumber() throws Exception {
        Path file = Files.writeString(folder.resolve("known_hosts"),
                "good.example " + hostKey() + "\nthis-line-has-no-key\n");
        SshTunnelException failure = catchThrowableOfType(SshTunnelException.class, () -> KnownHosts.load(file));
        assertThat(failure.reason()).isEqualTo(Reason.KNOWN_HOSTS_INVALID);
        assertThat(failure.isPermanent()).isTrue();
        assertThat(failure.getMessage()).contains(file.toString(), "line 2");
    }

    @Test
    void aCorruptKeyIsPermanent() throws Exception {
        Path file = Files.writeString(folder.resolve("known_hosts"), "host.example ssh-ed25519 AAAAnotbase64!!\n");
        SshTunnelException failure = catchThrowableOfType(SshTunnelException.class, () -> KnownHosts.load(file));
        assertThat(failure.reason()).isEqualTo(Reason.KNOWN_HOSTS_INVALID);
    }

    @Test
    void aMissingFileIsTransient() {
        Path file = folder.resolve("absent");
        SshTunnelException failure = catchThrowableOfType(SshTunnelException.class, () -> KnownHosts.load(file));
        assertThat(failure.reason()).isEqualTo(Reason.KNOWN_HOSTS_MISSING);
        assertThat(failure.isPermanent()).isFalse();
    }

    private KnownHosts load(String... lines) throws Exception {
        return KnownHosts.load(Files.writeString(folder.resolve("known_hosts"), String.join("\n", lines) + "\n"));
    }
}
