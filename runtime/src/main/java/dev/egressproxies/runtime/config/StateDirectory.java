package dev.egressproxies.runtime.config;

import java.nio.file.Path;
import java.util.Map;
import java.util.Optional;

/**
 * The user's state directory for egress-proxies: {@code $XDG_STATE_HOME/egress}, else
 * {@code ~/.local/state/egress}, as the XDG base directory specification places state that
 * should survive restarts but is not configuration. Nothing here creates it: a read-only command
 * leaves no directory behind.
 */
public final class StateDirectory {
    private StateDirectory() {
    }

    /**
     * Resolves the directory; it is created by whoever first writes there. A relative
     * {@code $XDG_STATE_HOME} is ignored, as the specification says, rather than resolved against
     * whatever directory the tool happens to run in.
     */
    public static Path resolve(Map<String, String> environment, Path userHome) {
        return xdgDirectory(environment, "XDG_STATE_HOME").orElse(userHome.resolve(".local").resolve("state"))
                .resolve("egress");
    }

    /** The directory an XDG variable names, when it is set to an absolute path. */
    static Optional<Path> xdgDirectory(Map<String, String> environment, String variable) {
        String value = environment.get(variable);
        if (value == null || value.isBlank()) {
            return Optional.empty();
        }
        Path path = Path.of(value);
        return path.isAbsolute() ? Optional.of(path) : Optional.empty();
    }
}
