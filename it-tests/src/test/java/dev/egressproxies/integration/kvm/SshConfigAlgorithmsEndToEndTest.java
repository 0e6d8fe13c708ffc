package dev.egressproxies.integration.kvm;

import static org.assertj.core.api.Assertions.assertThat;

import dev.egressproxies.endtoend.EgressctlProcess;
import dev.egressproxies.kvm.common.teststack.TestStack;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * ssh_config's KexAlgorithms and Ciphers as an OpenSSH user sets them for a hypervisor, through the
 * packaged launcher and the stack's sshd: {@code check} logs in with what the file allows and names
 * it, and a file that leaves no algorithm in common with the host fails the host's check saying so.
 */
@Tag("integration")
class SshConfigAlgorithmsEndToEndTest {
    private final TestStack stack = TestStack.load();

    @TempDir
    Path temp;

    private EgressctlProcess.Result check(String... algorithmLines) throws Exception {
        Path work = Files.createDirectories(temp.resolve("work"));
        Path sshConfig = Files.writeString(work.resolve("ssh_config"), """
                Host egress-hv
                  HostName 127.0.0.1
                  Port %s
                  User root
                  IdentityFile %s
                  UserKnownHostsFile %s
                %s
                """.formatted(stack.value("EGRESS_TEST_SSH_PORT"), stack.value("EGRESS_TEST_SSH_KEY"),
                stack.value("EGRESS_TEST_KNOWN_HOSTS"), "  " + String.join("\n  ", algorithmLines)));
        Path config = Files.writeString(work.resolve("egress.yaml"), """
                providers:
                  - name: narrowed
                    type: kvm2
                    sshConfigFile: "%s"
                    machineTypes:
                      small: {vcpus: 1, memoryMiB: 128}
                    hosts:
                      - {name: hv-1, address: egress-hv, socket: "%s", pool: %s, bridge: %s, domainType: %s}
                """.formatted(sshConfig, stack.libvirtSocket(), stack.pool(), stack.bridge(),
                stack.value("EGRESS_TEST_DOMAIN_TYPE")));
        return new EgressctlProcess(Files.createDirectories(temp.resolve("home")), work)
                .with("EGRESS_CONFIG", config.toString())
                .with("SSH_AUTH_SOCK", "")
                .run("check", "-o", "json");
    }

    @Test
    void checkLogsInWithTheAlgorithmsSshConfigAllowsAndNamesThem() throws Exception {
        EgressctlProcess.Result check = check("KexAlgorithms ecdh-sha2-nistp521,curve25519-sha256",
                "Ciphers aes256-ctr");

        assertThat(SshCheckDetails.of(check).get("hv-1")).as(check.toString())
                .contains("(key exchange ecdh-sha2-nistp521, host key ssh-ed25519, cipher aes256-ctr)")
                .contains("from ssh_config KexAlgorithms ecdh-sha2-nistp521,curve25519-sha256; Ciphers aes256-ctr");
    }

    @Test
    void noKeyExchangeInCommonWithTheHostFailsItsCheckNamingSshConfig() throws Exception {
        EgressctlProcess.Result check = check("KexAlgorithms diffie-hellman-group1-sha1");

        assertThat(check.exitCode()).as(check.toString()).isEqualTo(1);
        assertThat(SshCheckDetails.of(check).get("hv-1")).as(check.toString())
                .contains("have no algorithm in common")
                .contains("ssh_config sets KexAlgorithms diffie-hellman-group1-sha1; change that");
    }
}
