package dev.egressproxies.kvm.common.ssh;

import dev.egressproxies.kvm.common.local.UnixSocketRelay;
import java.lang.reflect.Field;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Optional;
import org.apache.sshd.client.SshClient;
import org.apache.sshd.common.io.IoConnector;
import org.apache.sshd.common.io.IoSession;

/**
 * What a closed tunnel must not leave behind: relay threads, and sessions of the process's MINA
 * client (whose own threads are shared by every open tunnel).
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
        openSessions().forEach(session -> left.add("open session " + session));
        return left;
    }

    // SshClient keeps its connector protected; MINA's jar is an automatic module, so open to reflection.
    private static Collection<IoSession> openSessions() {
        try {
            Field connector = SshClient.class.getDeclaredField("connector");
            connector.setAccessible(true);
            Optional<SshClient> client = SshTunnel.runningClient();
            if (client.isEmpty()) {
                return List.of();
            }
            IoConnector sessions = (IoConnector) connector.get(client.get());
            return sessions == null ? List.of() : sessions.getManagedSessions().values();
        } catch (ReflectiveOperationException e) {
            throw new IllegalStateException("MINA's SshClient no longer has the connector field this test reads", e);
        }
    }
}
