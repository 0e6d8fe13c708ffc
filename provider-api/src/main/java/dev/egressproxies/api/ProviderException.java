package dev.egressproxies.api;

import java.util.Objects;

/**
 * The one exception type of the provider contract: a failure with a {@link ErrorKind kind} that
 * says whether to retry, and the context needed to act on it (operation, provider entry and
 * instance ID).
 *
 * <p>The {@linkplain #detail() detail} says what went wrong and, where the caller can fix it,
 * what to do. {@link #getMessage()} prefixes it with the context, so a log line or a CLI error
 * can be printed as is.
 *
 * @since 1.0.0
 */
public final class ProviderException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    private final ErrorKind kind;
    private final Operation operation;
    private final String entry;
    private final String instanceId;
    private final String detail;

    /**
     * Creates an exception.
     *
     * @param kind       whether and when a retry can help
     * @param operation  the call that failed
     * @param entry      the provider entry's configured name
     * @param instanceId the instance the call was about: the ID for get and delete; for create the
     *                   ID, or the requested name while the ID is not known yet, so the error always
     *                   names the instance (the conformance suite checks that); {@code ""} for
     *                   listManaged, which is about no one instance
     * @param detail     what went wrong and what to do about it
     * @param cause      the underlying failure, or {@code null}
     * @since 1.0.0
     */
    public ProviderException(ErrorKind kind, Operation operation, String entry, String instanceId,
                             String detail, Throwable cause) {
        super(format(operation, entry, instanceId, detail), cause);
        this.kind = Objects.requireNonNull(kind, "kind");
        this.operation = Objects.requireNonNull(operation, "operation");
        this.entry = Objects.requireNonNullElse(entry, "");
        this.instanceId = Objects.requireNonNullElse(instanceId, "");
        this.detail = Objects.requireNonNull(detail, "detail");
    }

    /**
     * Creates an exception without an underlying cause.
     *
     * @since 1.0.0
     */
    public ProviderException(ErrorKind kind, Operation operation, String entry, String instanceId, String detail) {
        this(kind, operation, entry, instanceId, detail, null);
    }

    /**
     * The TRANSIENT error a call returns when its {@link Deadline} passed before it finished.
     *
     * @since 1.0.0
     */
    public static ProviderException deadlineExceeded(Operation operation, String entry, String instanceId) {
        return new ProviderException(ErrorKind.TRANSIENT, operation, entry, instanceId,
                "deadline exceeded before the backend answered; retry with a longer deadline if this repeats");
    }

    /**
     * The TRANSIENT error a call returns when its thread was interrupted. The caller must restore
     * the thread's interrupt flag (this method does so) so the interruption is not lost.
     *
     * @since 1.0.0
     */
    public static ProviderException interrupted(Operation operation, String entry, String instanceId,
                                                InterruptedException cause) {
        Thread.currentThread().interrupt();
        return new ProviderException(ErrorKind.TRANSIENT, operation, entry, instanceId,
                "interrupted before the backend answered", cause);
    }

    /**
     * Whether and when a retry can help.
     *
     * @since 1.0.0
     */
    public ErrorKind kind() {
        return kind;
    }

    /**
     * The call that failed.
     *
     * @since 1.0.0
     */
    public Operation operation() {
        return operation;
    }

    /**
     * The configured name of the provider entry the call went to.
     *
     * @since 1.0.0
     */
    public String entry() {
        return entry;
    }

    /**
     * The instance the call was about (for create possibly only its name), or {@code ""} for listManaged.
     *
     * @since 1.0.0
     */
    public String instanceId() {
        return instanceId;
    }

    /**
     * What went wrong and what to do, without the context prefix of {@link #getMessage()}.
     *
     * @since 1.0.0
     */
    public String detail() {
        return detail;
    }

    private static String format(Operation operation, String entry, String instanceId, String detail) {
        StringBuilder message = new StringBuilder();
        message.append(operation).append(" on provider entry '").append(entry).append('\'');
        if (instanceId != null && !instanceId.isEmpty()) {
            message.append(" for instance '").append(instanceId).append('\'');
        }
        return message.append(": ").append(detail).toString();
    }
}
