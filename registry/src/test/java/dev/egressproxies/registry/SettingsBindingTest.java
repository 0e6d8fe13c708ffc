package dev.egressproxies.registry;

import static dev.egressproxies.registry.RegistryTestSupport.assertProblems;
import static dev.egressproxies.registry.RegistryTestSupport.assertRejected;
import static dev.egressproxies.registry.RegistryTestSupport.build;
import static org.assertj.core.api.Assertions.assertThat;

import dev.egressproxies.registry.fixtures.CounterFactory;
import dev.egressproxies.registry.fixtures.GreetingFactory;
import dev.egressproxies.registry.fixtures.HostsFactory;
import dev.egressproxies.registry.fixtures.HostsFactory.Firmware;
import dev.egressproxies.registry.fixtures.HostsFactory.Host;
import dev.egressproxies.registry.fixtures.HostsFactory.HostsSettings;
import dev.egressproxies.registry.fixtures.RecordingProvider;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;

/** Binding an entry's settings to its plugin's configuration record, and the errors it reports. */
class SettingsBindingTest {
    private final HostsFactory hosts = new HostsFactory();
    private final PluginCatalog catalog = PluginCatalog.of(hosts, new GreetingFactory());

    private HostsSettings bound(String yaml) {
        try (ProviderRegistry registry = build(catalog, yaml)) {
            return (HostsSettings) ((RecordingProvider) registry.entries().get(0).provider()).config();
        }
    }

    @Nested
    class Binding {
        @Test
        void bindsEverySettingToTheRecord() {
            HostsSettings settings = bound("""
                    - name: kvm-a
                      type: hosts
                      hosts:
                        - {name: host-1, address: 10.0.0.5, user: admin}
                        - {address: 10.0.0.6}
                      timeout: 1h30m
                      keyFile: /etc/egress/id_ed25519
                      port: 2222
                      firmware: UEFI
                      verbose: true
                      labels: {team: net}
                    """);

            assertThat(settings.hosts()).containsExactly(
                    new Host("host-1", "10.0.0.5", "admin"), new Host(null, "10.0.0.6", "root"));
            assertThat(settings.timeout()).isEqualTo(Duration.ofMinutes(90));
            assertThat(settings.keyFile()).isEqualTo(Path.of("/etc/egress/id_ed25519"));
            assertThat(settings.port()).isEqualTo(2222);
            assertThat(settings.firmware()).isEqualTo(Firmware.UEFI);
            assertThat(settings.verbose()).isTrue();
            assertThat(settings.labels()).containsExactly(Map.entry("team", "net"));
        }

        @Test
        void absentSettingsTakeTheRecordsDefaults() {
            HostsSettings settings = bound("""
                    - name: kvm-a
                      type: hosts
                      hosts: [{address: 10.0.0.5}]
                    """);

            assertThat(settings.timeout()).isEqualTo(Duration.ofSeconds(30));
            assertThat(settings.keyFile()).isNull();
            assertThat(settings.port()).isEqualTo(22);
            assertThat(settings.firmware()).isEqualTo(Firmware.BIOS);
            assertThat(settings.labels()).isEmpty();
        }

        @Test
        void bindsISODurationsAndRelativePaths() {
            HostsSettings settings = bound("""
                    - name: kvm-a
                      type: hosts
                      hosts: [{address: 10.0.0.5}]
                      timeout: PT2S
                      keyFile: keys/id_ed25519
                    """);

            assertThat(settings.timeout()).isEqualTo(Duration.ofSeconds(2));
            assertThat(settings.keyFile()).isEqualTo(Path.of("keys/id_ed25519"));
        }

        @Test
        void acceptsAnUnquotedNumberWhereAStringIsExpected() {
            try (ProviderRegistry registry = build(catalog, """
                    - name: greet
                      type: greeting
                      greeting: 42
                    """)) {
                assertThat(registry.require("greet").provider()).isNotNull();
            }
        }
    }

