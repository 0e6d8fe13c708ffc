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
    private LoggingModule() {
    }

    /** Proof that logging is set up; whatever logs during wiring depends on it. */
    public record LoggingReady(String level) {
    }

    @Provides
    @Singleton
    static LoggingReady logging(Invocation invocation) {
        String level = invocation.verbose() ? "debug" : "warn";
        // slf4j-simple reads these once, when the first logger is made; nothing logs before the
        // component is built, so setting them here takes effect.
        System.setProperty("org.slf4j.simpleLogger.defaultLogLevel", level);
        if (!invocation.verbose()) {
            // MINA warns of every session it drops (a refused host key, a lost link); the error of
            // the call says the same with the fix, so its warnings only show with -v.
            System.setProperty("org.slf4j.simpleLogger.log.org.apache.sshd", "error");
        }
        System.setProperty("org.slf4j.simpleLogger.logFile", "System.err");
        System.setProperty("org.slf4j.simpleLogger.showDateTime", "false");
        System.setProperty("org.slf4j.simpleLogger.showThreadName", "false");
        System.setProperty("org.slf4j.simpleLogger.showShortLogName", "true");
        return new LoggingReady(level);
    }
}
