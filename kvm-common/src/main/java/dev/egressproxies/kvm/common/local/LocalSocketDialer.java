package dev.egressproxies.kvm.common.local;

import dev.egressproxies.kvm.common.Call;
import dev.egressproxies.kvm.common.host.HostDialer;
import dev.egressproxies.kvm.common.host.HostEndpoint;
import dev.egressproxies.kvm.common.host.HostLink;
import dev.egressproxies.kvm.common.host.LibvirtHostLink;
import java.io.IOException;
import java.net.UnixDomainSocketAddress;
import java.nio.channels.SocketChannel;
import java.nio.file.Files;
import java.nio.file.Path;

/** Dials this machine's libvirt socket through a {@link UnixSocketRelay}, so the link can be cut like an SSH one. */
public final class LocalSocketDialer implements HostDialer {

    @Override
    public HostLink dial(HostEndpoint host, Call dial) {
        Path target = Path.of(host.socket());
        probe(host, target, dial);
        UnixSocketRelay relay;
        try {
            relay = UnixSocketRelay.start(target);
        } catch (IOException e) {
            throw dial.transientFailure("could not open a private relay socket in " + System.getProperty("java.io.tmpdir")
                            + " for host " + host.name() + ": " + e.getMessage()
                            + "; check that the temporary folder is writable", e);
        }
        return LibvirtHostLink.open(host, relay, dial);
    }

    /** Fails clearly on a socket that refuses; through the relay libvirt would only report an end of file. */
    private static void probe(HostEndpoint host, Path target, Call dial) {
        if (!Files.exists(target)) {
            throw dial.transientFailure("there is no libvirt socket at " + target + " on this machine: start libvirtd (or virtqemud),"
                            + " or correct the socket of host " + host.name() + " in the configuration", null);
        }
        try {
            // Connecting is the test; libvirtd forgets a client that closes without a word.
            SocketChannel.open(UnixDomainSocketAddress.of(target)).close();
        } catch (IOException e) {
            throw dial.transientFailure("cannot connect to the libvirt socket " + target + " of host " + host.name() + ": " + e.getMessage()
                            + "; check that libvirtd runs and that this user may use the socket", e);
        }
    }
}
