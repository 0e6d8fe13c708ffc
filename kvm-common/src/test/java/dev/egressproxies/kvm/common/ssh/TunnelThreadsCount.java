package dev.egressproxies.kvm.common.ssh;

import java.util.List;

/** Counts the live threads that belong to SSH tunnels: ours ({@code ssh-tunnel-}) and MINA's ({@code sshd-}). */
final class TunnelThreadsCount {
    private TunnelThreadsCount() {
    }

    /** Returns the names of the live tunnel threads. */
    static List<String> names() {
        return Thread.getAllStackTraces().keySet().stream()
                .filter(Thread::isAlive)
                .map(Thread::getName)
                .filter(name -> name.startsWith(TunnelThreads.NAME_PREFIX) || name.startsWith("sshd-"))
                .sorted()
                .toList();
    }

    /** Waits up to {@code millis} for every tunnel thread to end and returns the names still alive. */
    static List<String> awaitNone(long millis) throws InterruptedException {
        long deadline = System.currentTimeMillis() + millis;
        List<String> alive = names();
        while (!alive.isEmpty() && System.currentTimeMillis() < deadline) {
            Thread.sleep(20);
            alive = names();
        }
        return alive;
    }
}
