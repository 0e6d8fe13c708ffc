package dev.egressproxies.kvm.common.image;

import dev.egressproxies.api.ErrorKind;
import java.util.Objects;

/**
 * A failed image fetch or size probe, with the {@link ErrorKind kind} that says whether a retry can
 * help and the {@link Reason reason} behind it.
 */
public final class ImageFetchException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    /** Why a fetch failed, for callers that act differently on each (tracing, deadline handling). */
    public enum Reason {
        /** The server could not be reached, or the connection failed before the response began. */
        UNREACHABLE,
        /** The server answered with a status or headers that make the response unusable. */
        UNUSABLE_RESPONSE,
        /** The body broke off, was shorter than announced, or longer. */
        BODY_BROKEN,
        /** The published bytes arrived but are not what the source declares (bad compression, no such member). */
        CONTENT_INVALID,
        /** The published bytes' sha256 is not the pinned one. */
        DIGEST_MISMATCH,
        /** The server sent nothing (no response headers, or no byte of the body) for the idle limit. */
        STALLED,
        /** The body did not end within the transfer budget. */
        TRANSFER_BUDGET,
        /** The caller's deadline passed. */
        DEADLINE,
        /** The calling thread was interrupted; its interrupt flag is set again. */
        INTERRUPTED
    }

    private final ErrorKind kind;
    private final Reason reason;

    ImageFetchException(ErrorKind kind, Reason reason, String message, Throwable cause) {
        super(message, cause);
        this.kind = Objects.requireNonNull(kind, "kind");
        this.reason = Objects.requireNonNull(reason, "reason");
    }

    /** Whether and when a retry can help. */
    public ErrorKind kind() {
        return kind;
    }

    /** Why the fetch failed. */
    public Reason reason() {
        return reason;
    }
}
