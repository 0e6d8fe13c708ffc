package dev.egressproxies.api;

import java.util.Objects;

/**
 * The outcome of one check that {@link Provider#preflight} made, for example "SSH to host-1".
 *
 * @param name   what was checked
 * @param passed whether it passed
 * @param detail what was found, and when it failed, what to fix
 */
public record PreflightCheck(String name, boolean passed, String detail) {
    /** Requires a name; an absent detail becomes {@code ""}. */
    public PreflightCheck {
        Objects.requireNonNull(name, "name");
        detail = Objects.requireNonNullElse(detail, "");
    }

    /** A passed check. */
    public static PreflightCheck passed(String name, String detail) {
        return new PreflightCheck(name, true, detail);
    }

    /** A failed check. */
    public static PreflightCheck failed(String name, String detail) {
        return new PreflightCheck(name, false, detail);
    }
}
