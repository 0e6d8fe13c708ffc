package dev.egressproxies.endtoend;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The packaged {@code egressctl} run as separate processes, as a person runs it: on the module
 * path, with the fake backend and a third-party plugin jar dropped into a plugin directory.
 * Tagged {@code integration}: it needs the packaged distribution, which only {@code verify} builds.
 */
@Tag("integration")
class EgressctlEndToEndTest {
    private static final ObjectMapper JSON = new ObjectMapper();

    @TempDir
    Path temp;
    Path home;
    Path work;
    EgressctlProcess egressctl;

    @BeforeEach
    void prepare() throws IOException {
        home = Files.createDirectories(temp.resolve("home"));
        work = Files.createDirectories(temp.resolve("work"));
        egressctl = new EgressctlProcess(home, work);
    }

    @Nested
    class BuiltInDefault {
        @Test
        void createGetListDeleteInSeparateInvocations() throws IOException {
            EgressctlProcess.Result created = egressctl.run("create", "demo", "--machine-type", "small",
                    "--image", "debian-12");
            assertThat(created.exitCode()).as(created.toString()).isZero();
            String id = created.out().trim();
            assertThat(id).isEqualTo("fake/zone-a/demo");

            JsonNode instance = json(egressctl.run("get", id, "-o", "json"));
            assertThat(instance.get("state").asText()).isEqualTo("RUNNING");
            assertThat(instance.get("ip").asText()).startsWith("198.51.100.");

            EgressctlProcess.Result listed = egressctl.run("list");
            assertThat(listed.exitCode()).as(listed.toString()).isZero();
            assertThat(listed.out()).contains(id).contains("RUNNING");

            assertThat(egressctl.run("create", "demo", "--machine-type", "small", "--image", "debian-12").out().trim())
                    .as("create is idempotent across processes").isEqualTo(id);
            assertThat(json(egressctl.run("list", "-o", "json"))).hasSize(1);

            EgressctlProcess.Result deleted = egressctl.run("delete", id);
            assertThat(deleted.exitCode()).as(deleted.toString()).isZero();
            EgressctlProcess.Result gone = egressctl.run("get", id);
            assertThat(gone.exitCode()).as(gone.toString()).isEqualTo(3);
            assertThat(gone.err()).contains(id.substring(id.indexOf('/') + 1)).contains("fake");
            assertThat(egressctl.run("delete", id).exitCode()).as("delete of what is gone").isZero();
        }

        @Test
        void versionNamesTheDiscoveredPlugins() {
            EgressctlProcess.Result version = egressctl.run("--version");
            assertThat(version.exitCode()).as(version.toString()).isZero();
            assertThat(version.out()).startsWith("egressctl 0.").contains("plugin fake ");
        }

        @Test
        void aCommandLoadsNoServiceItDoesNotUse() throws IOException {
            // A list on the fake exports no telemetry, downloads nothing and reaches no hypervisor.
            Path quiet = temp.resolve("quiet-classes.txt");
            EgressctlProcess.Result listed = egressctl.with("EGRESSCTL_JAVA_OPTS", "-Xlog:class+load=info:file=" + quiet)
                    .run("list");
            assertThat(listed.exitCode()).as(listed.toString()).isZero();
            assertThat(Files.readString(quiet))
                    .contains("dev.egressproxies.runtime.cli.ListCommand")
                    .doesNotContain("io.opentelemetry.sdk.")
                    .doesNotContain("jdk.internal.net.http.")
                    .doesNotContain("org.apache.sshd.")
                    .doesNotContain("org.libvirt.");

            // Asking for an exporter builds the SDK, which proves the log above would have shown it.
            Path exporting = temp.resolve("exporting-classes.txt");
            EgressctlProcess.Result traced = egressctl.with("OTEL_TRACES_EXPORTER", "logging")
                    .with("EGRESSCTL_JAVA_OPTS", "-Xlog:class+load=info:file=" + exporting).run("list");
            assertThat(traced.exitCode()).as(traced.toString()).isZero();
            assertThat(Files.readString(exporting)).contains("io.opentelemetry.sdk.trace.SdkTracerProvider");
        }

