package dev.egressproxies.runtime.wiring;

import dagger.Module;
import dagger.Provides;
import javax.inject.Singleton;

/**
 * Sets up SLF4J logging: warnings only by default (errors only from the SSH library), so a
 * command's output stays readable, and debug with {@code -v}. Log lines go to standard error.
 */
@Module
public final class LoggingModule {
    private static final String SSH_LIBRARY = "org.slf4j.simpleLogger.log.org.apache.sshd";

    private LoggingModule() {
    }

    /** Proof that logging is set up; whatever logs during wiring depends on it. */
    public record LoggingReady(String level) {
    }

    @Provides
    @Singleton
    static LoggingReady logging(Invocation invocation) {
        boolean verbose = invocation.verbosity() > 0;
        String level = verbose ? "debug" : "warn";
        // slf4j-simple reads these once, when the first logger is made; nothing logs before the
        // component is built, so setting them here takes effect.
        System.setProperty("org.slf4j.simpleLogger.defaultLogLevel", level);
        switch (invocation.verbosity()) {
            // MINA warns of every session it drops (a refused host key, a lost link); the error of
            // the call says the same with the fix, so its warnings only show with -v.
            case 0 -> System.setProperty(SSH_LIBRARY, "error");
            // At debug MINA logs each SSH packet and window change: 200,000 lines for a 1 GiB upload.
            case 1 -> System.setProperty(SSH_LIBRARY, "info");
            default -> System.clearProperty(SSH_LIBRARY);
        }
        System.setProperty("org.slf4j.simpleLogger.logFile", "System.err");
        // With -v, milliseconds since logging began, so a slow step shows; without, lines read as messages.
        System.setProperty("org.slf4j.simpleLogger.showDateTime", Boolean.toString(verbose));
        System.setProperty("org.slf4j.simpleLogger.showThreadName", "false");
        System.setProperty("org.slf4j.simpleLogger.showShortLogName", "true");
        return new LoggingReady(level);
    }
}
