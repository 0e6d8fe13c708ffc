/**
 * The plugin registry: discovery of provider plugins, binding of configured entries to their
 * configuration records, and the immutable set of built providers.
 *
 * <h2>Using it</h2>
 * <pre>{@code
 * PluginCatalog catalog = PluginCatalog.discover();          // boot layer + context class loader
 * try (ProviderRegistry registry = ProviderRegistry.build(catalog, config.get("providers"), context)) {
 *     Provider provider = registry.require("kvm-a").provider();
 * }
 * }</pre>
 *
 * <h2>Configured entries</h2>
 * Each entry is a JSON/YAML object {@code {name, type, ...settings}}: {@code name} is the entry's
 * unique name, {@code type} selects the plugin ({@link dev.egressproxies.api.spi.ProviderFactory#type()}),
 * and every other field is a setting, bound to the plugin's
 * {@link dev.egressproxies.api.spi.ProviderFactory#configType() configuration record} (which
 * therefore cannot have settings called {@code name} or {@code type}):
 * <pre>
 * providers:
 *   - name: kvm-a
 *     type: kvm
 *     hosts: [{name: host-1, address: 10.0.0.5, user: root}]
 * </pre>
 *
 * <h2>Binding rules</h2>
 * <ul>
 *   <li>Records bind through their canonical constructor. The record's package must be open to
 *       reflection: declare {@code opens your.config.package;} in the plugin's module-info.</li>
 *   <li>Unknown fields, at any depth, are errors naming their path, for example
 *       {@code providers[1].hosts[0].adress: unknown field (known: address, name, user)}. They are
 *       checked before the record is constructed, so a typo is reported as itself, not as the
 *       absence of the field it misspells.</li>
 *   <li>Values must have the declared type: a string is not a number, a number is not a
 *       boolean, an object is not a list. Numbers and booleans are accepted where a string is
 *       expected, because YAML users write {@code zone: 1} unquoted.</li>
 *   <li>Required or optional: a primitive component ({@code int}, {@code boolean}, ...) cannot
 *       say "not set", so it is required; absent or {@code null}, it is an error. Any other
 *       component is optional to the registry: absent or {@code null}, it binds to {@code null},
 *       or to an empty list, set or map for {@code List}, {@code Set}, {@code Collection} and
 *       {@code Map} components. The record's compact constructor applies defaults and rejects
 *       what is missing or wrong by throwing {@link java.lang.IllegalArgumentException}; the
 *       registry reports its message with the entry and path. A message that starts with a
 *       component name and a colon ({@code "hosts: at least one host is required"}) is reported
 *       at that component's path ({@code providers[0].hosts}). So: use {@code Integer} or
 *       {@code Boolean} for an optional number or flag with a default.</li>
 *   <li>{@link java.time.Duration} binds from strings such as {@code 500ms}, {@code 2s},
 *       {@code 5m}, {@code 1h}, {@code 1h30m}, {@code 2d} or ISO-8601 {@code PT2S}
 *       (see {@link dev.egressproxies.registry.DurationFormat}); {@link java.nio.file.Path} binds
 *       from a string.</li>
 * </ul>
 */
package dev.egressproxies.registry;
