package dev.egressproxies.kvm.common.ssh;

import java.util.concurrent.atomic.AtomicInteger;

/**
 * Starts the threads of one tunnel (the accept loop and two pumps per forwarded connection) with
 * names that say which tunnel and which job they belong to, as daemon threads so that a pump
 * stuck on a misbehaving peer never keeps the process alive.
 */
final class TunnelThreads {
    /** Every tunnel thread's name starts with this; MINA's own threads start with {@code sshd-}. */
    static final String NAME_PREFIX = "ssh-tunnel-";

    private final String tunnelName;
    private final AtomicInteger sequence = new AtomicInteger();

    TunnelThreads(String destination) {
        this.tunnelName = NAME_PREFIX + destination;
    }

    /** Starts {@code task} in a new thread named after the tunnel and {@code job}. */
    Thread start(String job, Runnable task) {
        Thread thread = new Thread(task, tunnelName + "-" + job + "-" + sequence.incrementAndGet());
        thread.setDaemon(true);
        thread.start();
        return thread;
    }
}
