package dev.egressproxies.kvm.common.image;

import dev.egressproxies.api.Deadline;
import dev.egressproxies.kvm.common.image.ImageFetchException.Reason;
import java.time.Duration;

/**
 * The time limits of one request: the caller's deadline and, for a fetch, the end of the body's
 * share of the {@link TransferBudget}; knows which of the two comes first, so running out of time
 * is reported as the one that did. Also the idle limit: how long the server may stay silent, for
 * the response headers and between the body's bytes, never longer than the time left.
 */
final class TransferClock {
    private final Deadline caller;
    private final Deadline bodyEnd;
    private final TransferBudget budget;
    private final Duration idleLimit;
    private final boolean callerFirst;

    private TransferClock(Deadline caller, Deadline bodyEnd, TransferBudget budget, Duration idleLimit) {
        this.caller = caller;
        this.bodyEnd = bodyEnd;
        this.budget = budget;
        this.idleLimit = idleLimit;
        this.callerFirst = budget == null || caller.isBounded() && caller.remaining().compareTo(bodyEnd.remaining()) <= 0;
    }

    /**
     * The clock of a fetch starting now: the body must end within {@code budget}'s body limit, and
     * the server may stay silent for {@code idleLimit} at most.
     */
    static TransferClock forTransfer(Deadline caller, TransferBudget budget, Duration idleLimit) {
        return new TransferClock(caller, Deadline.after(budget.bodyLimit()), budget, idleLimit);
    }

    /**
     * The clock of a size probe: the caller's deadline, which includes the caller's per-call budget,
     * and the idle limit for each answer's headers.
     */
    static TransferClock forProbe(Deadline caller, Duration idleLimit) {
        return new TransferClock(caller, Deadline.none(), null, idleLimit);
    }

    /** How long the server may stay silent. */
    Duration idleLimit() {
        return idleLimit;
    }

    /**
     * How long to wait for response headers: the idle limit, or the time left when that is
     * shorter; {@link #idleBinds} tells afterwards which of the two it was.
     */
    Duration headerWait() {
        Duration left = remaining();
        return idleLimit.compareTo(left) < 0 ? idleLimit : left;
    }

    /** Whether a wait of {@code waited} (a {@link #headerWait()}) ended by the idle limit rather than the time left. */
    boolean idleBinds(Duration waited) {
        return waited.equals(idleLimit) && !isExpired();
    }

    /** The time left until the earlier limit; zero once it passed. */
    Duration remaining() {
        Duration callerLeft = caller.remaining();
        Duration bodyLeft = bodyEnd.remaining();
        return callerLeft.compareTo(bodyLeft) <= 0 ? callerLeft : bodyLeft;
    }

    /** Whether the earlier limit has passed. */
    boolean isExpired() {
        return remaining().isZero();
    }

    /**
     * Throws when the fetch must not start: the thread is interrupted or the time is up.
     *
     * @throws ImageFetchException {@link Reason#INTERRUPTED}, {@link Reason#DEADLINE} or
     *                             {@link Reason#TRANSFER_BUDGET}
     */
    void checkStart(FetchFailures failures) {
        if (Thread.currentThread().isInterrupted()) {
            throw failures.interrupted("interrupted before the image was requested from " + failures.url(), null);
        }
        if (isExpired()) {
            throw timeUp(failures, "before the image was requested", null);
        }
    }

    /**
     * The failure for running out of time; {@code when} says how far the fetch got, such as
     * "after 10 of 20 bytes arrived".
     */
    ImageFetchException timeUp(FetchFailures failures, String when, Throwable cause) {
        if (callerFirst) {
            return failures.transientFailure(Reason.DEADLINE, "the caller's deadline passed " + when + " from "
                    + failures.url() + "; retry with a longer deadline if this repeats", cause);
        }
        return failures.transientFailure(Reason.TRANSFER_BUDGET, "the download from " + failures.url()
                + " did not finish within the transfer budget of " + DurationText.of(budget.transfer())
                + " (the body must end " + DurationText.of(budget.uploadGrace()) + " before it): it stopped " + when
                + "; retry, and if it repeats, raise the transfer budget or use a faster mirror", cause);
    }

    /**
     * The failure of a server that stayed silent for the idle limit; {@code when} says what it
     * left unanswered and how far the fetch got, such as "after 10 of 20 bytes of the image
     * arrived".
     */
    ImageFetchException stalled(FetchFailures failures, String when, Throwable cause) {
        return failures.transientFailure(Reason.STALLED, "the image server " + failures.url() + " sent nothing for "
                + DurationText.of(idleLimit) + " (imageIdleTimeout) " + when + "; retry, and if it repeats, check"
                + " the server or use another mirror (or raise imageIdleTimeout for a server that pauses that long)",
                cause);
    }
}
