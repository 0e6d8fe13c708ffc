package dev.egressproxies.runtime.wiring;

import dagger.Module;
import dagger.Provides;
import dev.egressproxies.runtime.config.ConfigLoader;
import dev.egressproxies.runtime.config.ConfigLocator;
import dev.egressproxies.runtime.config.Configuration;
import java.nio.file.Path;
import javax.inject.Named;
import javax.inject.Singleton;

/**
 * Provides the configuration: the file found in the search order, or the built-in default.
 */
@Module
public final class ConfigModule {
    private ConfigModule() {
    }

    @Provides
    @Singleton
    static Configuration configuration(Invocation invocation, @Named("stateDirectory") Path stateDirectory) {
        ConfigLocator locator = new ConfigLocator(invocation.environment(), invocation.workingDirectory(),
                invocation.userHome());
        return locator.locate(invocation.configOption())
                .map(file -> new ConfigLoader().load(file))
                .orElseGet(() -> ConfigLoader.builtInDefault(stateDirectory));
    }
}
