package dev.egressproxies.kvm.common.libvirt;

import java.util.concurrent.CompletableFuture;
import org.libvirt.Connect;

/**
 * One libvirt-java {@link Connect}, shared by every thread that calls a host, and closed only once
 * no thread is inside it.
 */
final class SharedConnection {
    private final Connect connect;
    private final InFlightCalls calls;

    SharedConnection(Connect connect) {
        this.connect = connect;
        this.calls = new InFlightCalls(this::closeConnect);
    }

    /**
     * Runs {@code action} on the connection, translating libvirt-java's exceptions.
     *
     * @throws LibvirtException what libvirt reported, or {@link LibvirtErrorCode#NO_CONNECT} when
     *     the connection was closed
     */
    <T> T call(ConnectAction<T> action) {
        if (!calls.tryEnter()) {
            throw new LibvirtException(LibvirtErrorCode.NO_CONNECT,
                    "this libvirt connection was closed; the next host call opens a new one");
        }
        try {
            return action.apply(connect);
        } catch (org.libvirt.LibvirtException e) {
            throw LibvirtJavaErrors.translate(e);
        } finally {
            calls.leave();
        }
    }

    /** {@link #call} for work that returns nothing. */
    void run(ConnectWork work) {
        call(connect -> {
            work.run(connect);
            return null;
        });
    }

    /**
     * Whether the connection is open and libvirt still considers it connected; never blocks on the
     * daemon (libvirt only checks its socket).
     */
    boolean isAlive() {
        if (!calls.tryEnter()) {
            return false;
        }
        try {
            return connect.isAlive();
        } catch (org.libvirt.LibvirtException e) {
            return false;
        } finally {
            calls.leave();
        }
    }

    /**
     * Closes the connection once no call is inside it (now, or when the last one leaves) and
     * returns what completes then. Safe to call more than once.
     */
    CompletableFuture<Void> closeWhenIdle() {
        return calls.closeWhenIdle();
    }

    private void closeConnect() {
        try {
            connect.close();
        } catch (org.libvirt.LibvirtException | RuntimeException e) {
            // The link is being discarded; a close that fails (the transport is already cut) leaves
            // nothing to repair, since libvirt frees its side either way.
        }
    }

    /** Work on a libvirt-java connection that may throw libvirt-java's checked exception. */
    @FunctionalInterface
    interface ConnectAction<T> {
        T apply(Connect connect) throws org.libvirt.LibvirtException;
    }

    /** {@link ConnectAction} without a result. */
    @FunctionalInterface
    interface ConnectWork {
        void run(Connect connect) throws org.libvirt.LibvirtException;
    }
}