        @Test
        void concurrentProcessesShareOneStateFile() {
            List<EgressctlProcess.Running> running = new ArrayList<>();
            for (int index = 0; index < 4; index++) {
                running.add(egressctl.start("create", "proxy-" + index, "--machine-type", "small", "--image",
                        "debian-12"));
            }
            for (EgressctlProcess.Running process : running) {
                EgressctlProcess.Result result = process.await();
                assertThat(result.exitCode()).as(result.toString()).isZero();
            }
            EgressctlProcess.Result listed = egressctl.run("list");
            for (int index = 0; index < 4; index++) {
                assertThat(listed.out()).contains("fake/zone-a/proxy-" + index);
            }
        }
    }

    @Nested
    class WithAConfigFile {
        Path config;

        @BeforeEach
        void configure() throws IOException {
            config = Files.writeString(work.resolve("egress.yaml"), """
                    providers:
                      - name: lab
                        type: fake
                        zones: [zone-a, zone-b]
                        stateFile: %s
                      - name: flaky
                        type: fake
                        faults:
                          get: {kind: TRANSIENT}
                          create: {kind: QUOTA_EXCEEDED}
                    """.formatted(temp.resolve("lab.json")));
        }

        @Test
        void theConfigInTheWorkingDirectoryIsFound() throws IOException {
            JsonNode providers = json(egressctl.run("providers", "-o", "json"));
            assertThat(providers.get("config").asText()).endsWith("egress.yaml");
            assertThat(providers.get("entries")).extracting(entry -> entry.get("name").asText())
                    .containsExactly("lab", "flaky");
        }

        @Test
        void applyConvergesAndIsIdempotent() throws IOException {
            Path set = Files.writeString(work.resolve("proxies.yaml"), """
                    proxies:
                      - {name: web-1, provider: lab, zone: zone-a, machineType: small, image: debian-12}
                      - {name: web-2, provider: lab, zone: zone-b, machineType: small, image: debian-12}
                    """);
            assertThat(egressctl.run("create", "old", "--provider", "lab", "--zone", "zone-a", "--machine-type",
                    "small", "--image", "debian-12").exitCode()).isZero();

            EgressctlProcess.Result dryRun = egressctl.run("apply", "-f", set.toString(), "--dry-run");
            assertThat(dryRun.out()).as(dryRun.toString()).contains("2 to create").contains("1 to delete");
            assertThat(json(egressctl.run("list", "--provider", "lab", "-o", "json"))).hasSize(1);

            EgressctlProcess.Result applied = egressctl.run("apply", "-f", set.toString());
            assertThat(applied.exitCode()).as(applied.toString()).isZero();
            assertThat(json(egressctl.run("list", "--provider", "lab", "-o", "json")))
                    .extracting(instance -> instance.get("name").asText()).containsExactlyInAnyOrder("web-1", "web-2");

            JsonNode again = json(egressctl.run("apply", "-f", set.toString(), "-o", "json"));
            assertThat(again.get("plan")).isEmpty();
            assertThat(again.get("applied").asBoolean()).isFalse();
        }

