package dev.egressproxies.kvm.common.ssh;

import static org.assertj.core.api.Assertions.assertThat;

import dev.egressproxies.api.Deadline;
import dev.egressproxies.api.ErrorKind;
import dev.egressproxies.api.Operation;
import dev.egressproxies.api.ProviderException;
import dev.egressproxies.kvm.common.Call;
import dev.egressproxies.kvm.common.host.HostEndpoint;
import dev.egressproxies.kvm.common.host.HostLink;
import dev.egressproxies.kvm.common.ssh.TestKeys.Client;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** How a dial through SSH reports an sshd that dies between the tunnel's opening and libvirt's connect. */
@Timeout(60)
class SshHostDialerTest {

    @Test
    void sshdDyingRightAfterTheTunnelOpenedIsBlamedOnTheSshServerNotOnLibvirtd() throws Exception {
        try (OpenSshServer sshd = new OpenSshServer(); UnixTestServer libvirtd = UnixTestServer.silent()) {
            sshd.start();
            HostEndpoint host = new HostEndpoint("host-1", OpenSshServer.HOST, sshd.port(), sshd.user(),
                    libvirtd.socketPath().toString());
            SshTunnelSettings settings = sshd.settings(TestKeys.get().client(Client.ED25519_OPENSSH),
                    libvirtd.socketPath().toString());
            SshHostDialer dialer = new SshHostDialer((endpoint, call) -> settings);

            CompletableFuture<HostLink> dial = CompletableFuture.supplyAsync(
                    () -> dialer.dial(host, new Call("kvm", Operation.LIST_MANAGED, "", Deadline.after(Duration.ofSeconds(30)))));
            // The tunnel's probe is the first connection to the socket, libvirt's the second.
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
            while (libvirtd.acceptedConnections() < 2 && System.nanoTime() < deadline) {
                Thread.sleep(10);
            }
            assertThat(libvirtd.acceptedConnections()).as("connections to the socket").isEqualTo(2);
            sshd.kill();

            Throwable failure = dial.handle((link, thrown) -> thrown).get(20, TimeUnit.SECONDS);

            assertThat(failure).hasCauseInstanceOf(ProviderException.class);
            ProviderException error = (ProviderException) failure.getCause();
            System.out.println("[ssh dial] sshd killed after the tunnel opened -> " + error.getMessage());
            assertThat(error.kind()).isEqualTo(ErrorKind.TRANSIENT);
            assertThat(error.getMessage())
                    .contains("the SSH connection to " + settings.destination() + " was lost",
                            "check that sshd there is running")
                    .doesNotContain("check that libvirtd", "socket path is right");
        }
    }
}
