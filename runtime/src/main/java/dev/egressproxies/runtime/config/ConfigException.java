package dev.egressproxies.runtime.config;

/**
 * A configuration that cannot be used: unreadable, malformed, or naming something that does not
 * exist. Its message names the file, the path in it and, where one is involved, the entry.
 */
public final class ConfigException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    /** Creates an exception whose message says what is wrong and where. */
    public ConfigException(String message) {
        super(message);
    }

    /** Creates an exception with the failure that led to it. */
    public ConfigException(String message, Throwable cause) {
        super(message, cause);
    }
}
