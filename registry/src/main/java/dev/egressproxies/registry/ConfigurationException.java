package dev.egressproxies.registry;

import java.util.List;

/**
 * The error that building a {@link ProviderRegistry} fails with when the configured provider
 * entries are wrong or one of them cannot be built. It lists every problem found, each naming the
 * entry and the path of the offending field; no provider is left running when it is thrown.
 */
public final class ConfigurationException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    private final List<String> problems;

    /**
     * Creates the exception.
     *
     * @param problems one line per problem, each naming the entry and path and saying what to fix
     * @param cause    the underlying failure (for example a plugin's exception), or {@code null}
     */
    public ConfigurationException(List<String> problems, Throwable cause) {
        super(ProblemList.format("the provider configuration is invalid; no provider was started", problems), cause);
        this.problems = List.copyOf(problems);
    }

    /** Creates the exception without an underlying cause. */
    public ConfigurationException(List<String> problems) {
        this(problems, null);
    }

    /** The problems found, one line each, in configuration order. */
    public List<String> problems() {
        return problems;
    }
}
