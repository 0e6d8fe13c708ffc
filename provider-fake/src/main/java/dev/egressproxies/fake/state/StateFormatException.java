package dev.egressproxies.fake.state;

/**
 * Thrown when a state file's content is not a state this build can read; the message says what
 * is wrong with it.
 */
final class StateFormatException extends Exception {
    private static final long serialVersionUID = 1L;

    StateFormatException(String message, Throwable cause) {
        super(message, cause);
    }

    StateFormatException(String message) {
        super(message);
    }
}