        @Test
        void everyErrorPathHasItsExitCodeAndMessage() throws IOException {
            expect(egressctl.run("get", "lab/zone-a/never"), 3, "no instance");
            expect(egressctl.run("get", "flaky/zone-a/x"), 4, "get on provider entry 'flaky'");
            expect(egressctl.run("create", "x", "--provider", "flaky", "--machine-type", "small", "--image",
                    "debian-12"), 5, "create on provider entry 'flaky'");
            expect(egressctl.run("create", "x", "--provider", "lab", "--zone", "zone-c", "--machine-type", "small",
                    "--image", "debian-12"), 2, "zone-c");
            expect(egressctl.run("create", "UPPER", "--provider", "lab", "--zone", "zone-a", "--machine-type",
                    "small", "--image", "debian-12"), 2, "DNS label");
            expect(egressctl.run("get", "nowhere/zone-a/x"), 2, "no provider entry named 'nowhere'");
            expect(egressctl.run("get", "not-an-id"), 2, "ENTRY/PROVIDER-ID");
            expect(egressctl.run("frobnicate"), 2, "Unmatched argument");
            expect(egressctl.run("create", "x"), 2, "Missing required option");
            expect(egressctl.run("--config", work.resolve("missing.yaml").toString(), "list"), 2, "missing.yaml");

            Path bad = Files.writeString(work.resolve("bad.yaml"), """
                    providers:
                      - name: lab
                        type: fake
                        zones: [zone-a]
                      - name: typo
                        type: fake
                        bootDelay: soon
                    """);
            EgressctlProcess.Result badConfig = egressctl.run("--config", bad.toString(), "list");
            expect(badConfig, 2, "providers[1].bootDelay");
            assertThat(badConfig.err()).contains(bad.toString()).contains("entry 'typo'");
            assertThat(badConfig.out()).isEmpty();

            Path unknownType = Files.writeString(work.resolve("unknown.yaml"),
                    "providers:\n  - {name: a, type: openstack}\n");
            expect(egressctl.with("EGRESS_CONFIG", unknownType.toString()).run("list"), 2, "known types: fake");
        }

        private void expect(EgressctlProcess.Result result, int exitCode, String message) {
            assertThat(result.exitCode()).as(result.toString()).isEqualTo(exitCode);
            assertThat(result.err()).as(result.toString()).startsWith("egressctl: ").contains(message);
            assertThat(result.out()).as("nothing on standard output: " + result).isEmpty();
        }
    }

    @Nested
    class ThirdPartyPlugin {
        @BeforeEach
        void installPlugin() throws IOException {
            Path plugins = Files.createDirectories(temp.resolve("plugins"));
            PluginJar.writeExamplePlugin(plugins);
            egressctl.with("EGRESSCTL_PLUGINS", plugins.toString());
            Files.writeString(work.resolve("egress.yaml"), """
                    providers:
                      - name: partner
                        type: example
                        zone: lab
                        machineTypes: [tiny]
                        images: [alpine]
                    """);
        }

        @Test
        void aPluginJarInThePluginDirectoryIsFoundAndSelectedByConfig() throws IOException {
            EgressctlProcess.Result version = egressctl.run("--version");
            assertThat(version.out()).as(version.toString()).contains("plugin example 1.0").contains("plugin fake");

            JsonNode providers = json(egressctl.run("providers", "-o", "json"));
            assertThat(providers.get("entries").get(0).get("type").asText()).isEqualTo("example");

            EgressctlProcess.Result created = egressctl.run("create", "edge", "--machine-type", "tiny", "--image",
                    "alpine", "-o", "json");
            assertThat(json(created).get("id").asText()).startsWith("partner/");
            EgressctlProcess.Result checked = egressctl.run("check");
            assertThat(checked.exitCode()).as(checked.toString()).isZero();
        }

        @Test
        void thePluginsConfigErrorsNameTheField() throws IOException {
            Files.writeString(work.resolve("egress.yaml"), """
                    providers:
                      - name: partner
                        type: example
                        zone: lab
                        machineTypes: [tiny]
                        imagez: [alpine]
                    """);
            EgressctlProcess.Result result = egressctl.run("list");
            assertThat(result.exitCode()).as(result.toString()).isEqualTo(2);
            assertThat(result.err()).contains("providers[0].imagez: unknown field").contains("entry 'partner'");
        }
    }

    private static JsonNode json(EgressctlProcess.Result result) throws IOException {
        assertThat(result.exitCode()).as(result.toString()).isZero();
        return JSON.readTree(result.out());
    }
}
