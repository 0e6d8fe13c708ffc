package dev.egressproxies.kvm.common.instance;

import dev.egressproxies.kvm.common.host.HostLink;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/** A link whose liveness the test sets, which counts aborts and closes, and whose daemon can be made to hang. */
final class FakeHostLink implements HostLink {
    private final String hostName;
    private final int number;
    private final HangingLibvirtHost libvirt = new HangingLibvirtHost(this);
    private final CountDownLatch aborted = new CountDownLatch(1);
    private final CountDownLatch closed = new CountDownLatch(1);
    private final AtomicInteger aborts = new AtomicInteger();
    private final AtomicInteger closes = new AtomicInteger();
    private volatile boolean alive = true;
    private volatile boolean hanging;

    FakeHostLink(String hostName, int number) {
        this.hostName = hostName;
        this.number = number;
    }

    String hostName() {
        return hostName;
    }

    /** Which dial of its host made it, from 1. */
    int number() {
        return number;
    }

    /** Makes the link report itself dead, as after a lost connection. */
    void die() {
        alive = false;
    }

    /** Makes every call block until the link is aborted, like a daemon stopped with SIGSTOP. */
    void hang() {
        hanging = true;
    }

    boolean isHanging() {
        return hanging;
    }

    void awaitAbort() {
        try {
            if (!aborted.await(30, TimeUnit.SECONDS)) {
                throw new AssertionError("a hung call on link " + this + " was never aborted");
            }
        } catch (InterruptedException e) {
            // Like a native call: interrupting the worker thread does not end it, only an abort does.
            Thread.currentThread().interrupt();
            awaitAbort();
        }
    }

    boolean wasAborted() {
        return aborts.get() > 0;
    }

    /** Waits a little for a close that the pool does on a worker thread. */
    boolean awaitClosed() throws InterruptedException {
        return closed.await(5, TimeUnit.SECONDS);
    }

    boolean wasClosed() {
        return closes.get() > 0;
    }

    @Override
    public HangingLibvirtHost libvirt() {
        return libvirt;
    }

    @Override
    public boolean isAlive() {
        return alive && aborts.get() == 0 && closes.get() == 0;
    }

    @Override
    public void abort() {
        aborts.incrementAndGet();
        aborted.countDown();
    }

    @Override
    public void close() {
        closes.incrementAndGet();
        closed.countDown();
    }

    @Override
    public String toString() {
        return "FakeHostLink[" + hostName + " #" + number + "]";
    }
}
