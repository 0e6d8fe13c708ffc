package dev.egressproxies.fake;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.egressproxies.api.ErrorKind;
import dev.egressproxies.api.Operation;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;

class FakeConfigTest {

    @Nested
    class Defaults {
        @Test
        void absentFieldsGetTheDocumentedDefaults() {
            FakeConfig config = new FakeConfig(null, null, null, null, null, null, null);

            assertThat(config.zones()).containsExactly("zone-a");
            assertThat(config.machineTypes()).containsExactly("small");
            assertThat(config.images()).containsExactly("debian-12");
            assertThat(config.bootDelay()).isZero();
            assertThat(config.stateFile()).isNull();
            assertThat(config.operationLog()).isFalse();
            assertThat(config.faults()).isEmpty();
            assertThat(config).isEqualTo(FakeConfig.defaults());
        }

        @Test
        void withersChangeOneFieldAndKeepTheOthers() {
            FakeConfig config = FakeConfig.defaults()
                    .withZones("zone-a", "zone-b")
                    .withBootDelay(Duration.ofSeconds(2))
                    .withStateFile(Path.of("fake/state.json"))
                    .withOperationLog(true)
                    .withFault(Operation.GET, FaultConfig.slow(Duration.ofMillis(5)));

            assertThat(config.zones()).containsExactly("zone-a", "zone-b");
            assertThat(config.bootDelay()).hasSeconds(2);
            assertThat(config.stateFile()).isEqualTo(Path.of("fake/state.json"));
            assertThat(config.operationLog()).isTrue();
            assertThat(config.faults()).containsOnlyKeys("get");
            assertThat(config.faultsByOperation()).containsOnlyKeys(Operation.GET);
            assertThat(config.images()).containsExactly("debian-12");
        }

        @Test
        void listsAreCopiedSoLaterChangesToTheInputDoNotLeakIn() {
            List<String> zones = new ArrayList<>(List.of("zone-a"));
            FakeConfig config = new FakeConfig(zones, null, null, null, null, null, null);
            zones.add("zone-b");

            assertThat(config.zones()).containsExactly("zone-a");
        }
    }

    @Nested
    class InvalidValues {
        @Test
        void emptyZonesNamesTheFieldAndTheDefault() {
            assertThatThrownBy(() -> new FakeConfig(List.of(), null, null, null, null, null, null))
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining("zones is empty")
                    .hasMessageContaining("[zone-a]");
        }

        @Test
        void blankZoneNamesItsIndex() {
            assertThatThrownBy(() -> new FakeConfig(List.of("zone-a", " "), null, null, null, null, null, null))
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining("zones[1] is empty");
        }

        @Test
        void nullZoneNamesItsIndex() {
            assertThatThrownBy(() -> new FakeConfig(Arrays.asList("zone-a", null), null, null, null, null, null, null))
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining("zones[1] is empty");
        }

        @Test
        void zoneThatCannotBePartOfAnIdIsRejected() {
            assertThatThrownBy(() -> new FakeConfig(List.of("rack/1"), null, null, null, null, null, null))
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining("zones[0] 'rack/1' is not a valid zone name");
        }

        @Test
        void duplicateMachineTypeIsRejected() {
            assertThatThrownBy(() -> new FakeConfig(null, List.of("small", "small"), null, null, null, null, null))
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining("machineTypes[1] 'small' is listed twice");
        }

        @Test
        void emptyImageNamesItsIndex() {
            assertThatThrownBy(() -> new FakeConfig(null, null, List.of(""), null, null, null, null))
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining("images[0] is empty");
        }

        @Test
        void negativeBootDelaySaysWhatToUse() {
            assertThatThrownBy(() -> FakeConfig.defaults().withBootDelay(Duration.ofSeconds(-1)))
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining("bootDelay is negative")
                    .hasMessageContaining("2s");
        }

        @Test
        void emptyStateFileIsRejected() {
            assertThatThrownBy(() -> FakeConfig.defaults().withStateFile(Path.of("")))
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining("stateFile is empty");
        }

        @Test
        void operationLogWithoutStateFileSaysToSetStateFile() {
            assertThatThrownBy(() -> FakeConfig.defaults().withOperationLog(true))
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining("operationLog is true but stateFile is not set")
                    .hasMessageContaining("set stateFile");
        }

        @Test
        void unknownFaultOperationListsTheValidOnes() {
            Map<String, FaultConfig> faults = Map.of("craete", FaultConfig.failing(ErrorKind.TRANSIENT));

            assertThatThrownBy(() -> new FakeConfig(null, null, null, null, null, null, faults))
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining("unknown operation 'craete'")
                    .hasMessageContaining("create, get, delete, listManaged");
        }

        @Test
        void faultWithoutSettingsIsRejected() {
            Map<String, FaultConfig> faults = new HashMap<>();
            faults.put("get", null);

            assertThatThrownBy(() -> new FakeConfig(null, null, null, null, null, null, faults))
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining("faults.get has no settings");
        }
    }

    @Nested
    class Faults {
        @Test
        void absentFaultFieldsMeanNoFault() {
            FaultConfig fault = new FaultConfig(null, null, false, 0);

            assertThat(fault.kind()).isNull();
            assertThat(fault.latency()).isZero();
            assertThat(fault.hang()).isFalse();
        }

        @Test
        void negativeLatencyIsRejected() {
            assertThatThrownBy(() -> FaultConfig.slow(Duration.ofMillis(-1)))
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining("latency is negative");
        }

        @Test
        void negativeFailAfterIsRejected() {
            assertThatThrownBy(() -> new FaultConfig(ErrorKind.TRANSIENT, null, false, -2))
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining("failAfter is negative");
        }

        @Test
        void failAfterWithoutKindSaysToSetKind() {
            assertThatThrownBy(() -> new FaultConfig(null, null, false, 3))
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining("kind is not set")
                    .hasMessageContaining("TRANSIENT");
        }
    }
}
