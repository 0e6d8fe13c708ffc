package dev.egressproxies.runtime.progress;

import java.io.IOException;
import java.lang.reflect.Method;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.function.Supplier;

/**
 * Whether standard error (file descriptor 2) is a terminal, which decides whether progress is drawn
 * there. {@code System.console()} cannot tell: on JDK 17 it means "standard input and output are a
 * terminal", so {@code 2> log} got redraws and {@code > id.txt} got none, and from JDK 22 it returns
 * a console even without a terminal. JNA's {@code isatty} is not on the platform's module path (only
 * the kvm plugin bundles it, and loading it for every command would cost start-up time), so on Linux
 * this reads what the descriptor points at from {@code /proc/self/fd/2}, as {@code tty(1)} does for
 * standard input.
 */
public final class StandardError {
    private static final Path DESCRIPTOR = Path.of("/proc/self/fd/2");

    private StandardError() {
    }

    /** Whether standard error of this process is a terminal. */
    public static boolean isTerminal() {
        return isTerminal(DESCRIPTOR, StandardError::consoleIsTerminal);
    }

    /**
     * Whether the descriptor link {@code descriptor} points at a terminal device; {@code fallback}
     * answers where there is no such link (no {@code /proc}: not Linux).
     */
    static boolean isTerminal(Path descriptor, Supplier<Boolean> fallback) {
        String target;
        try {
            target = Files.readSymbolicLink(descriptor).toString();
        } catch (IOException | UnsupportedOperationException | SecurityException noProc) {
            return fallback.get();
        }
        return isTerminalDevice(target);
    }

    /**
     * Whether a device path is a terminal: a pseudo-terminal ({@code /dev/pts/N}, as terminal emulators,
     * ssh, tmux and {@code script} give), a virtual console or serial line ({@code /dev/ttyN}, {@code
     * /dev/ttyS0}), the controlling terminal or the system console. A pipe ({@code pipe:[N]}), a socket,
     * a file or {@code /dev/null} is not.
     */
    static boolean isTerminalDevice(String target) {
        return target.startsWith("/dev/pts/") || target.startsWith("/dev/tty") || target.equals("/dev/console");
    }

    /** Elsewhere the JDK's view: {@code Console.isTerminal()} from JDK 22, else whether there is a console. */
    private static Boolean consoleIsTerminal() {
        java.io.Console console = System.console();
        if (console == null) {
            return false;
        }
        try {
            Method isTerminal = java.io.Console.class.getMethod("isTerminal");
            return (Boolean) isTerminal.invoke(console);
        } catch (ReflectiveOperationException | RuntimeException beforeJdk22) {
            return true;
        }
    }
}