    @Nested
    class UnknownFields {
        @Test
        void aTopLevelUnknownFieldIsAnErrorNamingItsPathAndTheKnownFields() {
            assertRejected(catalog, """
                    - name: kvm-a
                      type: hosts
                      hosts: [{address: 10.0.0.5}]
                      colour: blue
                    """).hasMessageContaining("entry 'kvm-a' (type hosts): providers[0].colour: unknown field"
                    + " (known: firmware, hosts, keyFile, labels, port, timeout, verbose)");
        }

        @Test
        void everyUnknownFieldIsReportedInsteadOfWhatTheRecordSaysAboutItsAbsence() {
            assertProblems(catalog, """
                    - name: kvm-a
                      type: hosts
                      hosts: [{name: host-1, adress: 10.0.0.5, usr: admin}]
                    """).satisfies(error -> assertThat(error.problems()).containsExactly(
                    "entry 'kvm-a' (type hosts): providers[0].hosts[0].adress: unknown field (known: address, name, user)",
                    "entry 'kvm-a' (type hosts): providers[0].hosts[0].usr: unknown field (known: address, name, user)"));
        }

        @Test
        void anUnknownFieldInAListIsAnErrorNamingTheFullPath() {
            assertRejected(catalog, """
                    - name: greet
                      type: greeting
                    - name: kvm-a
                      type: hosts
                      hosts:
                        - {name: host-1, adress: 10.0.0.5}
                    """).hasMessageContaining("entry 'kvm-a' (type hosts): "
                    + "providers[1].hosts[0].adress: unknown field (known: address, name, user)");
        }
    }

    @Nested
    class MistypedValues {
        @Test
        void aStringWhereANumberIsExpectedIsAnError() {
            assertRejected(catalog, """
                    - name: kvm-a
                      type: hosts
                      hosts: [{address: 10.0.0.5}]
                      port: "twenty-two"
                    """).hasMessageContaining("entry 'kvm-a' (type hosts): providers[0].port:"
                    + " expected a whole number, got a string \"twenty-two\"");
        }

        @Test
        void aQuotedNumberIsNotANumber() {
            assertRejected(catalog, """
                    - name: kvm-a
                      type: hosts
                      hosts: [{address: 10.0.0.5}]
                      port: "22"
                    """).hasMessageContaining("providers[0].port: expected a whole number, got a string \"22\"");
        }

        @Test
        void anObjectWhereAListIsExpectedIsAnError() {
            assertRejected(catalog, """
                    - name: kvm-a
                      type: hosts
                      hosts: {name: host-1, address: 10.0.0.5}
                    """).hasMessageContaining("providers[0].hosts: expected a list, got an object");
        }

        @Test
        void aNumberWhereTrueOrFalseIsExpectedIsAnError() {
            assertRejected(catalog, """
                    - name: kvm-a
                      type: hosts
                      hosts: [{address: 10.0.0.5}]
                      verbose: 1
                    """).hasMessageContaining("providers[0].verbose: expected true or false, got the number 1");
        }

        @Test
        void aListWhereAStringIsExpectedInANestedRecordIsAnError() {
            assertRejected(catalog, """
                    - name: kvm-a
                      type: hosts
                      hosts: [{address: [10.0.0.5]}]
                    """).hasMessageContaining("providers[0].hosts[0].address: expected a string, got a list");
        }

        @Test
        void nullForAPrimitiveIsAnError() {
            assertRejected(PluginCatalog.of(new CounterFactory()), """
                    - name: counter
                      type: counter
                      count: null
                      dryRun: false
                    """).hasMessageContaining("entry 'counter' (type counter): providers[0].count:"
                    + " expected a whole number, got null");
        }

        @Test
        void anUnknownEnumConstantIsAnErrorListingTheAllowedOnes() {
            assertRejected(catalog, """
                    - name: kvm-a
                      type: hosts
                      hosts: [{address: 10.0.0.5}]
                      firmware: coreboot
                    """).hasMessageContaining("providers[0].firmware: expected one of BIOS, UEFI, got a string \"coreboot\"");
        }

