package dev.egressproxies.kvm.common.ssh;

import dev.egressproxies.api.Deadline;
import dev.egressproxies.kvm.common.Call;
import dev.egressproxies.kvm.common.host.HostDialer;
import dev.egressproxies.kvm.common.host.HostEndpoint;
import dev.egressproxies.kvm.common.host.HostLink;
import dev.egressproxies.kvm.common.host.LibvirtHostLink;
import dev.egressproxies.kvm.common.libvirt.NativeLibvirt;
import dev.egressproxies.kvm.common.local.UnixSocketRelay;
import java.time.Duration;
import java.util.function.BiFunction;

/** The production {@link HostDialer}: libvirt-java through an {@link SshTunnel}, whose files are read at every dial. */
public final class SshHostDialer implements HostDialer {
    private final BiFunction<HostEndpoint, Call, SshTunnelSettings> settings;

    /** {@code settings} gives a host's tunnel settings at each dial, failing through the dial. */
    public SshHostDialer(BiFunction<HostEndpoint, Call, SshTunnelSettings> settings) {
        this.settings = settings;
    }

    @Override
    public HostLink dial(HostEndpoint host, Call dial) {
        Deadline deadline = dial.deadline();
        SshTunnelSettings configured = settings.apply(host, dial);
        // The handshake may not outlast the caller: a half-open host must not pin the dial.
        Duration handshake = deadline.isBounded() && deadline.remaining().compareTo(configured.handshakeTimeout()) < 0
                ? deadline.remaining()
                : configured.handshakeTimeout();
        if (handshake.isZero()) {
            throw dial.transientFailure("the deadline passed before the SSH connection to " + configured.destination()
                    + " was opened", null);
        }
        NativeLibvirt.loadAhead();
        UnixSocketRelay tunnel = SshTunnel.open(configured.withHandshakeTimeout(handshake), dial);
        return LibvirtHostLink.open(host, tunnel, dial);
    }
}
