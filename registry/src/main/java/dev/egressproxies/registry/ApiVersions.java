package dev.egressproxies.registry;

import dev.egressproxies.api.spi.ProviderFactory;
import java.io.IOException;
import java.io.InputStream;
import java.lang.module.ModuleDescriptor;
import java.lang.module.ModuleReader;
import java.lang.module.ModuleReference;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;
import java.util.jar.Manifest;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The check that a plugin was built against a provider API this platform can run: the same major
 * version, at this platform's minor version or an earlier one (a later minor version may call what
 * this platform lacks). The version a plugin was built against is the one {@code javac} recorded in
 * its module descriptor for {@code requires dev.egressproxies.api}, or, for a plain jar, its
 * manifest's {@value #MANIFEST_ATTRIBUTE} attribute; a plugin that records none is loaded as before.
 * A plugin built before the API had a version of its own (0.x) is taken as built against 1.0.0, which
 * it is binary compatible with.
 */
final class ApiVersions {
    /** The manifest attribute by which a plain plugin jar names the provider API it was built against. */
    static final String MANIFEST_ATTRIBUTE = "Egressproxies-Provider-Api-Version";
    private static final String API_MODULE = "dev.egressproxies.api";
    private static final Pattern MAJOR_MINOR = Pattern.compile("(\\d+)(?:\\.(\\d+))?.*");

    private ApiVersions() {
    }

    /** The provider API version of this platform, or empty when it cannot be told (classes outside a jar). */
    static Optional<String> platform() {
        Module api = ProviderFactory.class.getModule();
        Optional<String> version = api.getDescriptor() == null ? Optional.empty() : api.getDescriptor().rawVersion();
        return version.or(() -> Optional.ofNullable(ProviderFactory.class.getPackage().getImplementationVersion()));
    }

    /**
     * Refuses the plugin whose modules were built against an incompatible provider API.
     *
     * @throws PluginFolders.BrokenPluginException naming both versions and what to install
     */
    static void requireCompatible(Set<ModuleReference> modules) {
        Optional<String> platform = platform();
        if (platform.isEmpty()) {
            return;
        }
        Set<String> refused = new TreeSet<>();
        for (ModuleReference module : modules) {
            builtAgainst(module).filter(built -> !compatible(built, platform.get()))
                    .ifPresent(refused::add);
        }
        if (!refused.isEmpty()) {
            String built = String.join(", ", refused);
            throw new PluginFolders.BrokenPluginException("it was built against provider API " + built
                    + ", and this egressctl has provider API " + platform.get() + "; a plugin runs on the major version"
                    + " of the API it was built against, at that minor version or a later one: install a version of"
                    + " the plugin built for provider API " + major(platform.get()) + ".x (at most "
                    + platform.get() + "), or an egressctl whose provider API is " + built);
        }
    }

    /** Whether a plugin built against provider API {@code built} runs on provider API {@code platform}. */
    static boolean compatible(String built, String platform) {
        int[] plugin = majorMinor(built);
        int[] ours = majorMinor(platform);
        if (plugin == null || ours == null) {
            return true;
        }
        return plugin[0] == ours[0] && plugin[1] <= ours[1];
    }

    /** The API version one module of a plugin was built against, if it names one. */
    static Optional<String> builtAgainst(ModuleReference module) {
        ModuleDescriptor descriptor = module.descriptor();
        if (!descriptor.isAutomatic()) {
            return descriptor.requires().stream().filter(requires -> requires.name().equals(API_MODULE)).findFirst()
                    .flatMap(ModuleDescriptor.Requires::rawCompiledVersion);
        }
        // Only a plain jar that is a plugin itself names the API; reading the others' manifests would cost start-up.
        boolean isPlugin = descriptor.provides().stream()
                .anyMatch(provides -> provides.service().equals(ProviderFactory.class.getName()));
        if (!isPlugin) {
            return Optional.empty();
        }
        try (ModuleReader reader = module.open()) {
            Optional<InputStream> manifest = reader.open("META-INF/MANIFEST.MF");
            if (manifest.isEmpty()) {
                return Optional.empty();
            }
            try (InputStream in = manifest.get()) {
                return Optional.ofNullable(new Manifest(in).getMainAttributes().getValue(MANIFEST_ATTRIBUTE))
                        .map(String::strip);
            }
        } catch (IOException unreadable) {
            return Optional.empty();
        }
    }

    private static String major(String version) {
        int[] parts = majorMinor(version);
        return parts == null ? version : Integer.toString(parts[0]);
    }

    /** Major and minor version; 0.x, from before the API had a version of its own, counts as 1.0. */
    private static int[] majorMinor(String version) {
        Matcher matcher = MAJOR_MINOR.matcher(version.strip());
        if (!matcher.matches()) {
            return null;
        }
        int major = Integer.parseInt(matcher.group(1));
        int minor = matcher.group(2) == null ? 0 : Integer.parseInt(matcher.group(2));
        return major == 0 ? new int[] {1, 0} : new int[] {major, minor};
    }
}
