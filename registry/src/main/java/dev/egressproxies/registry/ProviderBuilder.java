package dev.egressproxies.registry;

import dev.egressproxies.api.Provider;
import dev.egressproxies.api.ProviderException;
import dev.egressproxies.api.spi.ProviderContext;
import dev.egressproxies.api.spi.ProviderFactory;
import java.util.ArrayList;
import java.util.List;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The all-or-nothing builder of the providers of bound entries: when one entry fails, the
 * providers already built are closed before the error is thrown, so a bad configuration never
 * leaves connections or threads behind.
 */
final class ProviderBuilder {
    private static final Logger LOG = LoggerFactory.getLogger(ProviderBuilder.class);

    /** An entry whose settings were bound to its plugin's configuration record. */
    record BoundEntry(ConfiguredEntry entry, Object config) {
    }

    private ProviderBuilder() {
    }

    /**
     * Builds every entry's provider, in configuration order.
     *
     * @throws ConfigurationException naming the entry that failed; nothing built stays open
     */
    static List<ProviderEntry> buildAll(List<BoundEntry> entries, ProviderContext context) {
        List<ProviderEntry> built = new ArrayList<>();
        for (BoundEntry bound : entries) {
            ConfiguredEntry entry = bound.entry();
            Provider provider;
            try {
                provider = create(entry.plugin().factory(), entry.name(), bound.config(), context);
            } catch (VirtualMachineError fatal) {
                closeAll(built, fatal);
                throw fatal;
            } catch (Throwable failure) {
                throw failed(entry, built, failure, reason(failure));
            }
            if (provider == null) {
                throw failed(entry, built, null, "plugin " + entry.plugin().source()
                        + " returned no provider (a bug in the plugin)");
            }
            Plugin plugin = entry.plugin();
            built.add(new ProviderEntry(entry.name(), plugin.type(), plugin.version(), plugin.location(), provider));
            LOG.info("Built provider entry '{}' (type {}, plugin version {})", entry.name(), plugin.type(), plugin.version());
        }
        return built;
    }

    /**
     * Builds every entry's provider, in configuration order, each on its own: an entry whose
     * plugin fails to build it is kept as an {@link UnavailableProvider} that fails every call
     * with the reason, and the other entries are built as usual.
     */
    static List<ProviderEntry> buildEach(List<BoundEntry> entries, ProviderContext context) {
        List<ProviderEntry> built = new ArrayList<>();
        for (BoundEntry bound : entries) {
            ConfiguredEntry entry = bound.entry();
            Plugin plugin = entry.plugin();
            Provider provider;
            try {
                provider = create(plugin.factory(), entry.name(), bound.config(), context);
                if (provider == null) {
                    provider = new UnavailableProvider(entry.name(), null, "plugin " + plugin.source()
                            + " returned no provider (a bug in the plugin)");
                }
            } catch (VirtualMachineError fatal) {
                closeAll(built, fatal);
                throw fatal;
            } catch (Throwable failure) {
                LOG.warn("Provider entry '{}' (type {}) could not be built: {}", entry.name(), plugin.type(),
                        reason(failure));
                provider = new UnavailableProvider(entry.name(), failure, reason(failure));
            }
            built.add(new ProviderEntry(entry.name(), plugin.type(), plugin.version(), plugin.location(), provider));
        }
        return built;
    }

    /** Closes providers in reverse build order, recording failures on {@code failure}. */
    static void closeAll(List<ProviderEntry> entries, Throwable failure) {
        for (int index = entries.size() - 1; index >= 0; index--) {
            ProviderEntry entry = entries.get(index);
            try {
                entry.provider().close();
            } catch (RuntimeException closeFailure) {
                LOG.warn("Closing provider entry '{}' failed", entry.name(), closeFailure);
                if (failure != null) {
                    failure.addSuppressed(closeFailure);
                }
            }
        }
    }

    // The config is the instance the binder made from factory.configType(), so the cast holds.
    private static <C> Provider create(ProviderFactory<C> factory, String name, Object config, ProviderContext context) {
        return factory.create(name, factory.configType().cast(config), context);
    }

    private static ConfigurationException failed(ConfiguredEntry entry, List<ProviderEntry> built,
                                                 Throwable cause, String reason) {
        String closed = built.isEmpty() ? "" : " (closed the " + built.size() + " entries built before it)";
        ProblemList problems = new ProblemList();
        problems.add(entry, entry.path(), "could not be built: " + reason + closed);
        ConfigurationException error = new ConfigurationException(problems.asList(), cause);
        closeAll(built, error);
        return error;
    }

    // A plugin's ProviderException already carries the entry and operation in its message
    // prefix; the detail alone reads better after the entry's own description.
    private static String reason(Throwable failure) {
        if (failure instanceof ProviderException providerFailure) {
            return providerFailure.detail();
        }
        if (failure instanceof IllegalArgumentException && failure.getMessage() != null) {
            return failure.getMessage();
        }
        return failure.toString();
    }
}
