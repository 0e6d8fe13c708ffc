package dev.egressproxies.registry;

import java.net.URI;
import java.net.URL;
import java.security.CodeSource;
import java.util.Optional;

/**
 * Descriptions of where a plugin class was loaded from (module name and jar or directory), so that
 * logs and duplicate-type errors tell the operator which file to remove.
 */
final class PluginLocations {

    private PluginLocations() {
    }

    /**
     * Describes the origin of {@code type}: {@code module NAME (URL)} for a class in a named
     * module, {@code class path URL} for one on the class path.
     */
    static String describe(Class<?> type) {
        Module module = type.getModule();
        Optional<String> where = codeSource(type).or(() -> moduleReferenceLocation(module));
        if (module.isNamed()) {
            return "module " + module.getName() + where.map(location -> " (" + location + ")").orElse("");
        }
        return "class path " + where.orElse("(location unknown)");
    }

    // The code source names the jar or directory the class really came from, which is more
    // precise than the module's reference when a module is patched (as in tests).
    private static Optional<String> codeSource(Class<?> type) {
        try {
            CodeSource source = type.getProtectionDomain().getCodeSource();
            return Optional.ofNullable(source).map(CodeSource::getLocation).map(URL::toString);
        } catch (SecurityException denied) {
            return Optional.empty();
        }
    }

    private static Optional<String> moduleReferenceLocation(Module module) {
        if (!module.isNamed() || module.getLayer() == null) {
            return Optional.empty();
        }
        return module.getLayer().configuration().findModule(module.getName())
                .flatMap(resolved -> resolved.reference().location())
                .map(URI::toString);
    }
}
