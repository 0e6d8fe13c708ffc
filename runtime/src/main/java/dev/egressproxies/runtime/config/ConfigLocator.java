package dev.egressproxies.runtime.config;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.Optional;

/**
 * Finds the configuration file to use, in the documented search order: the {@code --config}
 * option, then {@code $EGRESS_CONFIG}, then {@code ./egress.yaml}, then
 * {@code ~/.config/egress/config.yaml} (or under {@code $XDG_CONFIG_HOME}). Empty when none
 * exists, which means the built-in default.
 */
public final class ConfigLocator {
    /** The environment variable that names a configuration file. */
    public static final String CONFIG_VARIABLE = "EGRESS_CONFIG";

    private final Map<String, String> environment;
    private final Path workingDirectory;
    private final Path userHome;

    /**
     * Creates a locator over an explicit environment, so tests need not change the process's.
     */
    public ConfigLocator(Map<String, String> environment, Path workingDirectory, Path userHome) {
        this.environment = Map.copyOf(environment);
        this.workingDirectory = workingDirectory;
        this.userHome = userHome;
    }

    /**
     * The file to load.
     *
     * @param explicit the {@code --config} option, or null
     * @throws ConfigException when an explicitly named file (option or variable) does not exist:
     *                         silently falling back would run against the wrong backends
     */
    public Optional<Path> locate(Path explicit) {
        if (explicit != null) {
            return Optional.of(requireExisting(explicit, "--config"));
        }
        String fromEnvironment = environment.get(CONFIG_VARIABLE);
        if (fromEnvironment != null && !fromEnvironment.isBlank()) {
            return Optional.of(requireExisting(Path.of(fromEnvironment), "$" + CONFIG_VARIABLE));
        }
        Path local = workingDirectory.resolve("egress.yaml");
        if (Files.isRegularFile(local)) {
            return Optional.of(local);
        }
        Path user = userConfigDirectory().resolve("egress").resolve("config.yaml");
        return Files.isRegularFile(user) ? Optional.of(user) : Optional.empty();
    }

    private Path userConfigDirectory() {
        // A relative $XDG_CONFIG_HOME is ignored, as the XDG base directory specification says.
        return StateDirectory.xdgDirectory(environment, "XDG_CONFIG_HOME").orElse(userHome.resolve(".config"));
    }

    private static Path requireExisting(Path path, String namedBy) {
        if (!Files.isRegularFile(path)) {
            throw new ConfigException("config file " + path + " (named by " + namedBy
                    + ") does not exist or is not a regular file: fix the path, or leave it unset to use"
                    + " ./egress.yaml, ~/.config/egress/config.yaml or the built-in default");
        }
        return path;
    }
}
