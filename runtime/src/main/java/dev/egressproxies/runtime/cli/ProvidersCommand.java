package dev.egressproxies.runtime.cli;

import dev.egressproxies.runtime.output.Table;
import dev.egressproxies.runtime.output.Printer;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.egressproxies.runtime.wiring.PluginSummary;
import dev.egressproxies.runtime.wiring.ProviderEntries;
import dev.egressproxies.runtime.wiring.Session;
import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.ParentCommand;

/** {@code egressctl providers}: the configured entries and the plugins found. */
@Command(name = "providers", mixinStandardHelpOptions = true, description = "Lists the configured provider entries and the plugins found.")
final class ProvidersCommand implements Callable<Integer> {
    @ParentCommand
    RootCommand root;

    @Override
    public Integer call() {
        Session session = root.session();
        ProviderEntries entries = session.entries();
        List<PluginSummary> plugins = session.plugins();
        Printer printer = session.printer();
        if (printer.json()) {
            ObjectNode document = printer.object().put("config", entries.source());
            ArrayNode entryArray = document.putArray("entries");
            for (ProviderEntries.EntrySummary entry : entries.entries()) {
                entryArray.addObject().put("name", entry.name()).put("type", entry.type())
                        .put("pluginVersion", entry.pluginVersion()).put("location", entry.location());
            }
            ArrayNode pluginArray = document.putArray("plugins");
            ArrayNode brokenArray = document.putArray("brokenPlugins");
            for (PluginSummary plugin : plugins) {
                if (plugin.loaded()) {
                    pluginArray.addObject().put("type", plugin.type()).put("version", plugin.version())
                            .put("location", plugin.location());
                } else {
                    brokenArray.addObject().put("location", plugin.location()).put("problem", plugin.problem());
                }
            }
            printer.print(document);
            return ExitCode.OK;
        }
        Table entryTable = new Table("ENTRY", "TYPE", "PLUGIN VERSION");
        entries.entries().forEach(entry -> entryTable.row(entry.name(), entry.type(), entry.pluginVersion()));
        printer.note("Entries from " + entries.source() + ":");
        printer.print(entryTable);
        printer.note("");
        printer.note("Plugins found:");
        Table pluginTable = new Table("TYPE", "VERSION", "LOCATION");
        plugins.stream().filter(PluginSummary::loaded)
                .forEach(plugin -> pluginTable.row(plugin.type(), plugin.version(), plugin.location()));
        printer.print(pluginTable);
        List<PluginSummary> broken = plugins.stream().filter(plugin -> !plugin.loaded()).toList();
        if (!broken.isEmpty()) {
            printer.note("");
            printer.note("Plugins that could not be loaded (their entries fail until fixed):");
            broken.forEach(plugin -> printer.note("  " + plugin.location() + ": " + plugin.problem()));
        }
        return ExitCode.OK;
    }
}
