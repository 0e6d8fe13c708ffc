package dev.egressproxies.registry;

import java.util.List;

/**
 * The error that plugin discovery fails with: a plugin could not be loaded, or two plugins claim
 * the same type. Each problem names the plugins involved (factory class and location) and says
 * what to fix.
 */
public final class PluginDiscoveryException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    private final List<String> problems;

    /**
     * Creates the exception.
     *
     * @param problems one line per problem, each saying which plugin and what to fix
     * @param cause    the first underlying failure, or {@code null}
     */
    public PluginDiscoveryException(List<String> problems, Throwable cause) {
        super(ProblemList.format("provider plugins could not be loaded", problems), cause);
        this.problems = List.copyOf(problems);
    }

    /** The problems found, one line each. */
    public List<String> problems() {
        return problems;
    }
}
