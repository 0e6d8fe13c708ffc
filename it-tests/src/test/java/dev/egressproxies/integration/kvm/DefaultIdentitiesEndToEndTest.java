package dev.egressproxies.integration.kvm;

import static org.assertj.core.api.Assertions.assertThat;

import dev.egressproxies.endtoend.EgressctlProcess;
import dev.egressproxies.kvm.common.teststack.TestStack;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A kvm2 entry that names no key, as an OpenSSH user writes one: the packaged launcher logs in to the
 * stack's sshd with the key in OpenSSH's default place, and {@code check} names it. The home OpenSSH
 * reads is the JDK's {@code user.home}, pointed at the test's folder through EGRESSCTL_JAVA_OPTS.
 */
@Tag("integration")
class DefaultIdentitiesEndToEndTest {
    private final TestStack stack = TestStack.load();

    @TempDir
    Path temp;

    @Test
    void checkLogsInWithOpenSshsDefaultKeyAndNamesIt() throws Exception {
        Path ssh = Files.createDirectories(temp.resolve("home/.ssh"));
        Path ed25519 = Files.copy(Path.of(stack.value("EGRESS_TEST_SSH_KEY")), ssh.resolve("id_ed25519"));
        Files.setPosixFilePermissions(ed25519, PosixFilePermissions.fromString("rw-------"));
        // Offered first, in OpenSSH's order, and refused: the stack does not know it.
        Process keygen = new ProcessBuilder("ssh-keygen", "-q", "-t", "rsa", "-N", "", "-f",
                ssh.resolve("id_rsa").toString()).redirectErrorStream(true).start();
        assertThat(keygen.waitFor(60, TimeUnit.SECONDS)).isTrue();
        Path work = Files.createDirectories(temp.resolve("work"));
        Path config = Files.writeString(work.resolve("egress.yaml"), """
                providers:
                  - name: defaults
                    type: kvm2
                    knownHostsFile: "%s"
                    machineTypes:
                      small: {vcpus: 1, memoryMiB: 128}
                    hosts:
                      - {name: hv-1, address: 127.0.0.1, port: %s, user: root, socket: "%s", pool: %s, bridge: %s,
                         domainType: %s}
                """.formatted(stack.value("EGRESS_TEST_KNOWN_HOSTS"), stack.value("EGRESS_TEST_SSH_PORT"),
                stack.libvirtSocket(), stack.pool(), stack.bridge(), stack.value("EGRESS_TEST_DOMAIN_TYPE")));

        EgressctlProcess.Result check = new EgressctlProcess(temp.resolve("home"), work)
                .with("EGRESS_CONFIG", config.toString())
                .with("SSH_AUTH_SOCK", "")
                .with("EGRESSCTL_JAVA_OPTS", "-Duser.home=" + temp.resolve("home"))
                .run("check", "-o", "json");

        Map<String, String> details = SshCheckDetails.of(check);
        assertThat(details.get("hv-1")).as(check.toString())
                .contains("keys OpenSSH's default " + ssh.resolve("id_rsa") + ", " + ed25519)
                .containsPattern("logged in with ssh-ed25519 SHA256:\\S+ from " + ed25519);
    }
}
