package dev.egressproxies.kvm.common.ssh;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.util.List;
import org.apache.sshd.client.SshClient;
import org.apache.sshd.common.NamedResource;
import org.junit.jupiter.api.Test;

/** The client's algorithm choices. */
class SshClientsTest {
    @Test
    void offersAesGcmFirstAndKeepsTheOtherDefaultCiphers() throws Exception {
        SshTunnelSettings settings = SshTunnelSettings.of("kvm1.example", 22, "egress", Path.of("/nonexistent/key"),
                HostKeyPolicy.insecureIgnoreHostKey(), "/var/run/libvirt/libvirt-sock");
        SshClient client = SshClients.create(settings,
                HostKeyCheck.forPolicy(settings.hostKeyPolicy(), settings.host(), settings.port()));
        List<String> offered = client.getCipherFactories().stream().map(NamedResource::getName).toList();
        List<String> defaults = SshClient.setUpDefaultClient().getCipherFactories().stream()
                .map(NamedResource::getName).toList();

        assertThat(offered).startsWith("aes128-gcm@openssh.com", "aes256-gcm@openssh.com")
                .doesNotHaveDuplicates()
                .containsExactlyInAnyOrderElementsOf(defaults);
    }
}
