package dev.egressproxies.registry;

import static org.assertj.core.api.Assertions.assertThat;

import java.lang.module.ModuleDescriptor;
import java.lang.module.ModuleReader;
import java.lang.module.ModuleReference;
import java.util.Optional;
import java.util.Set;
import org.junit.jupiter.api.Test;

/** Which provider API versions a plugin may have been built against to load. */
class ApiVersionsTest {
    @Test
    void aPluginRunsOnItsMajorVersionAtItsMinorVersionOrALaterOne() {
        assertThat(ApiVersions.compatible("1.0.0", "1.0.0")).isTrue();
        assertThat(ApiVersions.compatible("1.0.0", "1.3.2")).isTrue();
        assertThat(ApiVersions.compatible("1.2.0", "1.3.0-SNAPSHOT")).isTrue();
        assertThat(ApiVersions.compatible("1.4.0", "1.3.0")).as("a later minor version may call what 1.3 lacks").isFalse();
        assertThat(ApiVersions.compatible("2.0.0", "1.3.0")).isFalse();
        assertThat(ApiVersions.compatible("1.3.0", "2.0.0")).isFalse();
    }

    @Test
    void aPluginBuiltBeforeTheApiHadAVersionOfItsOwnCountsAsBuiltAgainstOnePointZero() {
        assertThat(ApiVersions.compatible("0.1.0-SNAPSHOT", "1.0.0")).isTrue();
        assertThat(ApiVersions.compatible("0.1.0-SNAPSHOT", "1.2.0")).isTrue();
        assertThat(ApiVersions.compatible("0.1.0-SNAPSHOT", "2.0.0")).isFalse();
    }

    @Test
    void theVersionIsWhatJavacRecordedForTheRequiresOfTheApi() {
        ModuleDescriptor built = ModuleDescriptor.newModule("example.plugin")
                .requires(Set.of(), "dev.egressproxies.api", ModuleDescriptor.Version.parse("1.2.0"))
                .build();
        ModuleDescriptor unrecorded = ModuleDescriptor.newModule("example.other").requires("dev.egressproxies.api")
                .build();

        assertThat(ApiVersions.builtAgainst(reference(built))).contains("1.2.0");
        assertThat(ApiVersions.builtAgainst(reference(unrecorded))).isEmpty();
    }

    private static ModuleReference reference(ModuleDescriptor descriptor) {
        return new ModuleReference(descriptor, null) {
            @Override
            public ModuleReader open() {
                throw new UnsupportedOperationException();
            }
        };
    }

    @Test
    void thePlatformKnowsItsOwnVersionWhenItsApiIsAJar() {
        Optional<String> platform = ApiVersions.platform();
        platform.ifPresent(version -> assertThat(version).matches("\\d+\\.\\d+.*"));
    }
}
