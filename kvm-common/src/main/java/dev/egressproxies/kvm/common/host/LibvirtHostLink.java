package dev.egressproxies.kvm.common.host;

import dev.egressproxies.api.ErrorKind;
import dev.egressproxies.api.ProviderException;
import dev.egressproxies.kvm.common.Call;
import dev.egressproxies.kvm.common.libvirt.LibvirtErrorCode;
import dev.egressproxies.kvm.common.libvirt.LibvirtErrorSource;
import dev.egressproxies.kvm.common.libvirt.LibvirtException;
import dev.egressproxies.kvm.common.libvirt.LibvirtHost;
import dev.egressproxies.kvm.common.libvirt.LibvirtJavaHost;
import dev.egressproxies.kvm.common.libvirt.LibvirtUris;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * A {@link HostLink} made of a libvirt-java connection and the {@link LibvirtTransport} it runs
 * through; what every real dialer returns.
 */
public final class LibvirtHostLink implements HostLink {
    private final HostEndpoint host;
    private final LibvirtTransport transport;
    private final LibvirtJavaHost libvirt;
    private final AtomicBoolean aborted = new AtomicBoolean();
    private final AtomicBoolean closed = new AtomicBoolean();

    private LibvirtHostLink(HostEndpoint host, LibvirtTransport transport, LibvirtJavaHost libvirt) {
        this.host = host;
        this.transport = transport;
        this.libvirt = libvirt;
    }

    /**
     * Connects libvirt-java through {@code transport} to the host's system QEMU driver. When the
     * dial's deadline passes first the transport is closed, which ends the attempt. On failure the
     * transport is closed; on success the link owns it.
     *
     * @throws ProviderException TRANSIENT when libvirt did not answer or refused for a reason a
     *     retry can heal.
     */
    public static LibvirtHostLink open(HostEndpoint host, LibvirtTransport transport, Call dial) {
        Objects.requireNonNull(host, "host");
        Objects.requireNonNull(transport, "transport");
        DeadlineWatchdog watchdog = DeadlineWatchdog.arm(dial.deadline(), transport::close);
        LibvirtJavaHost libvirt;
        try {
            libvirt = LibvirtJavaHost.connect(LibvirtUris.systemThroughSocket(transport.socketPath()));
        } catch (LibvirtException e) {
            watchdog.disarm();
            // Asked before closing: a transport closed by this link no longer knows it was lost.
            ProviderException failure = connectFailure(host, transport, e, watchdog.fired(), dial);
            transport.close();
            throw failure;
        } catch (IllegalStateException e) {
            watchdog.disarm();
            transport.close();
            throw dial.failure(ErrorKind.PERMANENT, e.getMessage(), e);
        }
        if (!watchdog.disarm()) {
            // The deadline passed just as the connection opened; the transport under it is gone.
            libvirt.close();
            throw connectFailure(host, transport, null, true, dial);
        }
        return new LibvirtHostLink(host, transport, libvirt);
    }

    @Override
    public LibvirtHost libvirt() {
        return libvirt;
    }

    @Override
    public String route() {
        return transport.route();
    }

    @Override
    public Optional<HostShell> shell() {
        return transport.shell();
    }

    @Override
    public boolean isAlive() {
        return !aborted.get() && !closed.get() && transport.isOpen() && libvirt.isAlive();
    }

    @Override
    public void abort() {
        aborted.set(true);
        transport.close();
    }

    @Override
    public void close() {
        if (closed.compareAndSet(false, true)) {
            libvirt.closeWhenIdle().whenComplete((ignored, failure) -> transport.close());
        }
    }

    @Override
    public String toString() {
        return "LibvirtHostLink[" + host.name() + " via " + transport.socketPath() + "]";
    }

    private static ProviderException connectFailure(HostEndpoint host, LibvirtTransport transport,
                                                    LibvirtException cause, boolean timedOut, Call dial) {
        String where = "libvirt on host " + host.name() + " (" + host.address() + ", socket " + host.socket() + ")";
        Optional<String> lost = timedOut ? Optional.empty() : transport.lossReason();
        if (lost.isPresent()) {
            // The daemon was never reached: what broke is the link to the host, not libvirtd.
            return dial.transientFailure("connecting to " + where
                    + " failed: " + lost.get(), cause);
        }
        if (timedOut) {
            return dial.transientFailure(where
                    + " did not answer within the time allowed for connecting; check that libvirtd (or virtqemud)"
                    + " runs there and responds ('virsh list' on the host)", cause);
        }
        if (cause.is(LibvirtErrorCode.AUTH_UNAVAILABLE) || cause.source() == LibvirtErrorSource.DBUS
                || cause.source() == LibvirtErrorSource.POLKIT) {
            // libvirtd's default socket lets any login in and asks polkit, over the system D-Bus,
            // about each that is not root; where polkit cannot answer, only root gets through.
            String login = transport.login();
            return dial.failure(ErrorKind.PERMANENT, where + " refused the connection: " + cause.getMessage()
                    + "; libvirtd asks polkit whether a login other than root (here " + login + ") may"
                    + " manage it, and polkit could not answer; connect as root, or add the login to the libvirt"
                    + " group there ('usermod -aG libvirt " + login + "'), which polkit's libvirt rule"
                    + " lets in; where polkit cannot run (no system D-Bus), give"
                    + " that group the socket without it: unix_sock_group = \"libvirt\", unix_sock_rw_perms ="
                    + " \"0770\" and auth_unix_rw = \"none\" in libvirtd.conf", cause);
        }
        if (cause.is(LibvirtErrorCode.AUTH_FAILED) || cause.is(LibvirtErrorCode.ACCESS_DENIED)) {
            return dial.failure(ErrorKind.PERMANENT, where
                    + " refused the connection: " + cause.getMessage() + "; connect as a user allowed to manage"
                    + " libvirt there (root, or a member of the libvirt group)", cause);
        }
        return dial.transientFailure("connecting to " + where
                + " failed: " + cause.getMessage() + "; check that libvirtd (or virtqemud) runs there and that the"
                + " socket path is right", cause);
    }
}
