package dev.egressproxies.kvm.common.local;

import java.io.IOException;
import java.util.concurrent.TimeUnit;

/**
 * Freezes a daemon with SIGSTOP, as a hypervisor that hangs without closing its socket, and thaws
 * it with SIGCONT on {@link #close()}: use it in try-with-resources so the daemon is never left
 * stopped, whatever the test does.
 */
final class FrozenDaemon implements AutoCloseable {
    private final long pid;

    private FrozenDaemon(long pid) {
        this.pid = pid;
    }

    static FrozenDaemon freeze(long pid) throws IOException, InterruptedException {
        signal("STOP", pid);
        return new FrozenDaemon(pid);
    }

    @Override
    public void close() throws IOException, InterruptedException {
        signal("CONT", pid);
    }

    private static void signal(String name, long pid) throws IOException, InterruptedException {
        Process kill = new ProcessBuilder("kill", "-" + name, Long.toString(pid)).inheritIO().start();
        if (!kill.waitFor(10, TimeUnit.SECONDS) || kill.exitValue() != 0) {
            throw new IOException("kill -" + name + " " + pid + " failed; run the tests as root, as the test stack is");
        }
    }
}
