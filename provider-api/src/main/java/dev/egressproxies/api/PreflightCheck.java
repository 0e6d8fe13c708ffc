package dev.egressproxies.api;

import java.util.Objects;

/**
 * The outcome of one check that {@link Provider#preflight} made, for example "SSH to host-1".
 *
 * @param name    what was checked
 * @param passed  whether it passed
 * @param detail  what was found, and when it failed, what to fix
 * @param warning whether a passed check found something the operator should look at (such as
 *                volumes nothing uses any more), though nothing keeps the entry from working;
 *                never set on a failed check
 * @since 1.0.0
 */
public record PreflightCheck(String name, boolean passed, String detail, boolean warning) {
    /**
     * Requires a name; an absent detail becomes {@code ""}; a failed check is no warning.
     *
     * @since 1.0.0
     */
    public PreflightCheck {
        Objects.requireNonNull(name, "name");
        detail = Objects.requireNonNullElse(detail, "");
        warning = warning && passed;
    }

    /**
     * A check that passed or failed, without a warning.
     *
     * @since 1.0.0
     */
    public PreflightCheck(String name, boolean passed, String detail) {
        this(name, passed, detail, false);
    }

    /**
     * A passed check.
     *
     * @since 1.0.0
     */
    public static PreflightCheck passed(String name, String detail) {
        return new PreflightCheck(name, true, detail, false);
    }

    /**
     * A failed check.
     *
     * @since 1.0.0
     */
    public static PreflightCheck failed(String name, String detail) {
        return new PreflightCheck(name, false, detail, false);
    }

    /**
     * A passed check with a warning: {@code detail} says what to look at and what to do about it.
     *
     * @since 1.0.0
     */
    public static PreflightCheck warning(String name, String detail) {
        return new PreflightCheck(name, true, detail, true);
    }
}
