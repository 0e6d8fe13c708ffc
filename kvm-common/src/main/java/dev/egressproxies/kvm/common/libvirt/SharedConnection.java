package dev.egressproxies.kvm.common.libvirt;

import java.util.concurrent.CompletableFuture;
import org.libvirt.Connect;

/**
 * One libvirt-java {@link Connect}, shared by every thread that calls a host, and closed only once
 * no thread is inside it.
 *
 * <p>{@code Connect.close()} frees the native connection and forgets its pointer without any
 * locking, so closing it while another thread is inside a call would have that thread use freed
 * memory. Every call therefore counts itself in and out; {@link #closeWhenIdle()} closes at once
 * when no call is inside and otherwise leaves the close to the last call out. Calls that arrive
 * after the close was asked for fail as a transport failure, so the pool redials.
 */
final class SharedConnection {
    private final Connect connect;
    private final CompletableFuture<Void> closed = new CompletableFuture<>();

    private int callsInside;
    private boolean closing;

    SharedConnection(Connect connect) {
        this.connect = connect;
    }

    /**
     * Runs {@code action} on the connection, translating libvirt-java's exceptions.
     *
     * @throws LibvirtException what libvirt reported, or {@link LibvirtErrorCode#NO_CONNECT} when
     *                          the connection was closed
     */
    <T> T call(ConnectAction<T> action) {
        enter();
        try {
            return action.apply(connect);
        } catch (org.libvirt.LibvirtException e) {
            throw LibvirtJavaErrors.translate(e);
        } finally {
            leave();
        }
    }

    /**
     * Whether the connection is open and libvirt still considers it connected; never blocks on the
     * daemon (libvirt only checks its socket).
     */
    boolean isAlive() {
        synchronized (this) {
            if (closing) {
                return false;
            }
            callsInside++;
        }
        try {
            return connect.isAlive();
        } catch (org.libvirt.LibvirtException e) {
            return false;
        } finally {
            leave();
        }
    }

    /**
     * Closes the connection once no call is inside it (now, or when the last one leaves) and
     * returns what completes then. Safe to call more than once.
     */
    CompletableFuture<Void> closeWhenIdle() {
        boolean closeNow;
        synchronized (this) {
            closeNow = !closing && callsInside == 0;
            closing = true;
        }
        if (closeNow) {
            closeConnect();
        }
        return closed;
    }

    private synchronized void enter() {
        if (closing) {
            throw new LibvirtException(LibvirtErrorCode.NO_CONNECT,
                    "this libvirt connection was closed; the next host call opens a new one");
        }
        callsInside++;
    }

    private void leave() {
        boolean closeNow;
        synchronized (this) {
            callsInside--;
            closeNow = closing && callsInside == 0;
        }
        if (closeNow) {
            closeConnect();
        }
    }

    private void closeConnect() {
        try {
            connect.close();
        } catch (org.libvirt.LibvirtException | RuntimeException e) {
            // The link is being discarded; a close that fails (the transport is already cut) leaves
            // nothing to repair, since libvirt frees its side either way.
        } finally {
            closed.complete(null);
        }
    }

    /** Work on a libvirt-java connection that may throw libvirt-java's checked exception. */
    @FunctionalInterface
    interface ConnectAction<T> {
        T apply(Connect connect) throws org.libvirt.LibvirtException;
    }
}
