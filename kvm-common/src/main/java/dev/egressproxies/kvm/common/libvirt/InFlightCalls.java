package dev.egressproxies.kvm.common.libvirt;

import java.util.concurrent.CompletableFuture;

/**
 * Counts the calls inside a shared resource and closes it once none is inside, after a close was
 * asked for: at once when idle, otherwise at the last call out.
 */
final class InFlightCalls {
    private final Runnable closeAction;
    private final CompletableFuture<Void> closed = new CompletableFuture<>();

    private int inside;
    private boolean closing;

    /** Calls guarding a resource that {@code closeAction} closes. */
    InFlightCalls(Runnable closeAction) {
        this.closeAction = closeAction;
    }

    /** Counts a call in; false once a close was asked for (the call must not use the resource). */
    synchronized boolean tryEnter() {
        if (closing) {
            return false;
        }
        inside++;
        return true;
    }

    /** Counts a call out; the last one out after a close was asked for closes the resource. */
    void leave() {
        boolean closeNow;
        synchronized (this) {
            if (inside == 0) {
                throw new IllegalStateException("a call left that never entered");
            }
            inside--;
            closeNow = closing && inside == 0;
        }
        if (closeNow) {
            close();
        }
    }

    /**
     * Asks for the close and returns what completes once it has run; safe to call more than once.
     * Never waits for calls inside.
     */
    CompletableFuture<Void> closeWhenIdle() {
        boolean closeNow;
        synchronized (this) {
            closeNow = !closing && inside == 0;
            closing = true;
        }
        if (closeNow) {
            close();
        }
        return closed;
    }

    private void close() {
        try {
            closeAction.run();
        } finally {
            closed.complete(null);
        }
    }
}
