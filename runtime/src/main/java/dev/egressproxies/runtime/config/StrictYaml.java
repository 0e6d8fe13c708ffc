package dev.egressproxies.runtime.config;

import com.fasterxml.jackson.core.StreamReadFeature;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;

/**
 * The YAML reader for the files people write (config and desired sets): a key repeated in one
 * mapping is an error, where YAML would silently keep the last one, and so are unknown fields
 * and anything after the document.
 */
public final class StrictYaml {
    private StrictYaml() {
    }

    /** A new strict mapper. */
    public static ObjectMapper mapper() {
        return new ObjectMapper(YAMLFactory.builder()
                .enable(StreamReadFeature.STRICT_DUPLICATE_DETECTION)
                .build())
                .enable(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES)
                .enable(DeserializationFeature.FAIL_ON_TRAILING_TOKENS);
    }
}
