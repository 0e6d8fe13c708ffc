package dev.egressproxies.kvm.common.ssh;

import static org.assertj.core.api.Assertions.assertThat;

import dev.egressproxies.kvm.common.local.UnixSocketRelay;
import dev.egressproxies.kvm.common.ssh.TestKeys.Client;
import dev.egressproxies.kvm.common.teststack.TestStack;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The real thing: libvirt's own client speaks to the machine's libvirtd through a tunnel, with the
 * URI form the KVM backends use. Brings the test stack up first (scripts/test-stack.sh up), so the
 * socket is served by a libvirtd that answers, never a stale socket file left on the machine.
 */
@Timeout(60)
class LibvirtSocketForwardingIT {
    private static final TestStack STACK = TestStack.load();

    @RegisterExtension
    static final OpenSshServer SSHD = new OpenSshServer();

    @Test
    void virshTalksToLibvirtdThroughTheTunnel() throws Exception {
        SshTunnelSettings settings =
                SSHD.settings(TestKeys.get().client(Client.ED25519_OPENSSH), STACK.libvirtSocket().toString());
        try (UnixSocketRelay tunnel = SshTunnel.open(settings, Dials.dial())) {
            String uri = "qemu+unix:///system?socket=" + tunnel.socketPath();
            String version = Command.run("libvirt-clients", "virsh", "-c", uri, "version");
            assertThat(version).contains("Running hypervisor");
            String hostname = Command.run("libvirt-clients", "virsh", "-c", uri, "hostname");
            assertThat(hostname).isNotBlank();
        }
        assertThat(TunnelThreadsCount.awaitNone(5_000)).isEmpty();
    }
}
