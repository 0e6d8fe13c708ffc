package dev.egressproxies.kvm.common.image;

import java.time.Duration;
import java.util.Objects;

/**
 * The time one image transfer may take, end to end, and how much of it is kept for the upload to
 * finish or abort after the HTTP body ends.
 *
 * <p>The body must end {@code uploadGrace} before the {@code transfer} budget is over: a mirror
 * that stalls mid-image then ends the upload through its reader (a clean, reported failure),
 * rather than through whatever the budget's end does to the connection the upload runs on.
 *
 * @param transfer    the whole transfer's time limit
 * @param uploadGrace the part of it reserved after the body's end; shorter than {@code transfer}
 */
public record TransferBudget(Duration transfer, Duration uploadGrace) {
    /** The most {@link #of} reserves for the upload's end: libvirt finishes a stream in well under that. */
    private static final Duration LONGEST_DEFAULT_GRACE = Duration.ofSeconds(30);
    /** What {@link #none()} allows: as long as an unbounded {@link dev.egressproxies.api.Deadline} lasts. */
    private static final Duration YEAR = Duration.ofDays(365);

    /** Checks that the grace is shorter than the budget. */
    public TransferBudget {
        Objects.requireNonNull(transfer, "transfer");
        Objects.requireNonNull(uploadGrace, "uploadGrace");
        if (uploadGrace.isNegative() || uploadGrace.compareTo(transfer) >= 0) {
            throw new IllegalArgumentException("the upload grace of " + DurationText.of(uploadGrace)
                    + " must be at least zero and shorter than the transfer budget of " + DurationText.of(transfer));
        }
    }

    /** A budget of {@code transfer} that keeps a tenth of it, at most 30 seconds, for the upload's end. */
    public static TransferBudget of(Duration transfer) {
        Duration tenth = transfer.dividedBy(10);
        return new TransferBudget(transfer, tenth.compareTo(LONGEST_DEFAULT_GRACE) > 0 ? LONGEST_DEFAULT_GRACE : tenth);
    }

    /**
     * No budget of its own: only the caller's deadline limits the transfer (and an unbounded one,
     * like {@link dev.egressproxies.api.Deadline#none()}, a year); for a backend that has no
     * transfer budget setting.
     */
    public static TransferBudget none() {
        return new TransferBudget(YEAR, Duration.ZERO);
    }

    /** How long the HTTP body may take: the budget less the grace. */
    public Duration bodyLimit() {
        return transfer.minus(uploadGrace);
    }
}
