package dev.egressproxies.runtime.progress;

/** The {@code --progress} option: when long operations draw their progress on standard error. */
public enum ProgressMode {
    /** When standard error is a terminal and the output is a table (never with {@code -o json}). */
    AUTO,
    /** Also into a file or pipe (as in a CI log); still never with {@code -o json}. */
    ALWAYS,
    /** Never. */
    NEVER;

    /** Whether to draw, given whether standard error is a terminal. */
    public boolean draws(boolean standardErrorIsTerminal) {
        return switch (this) {
            case AUTO -> standardErrorIsTerminal;
            case ALWAYS -> true;
            case NEVER -> false;
        };
    }
}
