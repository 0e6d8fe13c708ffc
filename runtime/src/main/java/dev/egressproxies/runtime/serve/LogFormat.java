package dev.egressproxies.runtime.serve;

/** The formats of {@code serve --log-format}. */
public enum LogFormat {
    /** Readable lines. */
    TEXT,
    /** One JSON object per line, for log shippers. */
    JSON
}
