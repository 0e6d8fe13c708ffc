package dev.egressproxies.runtime;

import dev.egressproxies.runtime.cli.Egressctl;
import dev.egressproxies.runtime.cli.RootCommand;
import dev.egressproxies.runtime.progress.StandardError;
import dev.egressproxies.runtime.wiring.DaggerEgressctlComponent;
import java.nio.file.Path;

/**
 * The {@code egressctl} program: runs one command line against the real environment and exits
 * with its exit code.
 */
public final class Main {
    private Main() {
    }

    /** The home directory: $HOME as the shell sees it, else the account's, which Java reports. */
    private static Path userHome() {
        String home = System.getenv("HOME");
        return home != null && !home.isBlank() ? Path.of(home) : Path.of(System.getProperty("user.home"));
    }

    /** Runs the command line. */
    public static void main(String[] arguments) {
        RootCommand.Surroundings surroundings = new RootCommand.Surroundings(System.getenv(),
                Path.of("").toAbsolutePath(), userHome(), System.out, System.err, StandardError.isTerminal());
        Thread worker = Thread.currentThread();
        // Ctrl-C interrupts the command, so a provider call returns promptly and cleans up
        // instead of dying midway.
        Thread interrupter = new Thread(() -> {
            worker.interrupt();
            try {
                worker.join(3000);
            } catch (InterruptedException ignored) {
                Thread.currentThread().interrupt();
            }
        }, "egressctl-interrupt");
        Runtime.getRuntime().addShutdownHook(interrupter);
        int exitCode = new Egressctl(surroundings,
                invocation -> DaggerEgressctlComponent.factory().create(invocation).session()).run(arguments);
        try {
            Runtime.getRuntime().removeShutdownHook(interrupter);
        } catch (IllegalStateException shuttingDown) {
            // Ctrl-C: the JVM is already exiting; System.exit would block until it has.
            return;
        }
        System.exit(exitCode);
    }
}
