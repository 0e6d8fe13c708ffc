package dev.egressproxies.fake;

import dev.egressproxies.api.ErrorKind;
import java.time.Duration;

/**
 * The fault that a {@code fake} provider entry injects into one operation, as configured under
 * {@code faults.<operation>} of its settings.
 *
 * <p>A call of the operation first hangs (when {@code hang} is set), then waits {@code latency},
 * then fails with {@code kind} (when set and past the first {@code failAfter} calls). For example:
 * <pre>{@code
 * faults:
 *   create: {kind: TRANSIENT, failAfter: 2}   # the first 2 creates succeed, every later one fails
 *   get:    {latency: 200ms}                  # every get takes 200 ms longer
 *   delete: {hang: true}                      # every delete hangs until its deadline passes
 * }</pre>
 *
 * @param kind      the error every failing call throws, or {@code null} for none
 * @param latency   how long every call waits before doing its work; zero (the default) for none
 * @param hang      whether every call blocks until its deadline passes or its thread is interrupted;
 *                  false by default
 * @param failAfter how many calls succeed before every later one fails with {@code kind};
 *                  0 (the default) makes every call fail
 */
public record FaultConfig(ErrorKind kind, Duration latency, Boolean hang, Integer failAfter) {

    /** Applies defaults and rejects values that cannot work, saying what to write instead. */
    public FaultConfig {
        // Boxed, so the registry treats them as optional: absent means the default.
        latency = latency == null ? Duration.ZERO : latency;
        hang = hang != null && hang;
        failAfter = failAfter == null ? 0 : failAfter;
        if (latency.isNegative()) {
            throw new IllegalArgumentException("latency is negative (" + latency
                    + "): use zero or a positive duration, for example 500ms");
        }
        if (failAfter < 0) {
            throw new IllegalArgumentException("failAfter is negative (" + failAfter
                    + "): give the number of calls that succeed before the failures start, 0 or more");
        }
        if (failAfter > 0 && kind == null) {
            throw new IllegalArgumentException("failAfter is " + failAfter
                    + " but kind is not set: set kind to the error to throw after " + failAfter
                    + " successful calls (PERMANENT, TRANSIENT, QUOTA_EXCEEDED or NOT_FOUND)");
        }
    }

    /** A fault that makes every call fail with {@code kind}. */
    public static FaultConfig failing(ErrorKind kind) {
        return new FaultConfig(kind, Duration.ZERO, false, 0);
    }

    /** A fault that makes every call wait {@code latency} before doing its work. */
    public static FaultConfig slow(Duration latency) {
        return new FaultConfig(null, latency, false, 0);
    }

    /** A fault that makes every call hang until its deadline passes. */
    public static FaultConfig hanging() {
        return new FaultConfig(null, Duration.ZERO, true, 0);
    }
}