        @Test
        void aDurationWithoutAUnitIsAnErrorShowingTheAcceptedForms() {
            assertRejected(catalog, """
                    - name: kvm-a
                      type: hosts
                      hosts: [{address: 10.0.0.5}]
                      timeout: 5 minutes
                    """).hasMessageContaining("providers[0].timeout: '5 minutes' is not a duration;"
                    + " write a whole number with a unit (d, h, m, s, ms), such as 500ms, 2s, 5m, 1h, 1h30m or ISO-8601 PT2S");
        }

        @Test
        void aBareNumberForADurationIsAnError() {
            assertRejected(catalog, """
                    - name: kvm-a
                      type: hosts
                      hosts: [{address: 10.0.0.5}]
                      timeout: 30
                    """).hasMessageContaining("providers[0].timeout: expected a duration such as 500ms, 2s, 5m,"
                    + " 1h, 1h30m or ISO-8601 PT2S, got the number 30");
        }
    }

    @Nested
    class MissingValues {
        @Test
        void anAbsentPrimitiveIsAnErrorSayingItIsRequired() {
            assertRejected(PluginCatalog.of(new CounterFactory()), """
                    - name: counter
                      type: counter
                      dryRun: true
                    """).hasMessageContaining("entry 'counter' (type counter): providers[0].count:"
                    + " missing; this setting is required: set it to a whole number");
        }

        @Test
        void givenPrimitivesBind() {
            try (ProviderRegistry registry = build(PluginCatalog.of(new CounterFactory()), """
                    - name: counter
                      type: counter
                      count: 3
                      dryRun: true
                    """)) {
                assertThat(((RecordingProvider) registry.require("counter").provider()).config())
                        .isEqualTo(new CounterFactory.CounterSettings(3, true));
            }
        }
    }

    @Nested
    class ValuesRejectedByTheRecord {
        @Test
        void aMissingRequiredListIsReportedAtItsPath() {
            assertRejected(catalog, """
                    - name: kvm-a
                      type: hosts
                    """).hasMessageContaining("entry 'kvm-a' (type hosts): providers[0].hosts: at least one host is required");
        }

        @Test
        void aMissingRequiredValueInANestedRecordIsReportedAtItsPath() {
            assertRejected(catalog, """
                    - name: kvm-a
                      type: hosts
                      hosts:
                        - {address: 10.0.0.5}
                        - {name: host-2}
                    """).hasMessageContaining("entry 'kvm-a' (type hosts): providers[0].hosts[1].address:"
                    + " required; give the host's IP address or DNS name");
        }
    }

    @Test
    void problemsOfEveryEntryAreReportedInOneError() {
        assertProblems(catalog, """
                - name: kvm-a
                  type: hosts
                  hosts: [{adress: 10.0.0.5}]
                - name: greet
                  type: greeting
                  repeat: often
                - name: kvm-b
                  type: hosts
                """).satisfies(error -> assertThat(error.problems()).containsExactly(
                "entry 'kvm-a' (type hosts): providers[0].hosts[0].adress: unknown field (known: address, name, user)",
                "entry 'greet' (type greeting): providers[1].repeat: expected a whole number, got a string \"often\"",
                "entry 'kvm-b' (type hosts): providers[2].hosts: at least one host is required"));
        assertThat(hosts.built()).isEmpty();
    }

    @Test
    void theMessageListsEveryProblemOnItsOwnLine() {
        assertRejected(catalog, """
                - name: kvm-a
                  type: hosts
                - name: kvm-b
                  type: hosts
                """).hasMessageStartingWith("the provider configuration is invalid; no provider was started (2 problems):")
                .hasMessageContaining(System.lineSeparator() + "  - entry 'kvm-a'")
                .hasMessageContaining(System.lineSeparator() + "  - entry 'kvm-b'");
    }

    @Test
    void aNullMapTakesTheRecordsDefault() {
        assertThat(bound("""
                - name: kvm-a
                  type: hosts
                  hosts: [{address: 10.0.0.5}]
                  labels: null
                """).labels()).isEqualTo(Map.of());
    }
}
