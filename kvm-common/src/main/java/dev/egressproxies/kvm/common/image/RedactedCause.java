package dev.egressproxies.kvm.common.image;

/**
 * A copy of a foreign exception (from the HTTP client, a decoder, the consumer) that keeps its
 * class name, message and stack trace but blanks the image URL's secrets out of the message, and
 * does the same for its causes; what an {@link ImageFetchException} carries as its cause, so a
 * logged stack trace cannot show what its message hides.
 */
final class RedactedCause extends Exception {
    private static final long serialVersionUID = 1L;
    /** Deep enough for any real chain, and a guard against cyclic ones. */
    private static final int DEEPEST_CAUSE = 8;

    private RedactedCause(String message, RedactedCause cause) {
        // Suppression off: a copy carries nothing but the original's own chain.
        super(message, cause, false, true);
    }

    /** The redacted copy of {@code original}, or null for null. */
    static RedactedCause of(Throwable original, UrlSecrets secrets) {
        return copy(original, secrets, 0);
    }

    private static RedactedCause copy(Throwable original, UrlSecrets secrets, int depth) {
        if (original == null || depth >= DEEPEST_CAUSE) {
            return null;
        }
        if (original instanceof RedactedCause already) {
            return already;
        }
        String message = original.getMessage() == null ? "" : ": " + secrets.scrub(original.getMessage());
        RedactedCause cause = copy(original.getCause(), secrets, depth + 1);
        RedactedCause copy = new RedactedCause(original.getClass().getName() + message, cause);
        copy.setStackTrace(original.getStackTrace());
        return copy;
    }

    /** The text a message may quote: the original's simple class name and its scrubbed message. */
    static String describe(Throwable original, UrlSecrets secrets) {
        String message = original.getMessage();
        String simpleName = original.getClass().getSimpleName();
        return message == null || message.isBlank() ? simpleName : simpleName + ": " + secrets.scrub(message);
    }
}
