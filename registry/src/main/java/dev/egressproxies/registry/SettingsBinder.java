package dev.egressproxies.registry;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonMappingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.util.List;
import java.util.Optional;

/**
 * The binder of each entry's settings to its plugin's configuration record, which reports every
 * failure to the problem list with the entry's name and the path of the offending field.
 */
final class SettingsBinder {
    private final ObjectMapper mapper = StrictMapper.create();
    private final UnknownFields unknownFields = new UnknownFields(mapper);
    private final ProblemList problems;

    SettingsBinder(ProblemList problems) {
        this.problems = problems;
    }

    /**
     * Binds one entry's settings.
     *
     * @return the configuration record, or empty when binding failed (the problem was recorded)
     */
    Optional<Object> bind(ConfiguredEntry entry) {
        if (entry.plugin().factory() instanceof UnloadedPluginFactory) {
            // Without the plugin its settings cannot be checked; the entry fails with the plugin's problem.
            return Optional.of(entry.settings());
        }
        Class<?> configType;
        try {
            configType = entry.plugin().factory().configType();
        } catch (RuntimeException broken) {
            problems.add(entry, entry.path(), "plugin " + entry.plugin().source()
                    + " failed to report its configuration type: " + broken);
            return Optional.empty();
        }
        if (configType == null) {
            problems.add(entry, entry.path(), "plugin " + entry.plugin().source()
                    + " declares no configuration type (a bug in the plugin)");
            return Optional.empty();
        }
        try {
            List<MappingErrors.Explanation> unknown = unknownFields.find(entry.settings(), configType);
            if (!unknown.isEmpty()) {
                // Binding now would only add the constructor's view of the same typos.
                unknown.forEach(field -> problems.add(entry, entry.path() + field.path(), field.detail()));
                return Optional.empty();
            }
            return Optional.of(mapper.treeToValue(entry.settings(), configType));
        } catch (JsonMappingException failure) {
            MappingErrors.Explanation explanation = MappingErrors.explain(failure, entry.settings(), configType);
            problems.add(entry, entry.path() + explanation.path(), explanation.detail());
        } catch (JsonProcessingException | IllegalArgumentException failure) {
            problems.add(entry, entry.path(), "could not be bound to " + configType.getName() + ": " + failure.getMessage());
        }
        return Optional.empty();
    }
}
