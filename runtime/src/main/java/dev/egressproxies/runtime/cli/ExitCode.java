package dev.egressproxies.runtime.cli;

import dev.egressproxies.api.ErrorKind;

/**
 * The process exit codes of {@code egressctl}, so scripts can tell what kind of failure happened.
 */
public final class ExitCode {
    /** Success. */
    public static final int OK = 0;
    /** Anything not covered below. */
    public static final int FAILURE = 1;
    /** A usage error, a configuration error, or a request the backend calls permanently wrong. */
    public static final int USAGE_OR_CONFIG = 2;
    /** The instance does not exist. */
    public static final int NOT_FOUND = 3;
    /** A transient failure: retrying may succeed. */
    public static final int TRANSIENT = 4;
    /** The backend lacks capacity: retry later. */
    public static final int QUOTA_EXCEEDED = 5;
    /** Interrupted by Ctrl-C (SIGINT): 128 + 2, as shells report a process that SIGINT ended. */
    public static final int INTERRUPTED = 130;

    private ExitCode() {
    }

    /** The exit code for a provider error of this kind. */
    public static int of(ErrorKind kind) {
        return switch (kind) {
            case PERMANENT -> USAGE_OR_CONFIG;
            case NOT_FOUND -> NOT_FOUND;
            case TRANSIENT -> TRANSIENT;
            case QUOTA_EXCEEDED -> QUOTA_EXCEEDED;
        };
    }
}
