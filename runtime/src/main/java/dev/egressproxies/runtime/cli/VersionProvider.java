package dev.egressproxies.runtime.cli;

import dev.egressproxies.runtime.wiring.PluginSummary;
import java.util.ArrayList;
import java.util.List;
import picocli.CommandLine.IVersionProvider;

/** Prints egressctl's version and the plugin types found, for {@code egressctl --version}. */
final class VersionProvider implements IVersionProvider {
    private final RootCommand root;

    VersionProvider(RootCommand root) {
        this.root = root;
    }

    @Override
    public String[] getVersion() {
        List<String> lines = new ArrayList<>();
        lines.add("egressctl " + version());
        List<PluginSummary> plugins = root.session().plugins();
        if (plugins.isEmpty()) {
            lines.add("plugins: none found");
        }
        for (PluginSummary plugin : plugins) {
            lines.add(plugin.loaded() ? "plugin " + plugin.type() + " " + plugin.version() + " (" + plugin.location() + ")"
                    : "plugin " + plugin.location() + ": could not be loaded, see 'egressctl providers'");
        }
        return lines.toArray(String[]::new);
    }

    private static String version() {
        Module module = VersionProvider.class.getModule();
        if (module.getDescriptor() != null && module.getDescriptor().rawVersion().isPresent()) {
            return module.getDescriptor().rawVersion().get();
        }
        String fromManifest = VersionProvider.class.getPackage().getImplementationVersion();
        return fromManifest != null ? fromManifest : "development build";
    }
}
