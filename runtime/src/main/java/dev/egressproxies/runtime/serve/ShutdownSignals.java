package dev.egressproxies.runtime.serve;

import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicInteger;
import sun.misc.Signal;

/**
 * SIGTERM and SIGINT for a long-running {@code serve}: the first asks for a graceful stop (finish
 * what is in flight within the grace period, then exit 0), a second one cuts the grace short.
 * Handled as signals, not by a shutdown hook, because a JVM that shuts down on a signal exits with
 * 143 or 130 and may not wait for the operations in flight.
 */
final class ShutdownSignals {
    private final CountDownLatch stop = new CountDownLatch(1);
    private final CountDownLatch hurry = new CountDownLatch(1);
    private final AtomicInteger received = new AtomicInteger();
    private volatile String name = "";

    /** Installs the handlers for TERM and INT. */
    void install() {
        for (String signal : new String[] {"TERM", "INT"}) {
            Signal.handle(new Signal(signal), this::received);
        }
    }

    private void received(Signal signal) {
        if (received.incrementAndGet() == 1) {
            name = "SIG" + signal.getName();
            stop.countDown();
        } else {
            hurry.countDown();
        }
    }

    /** Waits for the first signal and returns its name. */
    String awaitStop() throws InterruptedException {
        stop.await();
        return name;
    }

    /** The latch a second signal opens. */
    CountDownLatch hurry() {
        return hurry;
    }
}
