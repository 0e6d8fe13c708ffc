package dev.egressproxies.kvm.common.ssh;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.egressproxies.kvm.common.ssh.TestKeys.Client;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The real thing: libvirt's own client speaks to the machine's libvirtd through a tunnel, with the
 * URI form the KVM backends use. Runs where libvirtd listens on its default socket (the test stack
 * starts one: scripts/test-stack.sh up); elsewhere it is reported as skipped, saying why.
 */
@Timeout(60)
class LibvirtSocketForwardingTest {
    private static final Path LIBVIRT_SOCKET = Path.of("/var/run/libvirt/libvirt-sock");

    @RegisterExtension
    static final OpenSshServer SSHD = new OpenSshServer();

    @Test
    void virshTalksToLibvirtdThroughTheTunnel() throws Exception {
        assumeTrue(Files.exists(LIBVIRT_SOCKET), "no libvirtd socket at " + LIBVIRT_SOCKET
                + ": start the test stack (scripts/test-stack.sh up) to run this test");
        SshTunnelSettings settings =
                SSHD.settings(TestKeys.get().client(Client.ED25519_OPENSSH), LIBVIRT_SOCKET.toString());
        try (SshTunnel tunnel = SshTunnel.open(settings)) {
            String uri = "qemu+unix:///system?socket=" + tunnel.localSocketPath();
            String version = Command.run("libvirt-clients", "virsh", "-c", uri, "version");
            assertThat(version).contains("Running hypervisor");
            String hostname = Command.run("libvirt-clients", "virsh", "-c", uri, "hostname");
            assertThat(hostname).isNotBlank();
        }
        assertThat(TunnelThreadsCount.awaitNone(5_000)).isEmpty();
    }
}
