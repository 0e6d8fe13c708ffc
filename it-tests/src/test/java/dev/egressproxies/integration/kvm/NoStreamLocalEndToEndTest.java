package dev.egressproxies.integration.kvm;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.egressproxies.endtoend.EgressctlProcess;
import dev.egressproxies.kvm.common.teststack.TestStack;
import java.io.IOException;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

/**
 * A {@code kvm2} entry whose two hosts are reached through the stack's sshd that forwards no unix
 * sockets ({@code AllowStreamLocalForwarding no}), as some embedded and VPN sshds: {@code check}
 * says each host is reached through an exec channel (virt-ssh-helper for the first host's default
 * socket, {@code nc -U} for the second host's own socket), and the conformance suite passes through it.
 */
@Tag("integration")
@ExtendWith(NoKvmLeftovers.class)
class NoStreamLocalEndToEndTest {
    private static final ObjectMapper JSON = new ObjectMapper();

    private final TestStack stack = TestStack.load();

    @TempDir
    Path temp;

    private Kvm2StackEntry entry;
    private EgressctlProcess egressctl;

    @BeforeEach
    void configure() {
        entry = Kvm2StackEntry.create("no-streamlocal", temp.resolve("state"));
        egressctl = entry.egressctl(entry.config().secondHost()
                .hostSetting("port", stack.value("EGRESS_TEST_NO_STREAMLOCAL_SSH_PORT")), temp);
    }

    @AfterEach
    void removeWhatTheEntryMade() {
        entry.close();
    }

    @Test
    void checkNamesTheExecRouteAndTheSuitePassesThroughIt() throws IOException {
        EgressctlProcess.Result check = egressctl.run("check", "-o", "json");
        assertThat(check.exitCode()).as(check.toString()).isZero();
        List<String> routes = List.copyOf(SshCheckDetails.of(check).values());
        assertThat(routes).hasSize(2);
        assertThat(routes.get(0)).contains("exec 'virt-ssh-helper qemu:///system' (sshd forwards no unix sockets)");
        assertThat(routes.get(1)).contains("exec 'nc -U '" + stack.secondHostLibvirtSocket() + "''");

        EgressctlProcess.Result run = egressctl.run("conformance", entry.name(), "-o", "json");
        assertThat(run.exitCode()).as(run.toString()).isZero();
        JsonNode document = JSON.readTree(run.out());
        assertThat(document.get("failed").asInt()).isZero();
        assertThat(document.get("passed").asInt()).isEqualTo(document.get("cases").size());
    }
}
