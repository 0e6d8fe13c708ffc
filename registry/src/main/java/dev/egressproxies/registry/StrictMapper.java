package dev.egressproxies.registry;

import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.MapperFeature;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.json.JsonMapper;
import com.fasterxml.jackson.databind.module.SimpleModule;
import java.time.Duration;

/**
 * The factory of the Jackson mapper that binds entry settings to configuration records, configured
 * to reject anything it would otherwise guess about (see the package documentation for the rules).
 */
final class StrictMapper {

    private StrictMapper() {
    }

    /** A new mapper; each registry build makes its own, so no mapper state is shared. */
    static ObjectMapper create() {
        SimpleModule durations = new SimpleModule("egress-proxies-durations");
        durations.addDeserializer(Duration.class, new DurationDeserializer());
        JsonMapper mapper = JsonMapper.builder()
                .addModule(durations)
                .enable(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES)
                .enable(DeserializationFeature.FAIL_ON_NULL_FOR_PRIMITIVES)
                .enable(DeserializationFeature.FAIL_ON_NUMBERS_FOR_ENUMS)
                // Whether a value is required is the record's decision (its compact constructor),
                // because plugins cannot be asked to depend on Jackson annotations.
                .disable(DeserializationFeature.FAIL_ON_MISSING_CREATOR_PROPERTIES)
                .disable(DeserializationFeature.FAIL_ON_NULL_CREATOR_PROPERTIES)
                // "22" is not a number and 1 is not true: a mistyped value is an error, not a guess.
                .disable(MapperFeature.ALLOW_COERCION_OF_SCALARS)
                .disable(DeserializationFeature.ACCEPT_FLOAT_AS_INT)
                .disable(DeserializationFeature.ACCEPT_SINGLE_VALUE_AS_ARRAY)
                .build();
        // An absent value of any reference type, collections included, binds null: only the
        // record can tell "left out, use the default" from "given empty", which may be an error.
        return mapper;
    }
}
