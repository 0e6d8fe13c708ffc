package dev.egressproxies.kvm.common.local;

import java.io.IOException;
import java.util.concurrent.TimeUnit;

/**
 * A daemon frozen with SIGSTOP, as a hypervisor that hangs without closing its socket. Thaw it in
 * a {@code finally} block, so it is never left stopped whatever the test does.
 */
final class FrozenDaemon {
    private final long pid;

    private FrozenDaemon(long pid) {
        this.pid = pid;
    }

    /** Stops the process {@code pid}. */
    static FrozenDaemon freeze(long pid) throws IOException {
        signal("STOP", pid);
        return new FrozenDaemon(pid);
    }

    /** Lets the process run again; waits for {@code kill} even when interrupted, then restores the flag. */
    void thaw() throws IOException {
        signal("CONT", pid);
    }

    private static void signal(String name, long pid) throws IOException {
        Process kill = new ProcessBuilder("kill", "-" + name, Long.toString(pid)).inheritIO().start();
        boolean interrupted = false;
        boolean exited = false;
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (!exited && System.nanoTime() < deadline) {
            try {
                exited = kill.waitFor(deadline - System.nanoTime(), TimeUnit.NANOSECONDS);
            } catch (InterruptedException e) {
                interrupted = true;
            }
        }
        if (interrupted) {
            Thread.currentThread().interrupt();
        }
        if (!exited || kill.exitValue() != 0) {
            throw new IOException("kill -" + name + " " + pid + " failed; run the tests as root, as the test stack is");
        }
    }
}
