package dev.egressproxies.integration.kvm;

import dev.egressproxies.kvm.common.teststack.Commands;
import dev.egressproxies.kvm.common.teststack.TestStack;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Freezes the stack's libvirtd with SIGSTOP, so every call into it hangs the way a wedged
 * hypervisor hangs, and thaws it with SIGCONT.
 *
 * <p>A frozen libvirtd blocks every client on the machine, so thawing is never left to chance:
 * {@link #thaw()} sends SIGCONT whatever this class believes the state is, tests thaw in
 * {@code finally} blocks or harness restores, and a JVM shutdown hook sends SIGCONT to every
 * process this JVM ever stopped, as a last resort for a test run that is killed or times out.
 * (A JVM killed with SIGKILL runs no hook; {@code scripts/test-stack.sh up} resumes a stopped
 * libvirtd.)
 */
final class LibvirtdFreezer {
    /** Every libvirtd this JVM sent SIGSTOP, for the shutdown hook. */
    private static final Set<Long> EVER_STOPPED = ConcurrentHashMap.newKeySet();

    static {
        Runtime.getRuntime().addShutdownHook(new Thread(LibvirtdFreezer::thawAllEverStopped,
                "thaw libvirtd at JVM exit"));
    }

    private LibvirtdFreezer() {
    }

    /** Sends SIGSTOP to libvirtd; returns its process ID. */
    static long freeze() {
        long pid = TestStack.load().libvirtdPid();
        // Registered before the signal: a failure in between must still be thawed at exit.
        EVER_STOPPED.add(pid);
        signal("STOP", pid);
        return pid;
    }

    /** Sends SIGCONT to libvirtd (and to any earlier libvirtd this JVM stopped); harmless when it runs. */
    static void thaw() {
        long pid = TestStack.load().libvirtdPid();
        signal("CONT", pid);
        for (long earlier : EVER_STOPPED) {
            if (earlier != pid) {
                signalQuietly("CONT", earlier);
            }
        }
    }

    private static void thawAllEverStopped() {
        for (long pid : EVER_STOPPED) {
            signalQuietly("CONT", pid);
        }
    }

    private static void signal(String signal, long pid) {
        Commands.run(10, "kill", "-" + signal, Long.toString(pid));
    }

    private static void signalQuietly(String signal, long pid) {
        try {
            new ProcessBuilder("kill", "-" + signal, Long.toString(pid)).inheritIO().start().waitFor();
        } catch (Exception e) {
            // At exit, nothing is left to tell.
        }
    }
}
