package dev.egressproxies.kvm.common.ssh;

import dev.egressproxies.kvm.common.local.UnixSocketRelay;
import java.util.ArrayList;
import java.util.List;

/**
 * What a closed tunnel must not leave behind: relay threads, and sessions of the process's MINA
 * client (whose own threads are shared by every tunnel and live as long as the process).
 */
final class TunnelThreadsCount {
    private TunnelThreadsCount() {
    }

    /** Returns the names of the live relay threads. */
    static List<String> names() {
        return Thread.getAllStackTraces().keySet().stream()
                .filter(Thread::isAlive)
                .map(Thread::getName)
                .filter(name -> name.startsWith(UnixSocketRelay.THREAD_PREFIX))
                .sorted()
                .toList();
    }

    /**
     * Waits up to {@code millis} for every relay thread to end and every SSH session to close, and
     * returns what is still there.
     */
    static List<String> awaitNone(long millis) throws InterruptedException {
        long deadline = System.currentTimeMillis() + millis;
        List<String> alive = left();
        while (!alive.isEmpty() && System.currentTimeMillis() < deadline) {
            Thread.sleep(20);
            alive = left();
        }
        return alive;
    }

    private static List<String> left() {
        List<String> left = new ArrayList<>(names());
        SshTunnel.client().getActiveSessions().forEach(session -> left.add("open session " + session));
        return left;
    }
}
