package dev.egressproxies.kvm.common.instance;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;
import java.util.Map;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/** The entry names the engine accepts: those the configuration allows, which volume names are built from. */
class EntrySettingsTest {
    private static final String LONGEST = "a".repeat(63);

    @ParameterizedTest
    @MethodSource("allowedNames")
    void aNameTheConfigurationAllowsIsAccepted(String entry) {
        assertThat(settings(entry).entry()).isEqualTo(entry);
    }

    @ParameterizedTest
    @MethodSource("refusedNames")
    void aNameThatCouldMakeVolumeNamesAmbiguousOrInvalidIsRejected(String entry) {
        assertThatThrownBy(() -> settings(entry)).isInstanceOf(IllegalArgumentException.class)
                .hasMessage("provider entry name '" + entry + "' cannot name volumes: use 1 to 63 letters, digits,"
                        + " '.', '_' or '-', starting with a letter or digit");
    }

    static List<String> allowedNames() {
        return List.of("kvm", "kvm2-test", "a.b_c-d", "0", LONGEST);
    }

    static List<String> refusedNames() {
        return List.of("", "a+b", "a/b", "-a", ".a", "a b", LONGEST + "a");
    }

    private static EntrySettings settings(String entry) {
        return new EntrySettings(entry, List.of(), Map.of(), 10, "");
    }
}
