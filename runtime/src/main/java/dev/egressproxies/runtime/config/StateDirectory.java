package dev.egressproxies.runtime.config;

import java.nio.file.Path;
import java.util.Map;

/**
 * The user's state directory for egress-proxies: {@code $XDG_STATE_HOME/egress}, else
 * {@code ~/.local/state/egress}, as the XDG base directory specification places state that
 * should survive restarts but is not configuration.
 */
public final class StateDirectory {
    private StateDirectory() {
    }

    /** Resolves the directory; it is created by whoever first writes there. */
    public static Path resolve(Map<String, String> environment, Path userHome) {
        String xdg = environment.get("XDG_STATE_HOME");
        Path base = xdg != null && !xdg.isBlank() ? Path.of(xdg) : userHome.resolve(".local").resolve("state");
        return base.resolve("egress");
    }
}
