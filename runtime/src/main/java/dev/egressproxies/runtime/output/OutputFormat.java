package dev.egressproxies.runtime.output;

/**
 * How a command prints its result: a table for people, or JSON for scripts.
 */
public enum OutputFormat {
    /** Aligned columns with a header row. */
    TABLE,
    /** One JSON document on standard output; nothing else there. */
    JSON
}
