package dev.egressproxies.integration.kvm;

import static org.assertj.core.api.Assertions.assertThat;

import dev.egressproxies.endtoend.EgressctlProcess;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * What {@code -v} and {@code -vv} write to standard error for a {@code list} of a {@code kvm} entry
 * on the real stack: {@code -v} shows egressctl's own steps with the milliseconds since start, but
 * not the SSH library's per-packet lines (about 200,000 for a 1 GiB upload), which {@code -vv} adds.
 */
@Tag("integration")
class VerboseLoggingEndToEndTest {
    /** The SSH library's lines at debug level, as slf4j-simple prints them with the short log name. */
    private static final String SSH_LIBRARY_DEBUG = "(?s).*\\bDEBUG (ClientSessionImpl|Nio2Session|Nio2Connector) - .*";
    /** Its channel code's lines, which name the tunnel's channel class. */
    private static final String SSH_CHANNEL_DEBUG = "(?s).*\\bDEBUG SshTunnel\\$StreamLocalChannel - .*";
    private static final String LINK_OPEN = "(?s).*(^|\\n)\\d+ DEBUG HostPool - libvirt link to host "
            + KvmTestConfig.HOST + " open after \\d+ ms.*";

    @TempDir
    Path temp;

    @Test
    void verboseShowsEgressctlsStepsWithTheirTimesAndTheSshLibrarysOnlyWhenGivenTwice() throws IOException {
        EgressctlProcess egressctl = egressctl();

        EgressctlProcess.Result quiet = egressctl.run("list", "--provider", KvmTestConfig.ENTRY, "-o", "json");
        EgressctlProcess.Result verbose = egressctl.run("-v", "list", "--provider", KvmTestConfig.ENTRY, "-o", "json");
        EgressctlProcess.Result veryVerbose = egressctl.run("-vv", "list", "--provider", KvmTestConfig.ENTRY,
                "-o", "json");

        System.out.println("[verbose logging] standard error lines: none " + quiet.err().lines().count() + ", -v "
                + verbose.err().lines().count() + ", -vv " + veryVerbose.err().lines().count());
        assertThat(quiet.exitCode()).as(quiet.toString()).isZero();
        assertThat(quiet.err()).as("without -v").doesNotContain("DEBUG");
        assertThat(verbose.exitCode()).as(verbose.toString()).isZero();
        assertThat(verbose.err()).as("-v").matches(LINK_OPEN).doesNotMatch(SSH_LIBRARY_DEBUG)
                .doesNotMatch(SSH_CHANNEL_DEBUG);
        assertThat(veryVerbose.exitCode()).as(veryVerbose.toString()).isZero();
        assertThat(veryVerbose.err()).as("-vv").matches(LINK_OPEN).matches(SSH_LIBRARY_DEBUG)
                .matches(SSH_CHANNEL_DEBUG);
        assertThat(verbose.out()).as("-v changes nothing on standard output").isEqualTo(quiet.out());
    }

    private EgressctlProcess egressctl() throws IOException {
        Path work = Files.createDirectories(temp.resolve("work"));
        Path file = Files.writeString(work.resolve("egress.yaml"), KvmTestConfig.standard().yaml());
        return new EgressctlProcess(Files.createDirectories(temp.resolve("home")), work)
                .with("EGRESS_CONFIG", file.toString());
    }
}
